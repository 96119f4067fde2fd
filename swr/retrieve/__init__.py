"""From a question to passages: cross-lingual search, document subjects and aliases, windows, rerank."""
