"""Causal persuasion: what one speech did to its listeners' beliefs and votes, measured by re-asking them without it.

A vote swing after a speech mixes persuasion with conformity. A recorded game can be replayed exactly, and any
seat's prompt rebuilt at any point, so the effect of one speech is measured directly: for a sampled speech and each
listener, the listener's **next belief probe** and its **vote** in the day's next vote round are asked twice,

- **factual**: on the game as recorded (the listener re-asked, so both answers come from the same model and server
  now; `factual="recorded"` reads the recorded answers instead and halves the calls),
- **counterfactual**: on the same game with that one speech replaced by a neutral one of the same length (the same
  number of words of filler that names no seat, no structured claim; its nominations are actions and stay),

every other input as recorded up to that point, and the listener's own history rewritten to show the neutral
speech wherever it had shown the real one. The difference is the speech's causal effect on this listener:

- `p_accused`: P(black) the listener gives the seats the speech accuses (its claim's `black`, the seats its words
  accuse or call black: `speech_reader`), factual minus counterfactual, averaged over those seats;
- `p_speaker`: P(black) the listener gives the speaker, factual minus counterfactual;
- `vote_accused`: whether the listener's chosen vote goes to a seat the speech accuses, factual minus
  counterfactual (1, 0 or −1).

Per speaker configuration (and per listener configuration) the report gives each effect's mean over the (speech,
listener) pairs with a 95 % interval clustered by game (ratio ± t·SE over games, t on C − 1 degrees of freedom), so
the listeners of one speech and the speeches of one game are never taken for independent trials.

Listeners are re-asked as they played: a bot seat is a fresh bot of its kind fed the replayed game's view (bots are
deterministic); a model seat is sent the messages `arena prompt --rebuild` gives at that point (`llm/rebuild.py`)
through its own client, from the LOCAL agent definition of its name (`trust.resume_seats`: a header never chooses
a server or a key). An answer the engine refuses, or none at all, leaves that pair out and is counted.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from arena.agents import AgentSpec
from arena.engine import Decision, Event, EventType, Game, IllegalDecision, Input, Kind, Request, RuleSet, view
from arena.players.base import ModelCall, Player
from arena.research.corpus import GameData, load_folder
from arena.research.intervals import Interval, ratio
from arena.research.speech_reader import ACCUSE, CHECK, read
from arena.transcript import Transcript

E = EventType
PROBE, VOTE = "probe", "vote"
FACTUAL, COUNTERFACTUAL = "factual", "counterfactual"
NEUTRAL = {  # short words, so the same number of them stays within the speech's character limit
    "en": "I have heard you all and I have no new read yet so I will wait and see how it goes",
    "ru": "Я всех слышал и пока не знаю что сказать так что я жду и смотрю как всё идёт",
}
EFFECTS = ("p_accused", "p_speaker", "vote_accused")


class PersuasionError(ValueError):
    """A folder or an option that cannot be measured; the message says why."""


# ----- what a transcript holds: each input, the request it answered, the events it made --------------------------
@dataclass(frozen=True)
class Step:
    index: int
    seat: int
    op: str
    request: Request | None  # the seat's pending request the input answered (decide, reject, default)
    events: tuple[int, int]  # the events before and after it
    round: int  # vote rounds started before it


def timeline(t: Transcript) -> tuple[list[Step], list[Event]]:
    game = Game(t.rules, t.header.seed, roles=t.header.roles)
    steps: list[Step] = []
    rounds = 0
    for i, item in enumerate(t.inputs):
        request = game.request_for(item.seat) if item.op in ("decide", "reject", "default") else None
        before = len(game.events)
        game.replay([item])
        steps.append(Step(i, item.seat, item.op, request, (before, len(game.events)), rounds))
        rounds += sum(1 for e in game.events[before:] if e.type is E.VOTING_STARTED)
    return steps, list(game.events)


@dataclass(frozen=True)
class Target:
    """A listener's decision to re-ask: its next probe, or its vote in the day's next vote round."""

    listener: int
    kind: str  # probe | vote
    index: int  # the first input of that decision (a vote round: the listener's first answer in it)
    asks: int  # the recorded answers it took (a vote per nominee is asked once per nominee until a yes)
    inputs: tuple[int, ...] = ()  # the listener's recorded inputs for it (refusals included): their calls' cost


@dataclass
class Item:
    """One sampled speech of one game and the decisions of its listeners to re-ask."""

    game: GameData
    index: int  # the speaker's input
    event: Event  # the speech
    accused: tuple[int, ...]
    neutral: Decision
    targets: list[Target]

    @property
    def speaker(self) -> int:
        assert self.event.seat is not None
        return self.event.seat

    @property
    def key(self) -> str:
        return f"{self.game.game_id}#{self.event.seq}"


def _voting(request: Request | None) -> bool:
    return request is not None and (
        request.kind is Kind.BALLOT or (request.kind is Kind.VOTE and request.subject == "nominee")
    )


def neutral_text(text: str, lang: str, max_chars: int = 0) -> str:
    """Filler of the same number of words as `text`, naming no seat (cut to `max_chars`, the speech's character
    limit, should it pass it: the engine would cut it there anyway)."""
    words = NEUTRAL.get(lang, NEUTRAL["en"]).split()
    out = " ".join(words[i % len(words)] for i in range(len(text.split())))
    while max_chars and len(out) > max_chars and " " in out:
        out = out.rsplit(" ", 1)[0]
    return out


def accused_by(e: Event, seats: Iterable[int]) -> tuple[int, ...]:
    """The seats a speech accuses: its claim's `black`, the seats its words accuse or say they checked black."""
    found = [s for s, c in zip(e.seats, e.counts, strict=False) if c] if e.roles else []
    found += [s.seat for s in read(e.text or "") if s.kind == ACCUSE or (s.kind == CHECK and s.value == "black")]
    valid = set(seats) - {e.seat}
    return tuple(dict.fromkeys(s for s in found if s in valid))


