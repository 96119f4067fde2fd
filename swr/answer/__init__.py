"""From passages to an answer: answerability, prompts, LLM clients (remote and local), condense, extractive answers."""
