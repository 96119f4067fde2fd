"""swr: sentence-window retrieval. Index small (one vector per sentence), answer big (windows)."""
__version__ = "0.1.0"