def items_of(g: GameData) -> list[Item]:
    """Every speech of the game with text, and the probe and vote its listeners made next."""
    t = g.transcript
    steps, events = timeline(t)
    lang = t.header.lang
    human = {e.seat for e in t.header.seats if e.agent.kind == "human"}
    out: list[Item] = []
    gone_at: dict[int, int] = {}
    for e in events:
        if e.type is E.ELIMINATED and e.seat is not None:
            gone_at.setdefault(e.seat, e.seq)
    for step in steps:
        if step.op != "decide" or step.request is None or step.request.kind is not Kind.SPEECH:
            continue
        speech = next((e for e in events[step.events[0] : step.events[1]]
                       if e.type is E.SPEECH and e.seat == step.seat and e.text), None)  # fmt: skip
        if speech is None:
            continue
        alive = {s for s in g.roles if gone_at.get(s, 1 << 30) > speech.seq}
        targets: list[Target] = []
        for listener in sorted(alive - {step.seat} - human):
            targets += _targets(steps, step, listener, speech.day, events)
        if not targets:
            continue
        original = t.inputs[step.index].decision
        assert original is not None
        text = neutral_text(speech.text or "", lang, step.request.max_chars)
        neutral = original.model_copy(update={"text": text, "claim": None})
        out.append(Item(g, step.index, speech, accused_by(speech, g.roles), neutral, targets))
    return out


def _targets(steps: list[Step], speech: Step, listener: int, day: int, events: list[Event]) -> list[Target]:
    out: list[Target] = []
    later = [s for s in steps[speech.index + 1 :] if s.seat == listener and s.request is not None]
    probe = next((s for s in later if s.request is not None and s.request.kind is Kind.PROBE), None)
    if probe is not None:
        answered = next(s.index for s in later if s.index >= probe.index and s.op != "reject")
        out.append(Target(listener, PROBE, probe.index, 1, tuple(range(probe.index, answered + 1))))
    first = next((s for s in later if _voting(s.request)), None)
    if first is not None and first.round == speech.round + 1 and _day_of(events, first.events[0]) == day:
        mine = [s for s in later if _voting(s.request) and s.round == first.round]
        asks = sum(1 for s in mine if s.op != "reject")
        out.append(Target(listener, VOTE, first.index, asks, tuple(s.index for s in mine)))
    return out


def _day_of(events: list[Event], upto: int) -> int:
    return events[upto - 1].day if upto > 0 else 0


