"""Managing what a knowledge base keeps around it: access, trash, golden questions, feedback, shared answers."""
