"""Managing knowledge bases beyond their content: published settings (and, after the layout move,
access, trash, golden questions, feedback and the document view)."""
