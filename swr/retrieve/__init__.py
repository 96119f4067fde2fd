"""Retrieval: search requests, cross-lingual search, document subjects, windows, rerank."""
