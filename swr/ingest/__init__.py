"""From a file to stored sentences: loaders (PDF pages rebuilt from their layout), kept originals,
nodes, the indexer and its scheduler."""
