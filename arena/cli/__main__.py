"""`python -m arena.cli`: the same as the `arena` console script (tests run it in a subprocess)."""

from arena.cli import main

main()
