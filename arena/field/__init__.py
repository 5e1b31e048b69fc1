"""Frozen reference fields: a named, versioned set of opponents every install has (the built-in bots at several
strengths), fixed rules and fixed deals, with ratings fitted once and frozen; and the placement of an entrant on a
field's fixed scale (`arena tournament --field NAME --entrant AGENT`, `arena field`; docs/reference.md).

| module | job |
|---|---|
| `definition.py` | a field file (`fields/NAME.toml`): members, rules, deals, frozen ratings; rules, deals checked |
| `fingerprint.py` | the members' behaviour pinned: every decision (not the words) in fixed games, hashed |
| `place.py` | the statistics: the entrant's skills with the field fixed, intervals by deal, Stein's two stages |
| `run.py` | a placement run: the entrant's seatings on the field's deals, played as a tournament, `placement.json` |
| `calibrate.py` | making a version: a draft's calibration tournament fitted and frozen, linked to an earlier version |
| `simulate.py` | placements in a world the model does not assume: coverage at fixed games and at a width |

It may import the engine, the players, the orchestrator, the transcript, `arena.agents`, `arena.safe_read`,
`arena.safe_write`, the tournament (its runner and schedule records) and the research package (the report's reader
and the side-aware fit that calibrates a field); never the command line or the web app.
"""
