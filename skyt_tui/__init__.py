"""skyt-tui: measure and improve the repeatability of LLM code generation."""

__version__ = "0.1.0"
