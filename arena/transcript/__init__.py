"""The JSONL transcript: the one record of a game (review, replay, verify, resume, golden files).

Line 1 is a header (format, version, rules, seed, seats). Every later line is one record, tagged by `kind`:
`event` (an engine event), `input` (an engine input: what replay feeds back), `call` (a model call), `exchange` (a
remote seat's turn, docs/remote.md), `resume` (where `arena resume` went on) and, last, `end`. Lines are written and
flushed one at a time, so a crash loses at most the line being written; the reader reports such a torn last line,
and resume drops it. Since version 2 every line carries `hash`, a link of a hash chain that the end record seals (and,
with a key, signs). `docs/transcripts.md` documents the format; `docs/security.md` the threat model.

| module | job |
|---|---|
| `counters.py` | what a game counted per seat: its discipline and its model calls' totals |
| `records.py` | the header, end and resume records, the loaded `Transcript` (it rebuilds its game), the limits |
| `chain.py` | the hash chain: canonical JSON, a line's hash, the end record's signature, checking one link |
| `writer.py` | a new game's header, `TranscriptWriter` (create or append, never overwrite; one flushed line a record) |
| `reader.py` | `load`, `parse`, `read_stream`: the file read as a stream with bounds, every link checked |
| `verify.py` | `verify`: the chain, the signature, then a replay of every input and every model call's answer |
| `figures.py` | what no replay sees: costs, counts, totals (finite, not negative, the calls' sums), call references |

Imports run one way: `counters` <- `records` <- `chain` <- `writer`, `reader` <- `figures` <- `verify`. The package
may import the engine, `arena.players.base` (call records, the failure prefixes), `arena.agents` and `arena.trust`
(seat specs, redaction), `arena.safe_write` (the writer opens no link), `arena.safe_read` (the reader opens only
regular files), `arena.llm.modes` and `arena.llm.records`
(the answer cap and call references that `figures` checks), `arena.remote.protocol` and `arena.remote.check` (the
exchange record, and verify's check of it), and, inside `verify` only, `arena.llm.extract` and
`arena.llm.schema` (a call's answer read as the seat read it); never the orchestrator, a player, a renderer or the
command line. Every public name is re-exported here,
so `from arena.transcript import load, verify` is the way to use it.
"""

from arena.transcript.chain import canonical, chain_hash, check_link, sign_key_from_env, signature
from arena.transcript.counters import SeatCounters, SeatTotals, call_totals
from arena.transcript.reader import DuplicateKey, load, parse, read_stream
from arena.transcript.records import (
    FORMAT,
    GENESIS,
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    MIB,
    VERSION,
    Chain,
    End,
    Header,
    Resume,
    SeatEntry,
    Status,
    Stop,
    Transcript,
    TranscriptError,
)
from arena.transcript.verify import Outcome, Verdict, verify
from arena.transcript.writer import (
    CUT_MARK,
    TranscriptWriter,
    default_path,
    make_header,
    new_game_id,
    package_version,
    utc_now,
)

__all__ = [
    "CUT_MARK",
    "FORMAT",
    "GENESIS",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "MIB",
    "VERSION",
    "Chain",
    "DuplicateKey",
    "End",
    "Header",
    "Outcome",
    "Resume",
    "SeatCounters",
    "SeatEntry",
    "SeatTotals",
    "Status",
    "Stop",
    "Transcript",
    "TranscriptError",
    "TranscriptWriter",
    "Verdict",
    "call_totals",
    "canonical",
    "chain_hash",
    "check_link",
    "default_path",
    "load",
    "make_header",
    "new_game_id",
    "package_version",
    "parse",
    "read_stream",
    "sign_key_from_env",
    "signature",
    "utc_now",
    "verify",
]
