"""From a file to stored sentences: loaders, kept originals, nodes, the indexer and its scheduler."""
