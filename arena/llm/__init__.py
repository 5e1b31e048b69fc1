"""Model access for LLM seats: the OpenAI-compatible client and its one retry layer, structured-output modes,
decision schemas, answer reading, call records, conversations and prompt rebuilds. (The local stand-in server that
plays the model's part in tests and demos is `arena/standin/`, a package of its own.)

Nothing here imports the openai SDK at package import time; `client.py`, `preflight.py` and the seats that use them
do, so the LangChain seat works with only the `langchain` extra.
"""
