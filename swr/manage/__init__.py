"""What surrounds the knowledge bases: access and API keys, published settings, shared answers,
trash, golden questions, feedback, presets, the document view, rendering."""
