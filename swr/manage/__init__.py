"""What surrounds the knowledge bases: access, trash, golden questions, feedback, presets, the
document view, rendering."""
