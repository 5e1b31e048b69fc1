"""The local real model: llama.cpp's `llama-server` with a small GGUF model, on this machine (the `local` extra).

It imports nothing else of `arena`."""
