"""Pure text functions: sentence splitting, structure (blocks, headings, sections), the facts of a
sentence, terms, the glossary."""
