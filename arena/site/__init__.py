"""`arena site`: a static leaderboard site built from tournament folders and field placements, and its check
(docs/site.md).

| module | job |
|---|---|
| `inputs.py` | the run folders read, their finished and verified games published into the site, `site.json` |
| `lists.py` | the pages that list the games behind each number |
| `boards.py` | the numbers: a leaderboard per rules preset (the report's fit) and per field (placements refitted) |
| `build.py` | every page rendered (Jinja2, the report's plots, the review page's replay), leaderboard.json and CSV |
| `check.py` | `--check`: each game present, unchanged and verifying, then the whole site re-rendered and compared |

It may import the engine, the transcript, `arena.render` (the replay's views), the research package (the report's
reader, fits and plots), the field package (placements), `arena.scoring` (the points table's system, `--scoring`),
`arena.safe_read`, `arena.safe_write` and `arena.sandbox`; never the command line or the web app.
"""
