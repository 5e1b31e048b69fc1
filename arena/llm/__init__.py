"""Model access for LLM seats: the OpenAI-compatible client and its one retry layer, structured-output modes,
decision schemas, answer reading, call records, conversations, prompt rebuilds, and a local stand-in server.

Nothing here imports the openai SDK at package import time; `client.py`, `preflight.py` and the seats that use them
do, so the LangChain seat works with only the `langchain` extra.
"""
