"""Games with real model seats against llama.cpp's `llama-server` (the `local` extra), and what the model and the
server did, per decision kind.

    python bench/real_model.py [--games 2] [--seats all|2,5,9] [--parallel 4] [--ctx 4096] [--rules FILE]
                               [--preset fiim] [--seed 1] [--base-url URL] [--threads N] [--keep DIR]
    python bench/real_model.py --report GAME.jsonl... [--base-url URL]   # the same for games already played

Starts `arena local-model`'s server (Gemma 3 270M unless `--model`) on a free port, or uses `--base-url`, plays
`--games` games through `arena play` (the user's path: preflight reads the window per slot from `/props`), and
prints, from the transcripts:

- per decision kind: calls, the usable-answer rate (answers read into a decision / answered calls), re-asks (the
  engine refused the model's answer), defaults, and the latency per call (median and 90th percentile);
- tokens: prompt, cached (llama.cpp's `prompt_tokens_details.cached_tokens`), evaluated (`timings.prompt_n`, what
  the server really computed), completion; the evaluated tokens over the sum of each seat's largest prompt (issue
  #17; without compaction the limit, below 1, is that seats share the rules' prefix), and the evaluated tokens
  over the floor of a perfect prefix cache (`cache_floor`: with compactions, the sum of largest prompts is no limit,
  since every compaction must rewrite the prompt after its unchanged head; needs the server, so `--report` wants
  `--base-url` for it);
- compactions (by budget and by overflow), wall time per game;
- per compaction, whether `arena prompt FILE --seat N --at K --json` (from the record, and with `--rebuild`) prints
  exactly the messages that were sent, and whether `arena verify` exits 0 (`--keep DIR` keeps the transcripts).

Printed, never asserted: the figures depend on the machine and its load (the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from arena.engine import MODERATOR, EventType, Game
from arena.llm.injection import quote
from arena.llm.rebuild import events_after_inputs
from arena.local.server import ALIAS, LocalServer, default_model
from arena.players.base import ModelCall
from arena.transcript import Transcript, load


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _agents(folder: Path, base_url: str) -> Path:
    from arena.resources import example_agents_root

    folder.mkdir(parents=True, exist_ok=True)
    text = (example_agents_root() / "local.toml").read_text()
    (folder / "local.toml").write_text(text.replace("http://127.0.0.1:8080/v1", base_url))
    return folder


def _play(args: argparse.Namespace, base_url: str, out: Path, seed: int) -> tuple[Path, float]:
    agents = _agents(out / "agents", base_url)
    command = [sys.executable, "-m", "arena.cli", "play", "--agents-dir", str(agents), "--out", str(out / "games"),
               "--quiet", "--seed", str(seed), "--seat", f"{args.seats}=local"]  # fmt: skip
    command += ["--rules", args.rules] if args.rules else ["--preset", args.preset]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"arena play failed ({done.returncode}): {done.stderr[-2000:]}")
    path = Path(done.stdout.strip().split()[-1])
    return path, wall


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


def _post(root: str, path: str, body: dict[str, object]) -> dict[str, object]:
    import json
    import urllib.request

    from arena.local.key import local_key

    headers = {"Content-Type": "application/json"}
    key = local_key(root)
    if key:  # a server of `arena local-model` wants its run's key
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(root + path, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=120) as reply:
        answer = json.loads(reply.read())
    assert isinstance(answer, dict)
    return answer


def cache_floor(base_url: str, t: Transcript) -> int:
    """The fewest prompt tokens a perfect prefix cache would still evaluate for this game: per seat, each prompt's
    tokens after the longest prefix it shares with what that seat's slot last held (its previous prompt, then its
    answer). The prompts are rendered and tokenized by the server itself (llama.cpp's `/apply-template` and
    `/tokenize`), so the floor is exact for it. A compaction rewrites what follows the unchanged head, and that
    rewrite is in the floor: it is what compaction costs at best. `evaluated / floor` is then what slot sharing and
    eviction cost on top."""
    from arena.llm.records import Expansion

    root = base_url.removesuffix("/v1")
    full = Expansion(t.calls)
    held: dict[int, list[int]] = {}
    floor = 0
    for i, call in enumerate(t.calls):
        prompt = _post(root, "/apply-template", {"messages": full.messages(i)})["prompt"]
        tokens = _post(root, "/tokenize", {"content": prompt, "add_special": True})["tokens"]
        assert isinstance(tokens, list)
        before = held.get(call.seat, [])
        shared = next((k for k, (a, b) in enumerate(zip(tokens, before, strict=False)) if a != b),
                      min(len(tokens), len(before)))  # fmt: skip
        floor += len(tokens) - shared
        answer = _post(root, "/tokenize", {"content": call.raw, "add_special": False})["tokens"] if call.raw else []
        assert isinstance(answer, list)
        held[call.seat] = [*tokens, *answer]
    return floor


@dataclass
class _KindRow:
    """One request kind's calls in the report."""

    calls: int = 0
    answered: int = 0  # an answer came back, usable or not
    usable: int = 0
    latency: list[float] = field(default_factory=list)  # seconds