def sample(items: Sequence[Item], n: int, seed: int) -> list[Item]:
    """`n` speeches, spread as evenly as the folder allows over the speakers' configurations (round robin over a
    seeded shuffle of each configuration's speeches), so every configuration is measured."""
    by_config: dict[str, list[Item]] = {}
    for item in items:
        by_config.setdefault(item.game.configs.get(item.speaker, "?"), []).append(item)
    rng = random.Random(seed)
    queues = []
    for config in sorted(by_config):
        queue = list(by_config[config])
        rng.shuffle(queue)
        queues.append(queue)
    out: list[Item] = []
    while len(out) < n and any(queues):
        for queue in queues:
            if queue and len(out) < n:
                out.append(queue.pop())
    return out


# ----- asking a listener again ------------------------------------------------------------------------------------
@dataclass
class Asked:
    decision: Decision | None
    calls: list[ModelCall] = field(default_factory=list)
    note: str = ""


class Asker(Protocol):
    """Re-asks one seat at a point of a replayed game."""

    async def ask(self, game: Game, seat: int, request: Request, session: Session) -> Asked: ...


@dataclass
class Session:
    """One re-asked decision: the game, the arm, the speech as shown and as replaced, and the calls made so far in
    this session (a vote per nominee takes several asks, each seeing the answers before it)."""

    item: Item
    arm: str
    limit: int  # the re-asked decision's first input: a recorded call from there on answered it, no history
    calls: list[tuple[int, ModelCall]] = field(default_factory=list)  # (inputs before it, the call)
    note: str = ""  # why the decision could not be had, if it could not


class BotAsker:
    """A bot listener: a fresh bot of its kind, fed the replayed game's view of the seat."""

    def __init__(self, build: Callable[[int], Player]) -> None:
        self.build = build

    async def ask(self, game: Game, seat: int, request: Request, session: Session) -> Asked:
        player = self.build(seat)
        answer = await player.decide(view(game, seat), request)
        try:
            game.check(seat, answer.decision)
        except IllegalDecision as exc:  # the bot's own fallback on a re-ask is surely legal
            answer = await player.decide(view(game, seat), request, exc.reason)
        return Asked(answer.decision)


UNKNOWN = object()  # an outcome the replay could not reach


def _refused(apply: Callable[[int, Decision], object], seat: int, decision: Decision, session: Session) -> bool:
    """Whether the engine refuses `decision` (checked or submitted by `apply`); the session notes its code."""
    try:
        apply(seat, decision)
    except IllegalDecision as exc:
        session.note = f"refused by the engine: {exc.code}"
        return True
    return False


async def _probe(game: Game, seat: int, asker: Asker, session: Session) -> dict[int, float] | None:
    request = game.request_for(seat)
    if request is None or request.kind is not Kind.PROBE:
        return None
    asked = await asker.ask(game, seat, request, session)
    if asked.decision is None or len(asked.decision.beliefs) != len(request.options):
        session.note = asked.note or "no probe in the answer"
        return None
    if _refused(game.check, seat, asked.decision, session):
        return None
    return dict(zip(request.options, asked.decision.beliefs, strict=True))


async def _vote(game: Game, seat: int, rest: list[Input], asker: Asker, session: Session) -> object:
    """The seat's chosen vote in the round open now (a seat, or None for no chosen vote), asking it at each of its
    requests and replaying every other seat's recorded inputs in between; UNKNOWN if the replay cannot go on."""
    started = max((e.seq for e in game.events if e.type is E.VOTING_STARTED), default=-1)
    scanned = len(game.events)
    i = 0
    while True:
        for e in game.events[scanned:]:
            if e.type is E.VOTE_CAST and e.seat == seat:
                return e.target if e.value == "yes" else None
            if e.type in (E.VOTES_COUNTED, E.VOTE_CANCELLED) and e.seq > started:
                return None
        scanned = len(game.events)
        request = game.request_for(seat)
        if _voting(request):
            assert request is not None
            asked = await asker.ask(game, seat, request, session)
            if asked.decision is None:
                session.note = asked.note or "no answer"
                return UNKNOWN
            if _refused(game.submit, seat, asked.decision, session):
                return UNKNOWN
            continue
        while i < len(rest) and rest[i].seat == seat and rest[i].op in ("decide", "reject", "default"):
            i += 1  # the seat's own recorded answers: it is asked instead
        if i >= len(rest):
            session.note = "the recorded inputs ended before the vote"
            return UNKNOWN
        try:
            game.replay([rest[i]])
        except (IllegalDecision, AssertionError, ValueError, KeyError):
            session.note = "the round went otherwise: a recorded input no longer applies"
            return UNKNOWN
        i += 1


