"""Mafia Arena: LLM agents, bots and humans play Mafia under real club rules."""

__version__ = "0.1.0"
