"""python -m swr: the parser, the commands and their output."""