def arm_inputs(item: Item, arm: str) -> list[Input]:
    inputs = list(item.game.transcript.inputs)
    if arm == COUNTERFACTUAL:
        inputs[item.index] = inputs[item.index].model_copy(update={"decision": item.neutral})
    return inputs


async def reask(item: Item, target: Target, arm: str, asker: Asker) -> tuple[object, Session]:
    """The listener's answer to `target` on one arm: a {seat: P(black)} for a probe, a seat or None for a vote;
    UNKNOWN when it could not be had."""
    t = item.game.transcript
    inputs = arm_inputs(item, arm)
    game = Game(t.rules, t.header.seed, roles=t.header.roles)
    game.replay(inputs[: target.index])
    session = Session(item, arm, target.index)
    if target.kind == PROBE:
        beliefs = await _probe(game, target.listener, asker, session)
        return (UNKNOWN if beliefs is None else beliefs), session
    return await _vote(game, target.listener, inputs[target.index :], asker, session), session


def recorded(item: Item, target: Target) -> object:
    """The factual answer as the transcript recorded it (`factual="recorded"`)."""
    t = item.game.transcript
    game = Game(t.rules, t.header.seed, roles=t.header.roles)
    game.replay(t.inputs[: target.index])
    mark = len(game.events)
    game.replay(t.inputs[target.index :])
    for e in game.events[mark:]:
        if target.kind == PROBE and e.type is E.PROBE and e.seat == target.listener:
            return {s: c / 1000 for s, c in zip(e.seats, e.counts, strict=True)}
        if target.kind == VOTE and e.type is E.VOTE_CAST and e.seat == target.listener:
            return e.target if e.value == "yes" else None
    return UNKNOWN


# ----- effects ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Effect:
    """One (speech, listener, decision) pair's factual and counterfactual answers and the effects they give."""

    game: str
    speech: int  # the speech event's seq
    speaker: int
    speaker_config: str
    listener: int
    listener_config: str
    kind: str
    accused: tuple[int, ...]
    factual: Any
    counterfactual: Any
    p_accused: float = math.nan
    p_speaker: float = math.nan
    vote_accused: float = math.nan


def effect_of(item: Item, target: Target, factual: object, counterfactual: object) -> Effect | None:
    if factual is UNKNOWN or counterfactual is UNKNOWN:
        return None
    g = item.game
    base = Effect(g.game_id, item.event.seq, item.speaker, g.configs.get(item.speaker, "?"), target.listener,
                  g.configs.get(target.listener, "?"), target.kind, item.accused, factual, counterfactual)  # fmt: skip
    if target.kind == PROBE:
        assert isinstance(factual, dict) and isinstance(counterfactual, dict)
        acc = [factual[a] - counterfactual[a] for a in item.accused if a in factual and a in counterfactual]
        spk = item.speaker
        both = spk in factual and spk in counterfactual
        return replace(base, p_accused=float(np.mean(acc)) if acc else math.nan,
                       p_speaker=factual[spk] - counterfactual[spk] if both else math.nan)  # fmt: skip
    if not item.accused:
        return base
    return replace(base, vote_accused=float(factual in item.accused) - float(counterfactual in item.accused))


@dataclass(frozen=True)
class Row:
    """One configuration's mean effect, with its interval clustered by game."""

    grouping: str  # speaker | listener
    config: str
    effect: str
    interval: Interval
    pairs: int


def summarise(effects: Sequence[Effect], grouping: str = "speaker") -> list[Row]:
    rows: list[Row] = []
    games = sorted({e.game for e in effects})
    cluster = {g: i for i, g in enumerate(games)}
    configs = sorted({e.speaker_config if grouping == "speaker" else e.listener_config for e in effects})
    for config in configs:
        mine = [e for e in effects if (e.speaker_config if grouping == "speaker" else e.listener_config) == config]
        for name in EFFECTS:
            vals = [(getattr(e, name), cluster[e.game]) for e in mine if not math.isnan(getattr(e, name))]
            if not vals:
                continue
            rows.append(Row(grouping, config, name, mean_effect(vals), len(vals)))
    return rows


PSEUDO = 2  # pseudo-pairs at each bound (+1 and -1) added to the interval's sample, each a game of its own


