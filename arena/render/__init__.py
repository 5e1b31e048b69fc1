"""Review renderers: a game drawn for the god view or for one seat, in the terminal (`console`) or as one
self-contained HTML page (`html`). Both draw a `story.Story`, which is built only from the engine's `view`.

| module | job |
|---|---|
| `story.py` | the `Story` of one viewer: chapters of lines, vote rounds and notes, the seats, who was alive when |
| `phrases.py` | the fixed words of every event, and `clean` (untrusted text made safe to print) |
| `phrases_ru.py` | the same facts in Russian, every event type |
| `phrasebook.py` | one phrase table per language: `line(event, lang)` words any event (the web log, the story) |
| `labels.py` | the review's headings and labels, one table per language (story, terminal, HTML page) |
| `notes.py` | a seat's reasoning and model calls, placed at the decision they served |
| `console.py`, `html.py` | `arena show` (rich) and `arena export` (one page; its CSS and script in `page/`) |
| `totals.py` | the table of model-call totals per seat |
| `playthrough.py` | a game as plain text: the god view, every request and its answer (the goldens' `.txt`) |
| `protocol.py` | the judge's score sheet in words (HTML, CSV, JSON; English and Russian), from `arena.scoring` |

Imports run `console`, `html` -> `story` -> `notes`, `labels` -> `phrasebook` -> `phrases`, `phrases_ru`. It may
import the engine, `arena.players.base` (call records), the transcript (`totals.py`, `protocol.py`, `playthrough.py`),
`arena.agents` (`totals.py`: prices) and `arena.scoring` (`protocol.py`); the live feed (`arena/live.py`) uses
`phrases`, the web pages `phrasebook` and `protocol`.
"""
