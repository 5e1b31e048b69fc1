"""Review renderers: a game drawn for the god view or for one seat, in the terminal (`console`) or as one
self-contained HTML page (`html`). Both draw a `story.Story`, which is built only from the engine's `view`."""