def mean_effect(values: Sequence[tuple[float, int]]) -> Interval:
    """The mean of effects in [-1, 1] (value, game), with a 95 % interval clustered by game: mean ± t·SE over
    games (`intervals.ratio`) of the sample with two pseudo-pairs at each bound, +1 and -1, each a game of its own,
    as Agresti and Coull add two successes and two failures to a share. Without them a configuration whose speeches
    rarely move anyone gets the interval [0, 0] from a sample of zeros: bench/persuasion.py measured 15-75 %
    coverage there, and 95-100 % with them (docs/metrics.md, "Causal persuasion"). The value is the plain mean."""
    games = sorted({g for _, g in values})
    index = {g: i for i, g in enumerate(games)}
    num = [v for v, _ in values] + [1.0, -1.0] * PSEUDO
    clusters = [index[g] for _, g in values] + list(range(len(games), len(games) + 2 * PSEUDO))
    iv = ratio(np.asarray(num, dtype=np.float64), np.ones(len(num)), np.asarray(clusters))
    mean = float(np.mean([v for v, _ in values])) if values else math.nan
    return Interval(mean, max(-1.0, min(iv.low, mean)), min(1.0, max(iv.high, mean)), float(len(values)), len(games))


def ranking(rows: Sequence[Row], effect: str = "p_accused") -> list[Row]:
    """The speaker configurations by their mean effect, largest first."""
    return sorted((r for r in rows if r.grouping == "speaker" and r.effect == effect),
                  key=lambda r: -r.interval.value)  # fmt: skip


# ----- plans and costs ----------------------------------------------------------------------------------------------
@dataclass
class Plan:
    items: list[Item]
    asks: int  # re-asks of model seats (both arms, or the counterfactual only)
    bot_asks: int
    cost_usd: float
    prompt_tokens: int
    completion_tokens: int


def model_seat(item: Item, seat: int) -> bool:
    entry = next((e for e in item.game.transcript.header.seats if e.seat == seat), None)
    return entry is not None and entry.agent.kind in ("llm", "langchain")


def recorded_calls(item: Item, target: Target) -> list[ModelCall]:
    """The listener's recorded calls for the decision `target` re-asks (every attempt, refused ones included)."""
    t = item.game.transcript
    wanted = set(target.inputs)
    return [c for c, pos in zip(t.calls, t.call_positions, strict=True) if c.seat == target.listener and pos in wanted]


def dearest_call(t: Transcript, seat: int) -> float:
    """The most a recorded call of `seat` cost: what a budget expects of its next one."""
    return max((c.cost_usd for c in t.calls if c.seat == seat), default=0.0)


def plan(items: Sequence[Item], factual: str = "reask") -> Plan:
    """The re-asks a run will make, and their cost: each arm re-asks a model seat as often as the decision took
    when it was recorded (a vote per nominee once per nominee until a yes), at what those recorded calls cost."""
    arms = 2 if factual == "reask" else 1
    asks = bot = 0
    cost = 0.0
    prompt = completion = 0
    for item in items:
        for target in item.targets:
            if not model_seat(item, target.listener):
                bot += target.asks * arms
                continue
            calls = recorded_calls(item, target)
            asks += len(calls) * arms
            cost += arms * sum(c.cost_usd for c in calls)
            prompt += arms * sum(c.prompt_tokens for c in calls)
            completion += arms * sum(c.completion_tokens for c in calls)
    return Plan(list(items), asks, bot, cost, prompt, completion)


def load_items(folder: Path) -> list[Item]:
    corpus = load_folder(folder)
    if not corpus.games:
        raise PersuasionError(f"{folder}: no finished game transcripts")
    return [item for g in corpus.games for item in items_of(g)]


# ----- records ------------------------------------------------------------------------------------------------------
def record_line(item: Item, target: Target, arm: str, answer: object, session: Session | None) -> str:
    calls = [c for _, c in session.calls] if session is not None else []
    shown: Any = None if answer is UNKNOWN else answer
    if isinstance(shown, dict):
        shown = {str(k): v for k, v in shown.items()}
    return json.dumps({
        "game": item.game.game_id, "speech": item.event.seq, "day": item.event.day, "speaker": item.speaker,
        "speaker_config": item.game.configs.get(item.speaker, "?"), "text": item.event.text,
        "neutral": item.neutral.text, "accused": list(item.accused), "listener": target.listener,
        "listener_config": item.game.configs.get(target.listener, "?"), "kind": target.kind, "arm": arm,
        "answer": shown, "answered": answer is not UNKNOWN, "calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "cost_usd": sum(c.cost_usd for c in calls),
    }, ensure_ascii=False)  # fmt: skip


