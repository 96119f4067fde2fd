"""The base of every stage: settings, typed params and rules, errors, records, ids, the language
table, token counts, redaction."""
