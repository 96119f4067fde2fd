"""Claims checked against evidence: verification, verdicts, the per-sentence answer check."""