def shown(iv: Interval) -> str:
    """An effect's mean with its interval, in text (with one game there is none)."""
    if math.isnan(iv.value):
        return "–"
    if iv.clusters < 2:
        return f"{iv.value:+.3f} (one game: no interval)"
    return f"{iv.value:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"


def effect_rows_text(rows: Sequence[Row]) -> list[str]:
    """The summary as Markdown table lines."""
    out = ["| grouping | configuration | effect | mean (95 %, clustered by game) | pairs | games |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        iv = r.interval
        out.append(f"| {r.grouping} | {r.config} | {r.effect} | {shown(iv)} | {r.pairs} | {iv.clusters} |")
    return out


def asdict_effect(e: Effect) -> dict[str, Any]:
    d = asdict(e)
    for key in ("factual", "counterfactual"):
        if isinstance(d[key], dict):
            d[key] = {str(k): v for k, v in d[key].items()}
    return d


def substituted(
    messages: list[dict[str, Any]], old: str, new: str, number: int
) -> tuple[list[dict[str, Any]], int]:
    """`messages` with the speech the seat numbers `number` (its log line `[#number] ...`) showing `new` where it
    showed `old` (as a prompt shows a player's words: `llm.injection.quote`, then its claim and flags to the end of
    the line), in user messages; and how many lines were rewritten. Another speech of the same words stays."""
    from arena.llm.injection import quote

    pattern = re.compile(r"^(\[#" + str(number) + r"\] [^\n]*?)" + re.escape(quote(old)) + r"[^\n]*", re.MULTILINE)
    count = 0
    out = []
    for m in messages:
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str):
            content, n = pattern.subn(lambda match: match.group(1) + quote(new), content)
            count += n
            m = {**m, "content": content}
        out.append(m)
    return out, count


def seat_number(item: Item, seat: int) -> int:
    """The number `seat` gives the speech event in its own log (how its prompts show it: `[#n]`)."""
    events = timeline(item.game.transcript)[1]
    return sum(1 for e in events[: item.event.seq] if e.visible_to(seat))


def rules_of(item: Item) -> RuleSet:
    return item.game.transcript.rules


def specs(item: Item) -> dict[int, AgentSpec]:
    return {e.seat: e.agent for e in item.game.transcript.header.seats}


# ----- a run ------------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    effects: list[Effect] = field(default_factory=list)
    pairs: int = 0  # (speech, listener, decision) pairs tried
    unanswered: dict[str, int] = field(default_factory=dict)  # why a pair was left out -> how many
    calls: int = 0  # model calls made
    bot_asks: int = 0
    cost_usd: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0


async def run(
    items: Sequence[Item],
    asker_for: Callable[[Item, int], Asker],
    *,
    factual: str = "reask",
    write: Callable[[str], None] | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> Outcome:
    """Re-ask every listener of every item on both arms (`factual="recorded"`: the counterfactual only); each
    answer is a record line passed to `write`. `stop` (the budget spent) ends the run early; what was measured
    stays."""
    out = Outcome()
    for item in items:
        for target in item.targets:
            if stop():
                out.unanswered["budget"] = out.unanswered.get("budget", 0) + 1
                continue
            out.pairs += 1
            asker = asker_for(item, target.listener)
            answers: dict[str, object] = {}
            notes: list[str] = []
            for arm in (FACTUAL, COUNTERFACTUAL):
                session: Session | None = None
                if arm == FACTUAL and factual == "recorded":
                    answer = recorded(item, target)
                else:
                    answer, session = await reask(item, target, arm, asker)
                    if session.note:
                        notes.append(session.note)
                    calls = [c for _, c in session.calls]
                    out.calls += len(calls)
                    out.cost_usd += sum(c.cost_usd for c in calls)
                    out.prompt_tokens += sum(c.prompt_tokens for c in calls)
                    out.completion_tokens += sum(c.completion_tokens for c in calls)
                    if not calls:
                        out.bot_asks += 1
                answers[arm] = answer
                if write is not None:
                    write(record_line(item, target, arm, answer, session))
            effect = effect_of(item, target, answers[FACTUAL], answers[COUNTERFACTUAL])
            if effect is None:
                why = "budget" if stop() else (notes[0] if notes else "the recorded answer is missing")
                out.unanswered[why] = out.unanswered.get(why, 0) + 1
            else:
                out.effects.append(effect)
    return out