def report(games: list[tuple[Transcript, float]], floor: int | None = None) -> None:
    kinds: dict[str, _KindRow] = defaultdict(_KindRow)
    rejects: dict[str, int] = defaultdict(int)
    defaults: dict[str, int] = defaultdict(int)
    prompt = cached = evaluated = completion = 0
    compactions: dict[str, int] = defaultdict(int)
    largest_sum = 0
    for t, _ in games:
        game = Game(t.rules, t.header.seed, roles=t.header.roles)
        llm = {s.seat for s in t.header.seats if s.agent.kind == "llm"}
        largest: dict[int, int] = defaultdict(int)
        for c in t.calls:
            row = kinds[c.request_kind]
            row.calls += 1
            row.answered += c.parsed is not None or (c.error or "").startswith("unusable")
            row.usable += c.parsed is not None
            row.latency.append(c.latency_ms / 1000)
            prompt += c.prompt_tokens
            cached += c.cached_tokens
            completion += c.completion_tokens
            evaluated += int((c.timings or {}).get("prompt_n", 0))
            largest[c.seat] = max(largest[c.seat], c.prompt_tokens)
            if c.compaction:
                compactions[c.compaction] += 1
        largest_sum += sum(largest.values())
        for item in t.inputs:  # the kind of each re-ask and default, read off the request pending at that point
            if item.seat in llm and item.op in ("reject", "default"):
                request = game.request_for(item.seat)
                kind = request.kind.value if request is not None else "?"
                (rejects if item.op == "reject" else defaults)[kind] += 1
            game.replay([item])
    print(f"{'kind':<14}{'calls':>7}{'usable':>9}{'re-asks':>9}{'defaults':>10}{'median s':>10}{'p90 s':>8}")
    for kind, row in sorted(kinds.items()):
        latency = row.latency
        usable = f"{row.usable / row.answered:.0%}" if row.answered else "-"
        print(f"{kind:<14}{row.calls:>7}{usable:>9}{rejects[kind]:>9}{defaults[kind]:>10}"
              f"{statistics.median(latency):>10.1f}{_pct(latency, 0.9):>8.1f}")  # fmt: skip
    walls = [w for _, w in games]
    print(f"\ntokens: prompt {prompt:,}, cached {cached:,} ({cached / max(prompt, 1):.0%}), evaluated {evaluated:,}, "
          f"completion {completion:,}")  # fmt: skip
    print(f"evaluated / sum of each seat's largest prompt: {evaluated / max(largest_sum, 1):.2f} "
          f"({evaluated:,} / {largest_sum:,})")  # fmt: skip
    if floor is not None:
        print(f"evaluated / the floor of a perfect prefix cache (compaction rewrites included): "
              f"{evaluated / max(floor, 1):.2f} ({evaluated:,} / {floor:,})")  # fmt: skip
    print(f"compactions: {dict(compactions) or 0}; wall per game: {', '.join(f'{w:.0f} s' for w in walls)}")
    quality = Quality()
    for t, _ in games:
        quality.add(t)
    quality.print()


