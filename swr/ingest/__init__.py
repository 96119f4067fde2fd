"""Ingest: files to documents (loaders, page layout), ready for splitting and indexing."""
