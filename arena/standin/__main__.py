"""`python -m arena.standin [--port 8765] [--latency 0.1] [--salt S] [--vary] [--record FILE]`: serve until
interrupted (the benches start it so, in a process of its own)."""

from arena.standin.server import main

main()