ECHO_WORDS = 6  # a speech "echoes the prompt" when it repeats this many consecutive words of what it was sent
_WORD = re.compile(r"[\w']+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')  # a JSON string in the prompt: a player's words


def _echoes(speech: str, prompt: str) -> bool:
    """Whether `speech` repeats ECHO_WORDS consecutive words of `prompt`."""
    said = _words(speech)
    if len(said) < ECHO_WORDS:
        return False
    sent = " " + " ".join(_words(prompt)) + " "
    return any(f" {' '.join(said[i : i + ECHO_WORDS])} " in sent for i in range(len(said) - ECHO_WORDS + 1))


def _echo_kind(speech: str, prompt: str) -> str | None:
    """"moderator" when `speech` repeats the moderator's words (the rules, the log lines, the request: the prompt
    outside the players' quoted words), "player" when it repeats a player's quoted words, else None."""
    if _echoes(speech, _QUOTED.sub(" | ", prompt)):
        return "moderator"
    if _echoes(speech, " | ".join(_QUOTED.findall(prompt))):
        return "player"
    return None


def _spoken(call: ModelCall) -> str | None:
    """The speech (or black-team message) text of a call's parsed answer, per-request or stable shape."""
    parsed = call.parsed or {}
    fields = parsed.get("decision") if isinstance(parsed.get("decision"), dict) else parsed
    text = fields.get("speech", fields.get("message")) if isinstance(fields, dict) else None
    return text if isinstance(text, str) else None


@dataclass
class Quality:
    """What the model said and did, counted over games (issue #31: before and after the prompt change)."""

    speeches: int = 0
    empty: int = 0
    echoed: int = 0  # repeating the moderator's words
    parroted: int = 0  # repeating a player's (its own earlier speeches included)
    fouls: int = 0  # forbidden-phrase fouls of model seats
    black_shots: int = 0  # shots by black model seats at somebody
    black_on_black: int = 0  # of which at a black teammate
    votes: int = 0
    votes_no: int = 0
    compactions: int = 0
    kept: list[int] = field(default_factory=list)  # exchanges kept verbatim, per compaction
    last_speech_kept: int = 0  # compactions whose request holds the seat's last speech in its words
    last_speech_due: int = 0  # compactions after the seat had spoken

    def add(self, t: Transcript) -> None:
        from arena.llm.records import Expansion

        game = Game(t.rules, t.header.seed, roles=t.header.roles)
        game.replay(t.inputs)
        llm = {s.seat for s in t.header.seats if s.agent.kind == "llm"} | {
            s.seat for r in t.resumes for s in r.seats if s.agent.kind == "llm"
        }
        full = Expansion(t.calls)
        by_seat: dict[int, list[int]] = defaultdict(list)
        for i, call in enumerate(t.calls):
            if call.request_kind == "speech" and call.parsed is not None:
                by_seat[call.seat].append(i)
            if call.request_kind == "vote" and call.parsed is not None:
                fields = call.parsed.get("decision") if isinstance(call.parsed.get("decision"), dict) else call.parsed
                vote = fields.get("vote") if isinstance(fields, dict) else None
                if isinstance(vote, bool):
                    self.votes += 1
                    self.votes_no += not vote
        for event in game.events:
            if event.seat not in llm:
                continue
            if event.type is EventType.SPEECH:
                self.speeches += 1
                text = event.text or ""
                self.empty += not text.strip()
                # the call whose answer this speech is: the seat's earliest unused speech call saying it
                match = next((i for i in by_seat[event.seat] if (_spoken(t.calls[i]) or "").startswith(text)), None)
                if match is not None:
                    by_seat[event.seat].remove(match)
                    prompt = "\n".join(str(m.get("content") or "") for m in full.messages(match)
                                       if m.get("role") != "assistant")  # fmt: skip
                    kind = _echo_kind(text, prompt) if text.strip() else None
                    self.echoed += kind == "moderator"
                    self.parroted += kind == "player"
            elif event.type is EventType.FOUL and event.value == "forbidden_content":
                self.fouls += 1
            elif event.type is EventType.SHOT and event.target and game.is_black(event.seat):
                self.black_shots += 1
                self.black_on_black += game.is_black(event.target)
        events_after, _ = events_after_inputs(t, MODERATOR)
        for i, call in enumerate(t.calls):
            if not call.compaction or (call.parsed is None and not (call.error or "").startswith("unusable")):
                continue
            messages = full.messages(i)
            self.compactions += 1
            self.kept.append(max(0, (len(messages) - 2) // 2))
            shown = events_after[min(t.call_positions[i], len(t.inputs))]
            said = [e.text for e in game.events[:shown]
                    if e.type is EventType.SPEECH and e.seat == call.seat and e.text]  # fmt: skip
            if said:
                self.last_speech_due += 1
                sent = "\n".join(str(m.get("content") or "") for m in messages)
                self.last_speech_kept += quote(said[-1]) in sent  # as the log quotes it (control tokens defanged)

    def print(self) -> None:
        def rate(n: int, of: int) -> str:
            return f"{n}/{of} ({n / of:.0%})" if of else "0/0"

        print(f"speeches of model seats: {self.speeches}; empty {rate(self.empty, self.speeches)}; echoing the "
              f"prompt ({ECHO_WORDS}+ words in a row) {rate(self.echoed + self.parroted, self.speeches)}: the "
              f"moderator's words {rate(self.echoed, self.speeches)}, a player's {rate(self.parroted, self.speeches)}; "
              f"forbidden-phrase fouls {rate(self.fouls, self.speeches)}")  # fmt: skip
        print(f"black model seats' shots at a black teammate: {rate(self.black_on_black, self.black_shots)}; "
              f"votes 'no': {rate(self.votes_no, self.votes)}")  # fmt: skip
        kept = Counter(self.kept)
        print(f"compactions (answered): {self.compactions}; exchanges kept verbatim: "
              f"{', '.join(f'{k}: {kept[k]}' for k in sorted(kept)) or '-'}; the seat's last speech kept in its words: "
              f"{rate(self.last_speech_kept, self.last_speech_due)}")  # fmt: skip


def _wall(t: Transcript, parse: Callable[[str], datetime]) -> float:
    """Seconds from the header's start to the end record (0 when either is missing)."""
    if t.end is None or not t.end.finished_at or not t.header.started_at:
        return 0.0
    return (parse(t.end.finished_at) - parse(t.header.started_at)).total_seconds()


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, check=False)


def checks(path: Path, t: Transcript) -> None:
    """`arena verify`, and `arena prompt --at K` right after each compaction against the messages sent (K in the
    seat's own numbering, the `[#K]` its prompt shows)."""
    from arena.llm.records import Expansion

    print(f"arena verify {path.name}: exit {_arena('verify', str(path)).returncode}")
    positions = t.call_positions
    full = Expansion(t.calls)
    counts = {seat: events_after_inputs(t, seat)[1] for seat in {c.seat for c in t.calls if c.compaction}}
    same = rebuilt = total = 0
    for i, call in enumerate(t.calls):
        point = min(positions[i], len(t.inputs))
        later = [j for j in range(i + 1, len(t.calls)) if t.calls[j].seat == call.seat
                 and min(positions[j], len(t.inputs)) == point]  # fmt: skip
        if not call.compaction or later:  # `arena prompt --at K` shows a point's last call
            continue
        total += 1
        sent = json.loads(json.dumps(full.messages(i)))
        at = ["prompt", str(path), "--seat", str(call.seat), "--at", str(counts[call.seat][point] - 1), "--json"]
        same += json.loads(_arena(*at).stdout or "null") == sent
        rebuilt += json.loads(_arena(*at, "--rebuild").stdout or "null") == sent
    print(f"{path.name}: {total} compacted calls a point's last; arena prompt --at K shows what was sent for {same}, "
          f"--rebuild for {rebuilt}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seats", default="all", help="the local seats: all, or e.g. 2,5,9 (the rest are bots)")
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--ctx", type=int, default=4096, help="context tokens per slot")
    parser.add_argument("--preset", default="fiim")
    parser.add_argument("--rules", default=None, help="a rules file instead of the preset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--base-url", default=None, help="a running server instead of starting one")
    parser.add_argument("--threads", type=int, default=None, help="llama-server's threads (default: the cores)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the games' folders here")
    parser.add_argument("--report", type=Path, nargs="+", default=None, help="report on these transcripts instead")
    args = parser.parse_args()
    if args.report:
        done = [(path, load(path)) for path in args.report]
        for path, t in done:
            print(f"{path.name}: {t.rules.name}, {len(t.calls)} calls")
        floor = sum(cache_floor(args.base_url, t) for _, t in done) if args.base_url else None
        report([(t, _wall(t, datetime.fromisoformat)) for _, t in done], floor)
        for path, t in done:
            checks(path, t)
        return
    server = None
    base_url = args.base_url
    if base_url is None:
        model = args.model or default_model()
        server = LocalServer(model, port=_free_port(), ctx=args.ctx, parallel=args.parallel,
                             alias=args.model.stem if args.model else ALIAS, threads=args.threads)  # fmt: skip
        server.start()
        server.wait_ready(600)
        base_url = server.base_url
    print(f"model {args.model or ALIAS}, {args.parallel} slots of {args.ctx} tokens, threads "
          f"{args.threads or 'default'}, seats {args.seats}, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    games = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.keep or Path(tmp)
            for n in range(args.games):
                path, wall = _play(args, base_url, folder / f"game{n + 1}", args.seed + n)
                games.append((load(path), wall))
                print(f"game {n + 1}: {wall:.0f} s, {len(games[-1][0].calls)} calls, {path}", flush=True)
            report(games, sum(cache_floor(base_url, t) for t, _ in games))
            for n, (t, _) in enumerate(games):
                checks(next((folder / f"game{n + 1}" / "games").glob("*.jsonl")), t)
    finally:
        if server is not None:
            server.stop()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
