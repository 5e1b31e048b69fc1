"""Scripted seats that differ by construction: the heuristic bot with one behaviour planted at a chosen strength.

A planted seat plays exactly as `HeuristicBot` except for one behaviour, which it shows on a share `level` of the
occasions (0: never, the plain bot; 1: every time), drawn from a generator of its own, so the bot's own draws are
untouched. Some plants are handed the truth (the roles dealt): a red seat that votes for a black, probes with the
true colours, or names the blacks in its best move. They exist to check that a measure tells apart agents that
really differ (`bench/discrimination.py`) and that `arena persuasion` finds the speaker whose words move the table:

| family | side | what is planted (on `level` of the occasions) |
|---|---|---|
| `truth-voter` | red | in a vote round with a black candidate, votes for the first black |
| `self-voter` | red | asked about itself, votes for itself |
| `busser` | black | in a vote round with a black teammate candidate, votes for him |
| `truth-nominator` | red | nominates a black |
| `truth-best-move` | red | names the blacks in its best move |
| `truth-prober` | red | its probe is `level` · truth + (1 − `level`) · its own belief |
| `false-claimer` | black | opens a speech with a false sheriff claim calling a red seat black (the accused knows) |
| `error-maker` | red | opens a speech calling a living seat dead |
| `leaker` | black | opens a speech naming a black teammate as his partner |
| `verbose` | red | reports 200 + 800 · `level` prompt tokens per decision (a scripted model call: no model) |
| `persuader` | red | opens a speech with a sheriff claim calling a seat black (bots follow); else only suspects it |

A planted seat's configuration (its agent name in the transcript) is `planted:FAMILY:LEVEL`, so `arena report` and
the bench read each level as a configuration.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.agents import BUILTIN, AgentSpec
from arena.engine import Claim, Decision, Game, Kind, Observation, Request, Role, RuleSet, SpeechKind, load_rules
from arena.orchestrator import run_game
from arena.players.base import Answer, ModelCall, Player
from arena.players.bots import HeuristicBot
from arena.transcript import TranscriptWriter, default_path, make_header

BLACK = frozenset({Role.MAFIA, Role.DON})
OPENING = frozenset({SpeechKind.REGULAR, SpeechKind.SHORT})


@dataclass(frozen=True)
class Family:
    """A planted behaviour: the side whose seats carry it, its strengths, and the report metrics it should move
    (+1: the metric rises with the level, −1: it falls)."""

    name: str
    side: str  # "red" or "black"
    levels: tuple[float, ...]
    metrics: dict[str, int]
    note: str = ""


FAMILIES: dict[str, Family] = {f.name: f for f in (
    # a truth voter that waits for a black last candidate gets its vote cast for him by the rules (R5.7): its
    # default votes land on blacks more often too
    Family("truth-voter", "red", (0.0, 0.25, 0.5, 1.0), {"vote_accuracy": 1, "default_vote_accuracy": 1}),
    Family("self-voter", "red", (0.0, 0.5, 1.0), {"self_vote_rate": 1}),
    Family("busser", "black", (0.0, 0.5, 1.0), {"bussing_rate": 1}),
    Family("truth-nominator", "red", (0.0, 0.25, 0.5, 1.0),
           {"nominations_on_black_share": 1, "red_nominations_on_black_share": 1}),
    Family("truth-best-move", "red", (0.0, 0.5, 1.0), {"best_move_hit_rate": 1}),
    Family("truth-prober", "red", (0.0, 0.25, 0.5, 1.0),
           {"probe_brier": -1, "probe_logloss": -1, "probe_auc": 1, "detection_brier": -1, "detection_auc": 1,
            "probe_uniform_brier": 0}),
    Family("false-claimer", "black", (0.0, 0.5, 1.0), {"lie_rate": 1, "deception": 1}),
    Family("error-maker", "red", (0.0, 0.25, 0.5, 1.0), {"error_rate": 1, "false_statement_share": 1}),
    Family("leaker", "black", (0.0, 0.5, 1.0), {"leak_rate": 1}),
    Family("verbose", "red", (0.0, 0.5, 1.0), {"tokens_per_decision": 1, "cost_per_decision": 1}),
    Family("persuader", "red", (0.0, 1.0), {}),
)}  # fmt: skip


def config_name(family: str, level: float) -> str:
    return f"planted:{family}:{level:.2f}"


def parse_config(name: str) -> tuple[str, float] | None:
    """(family, level) of a planted configuration name, or None."""
    parts = name.split(":")
    if len(parts) != 3 or parts[0] != "planted" or parts[1] not in FAMILIES:
        return None
    try:
        return parts[1], float(parts[2])
    except ValueError:
        return None


class PlantedBot(HeuristicBot):
    """The heuristic bot with one planted behaviour (see the module docstring). `roles` (seat -> role) is the truth
    the truth-handed plants are given; nothing else is read from it."""

    def __init__(self, seat: int, seed: int, rules: RuleSet, family: str, level: float, roles: Sequence[Role]) -> None:
        super().__init__(seat, seed, rules)
        self.family = family
        self.level = level
        self.black = {i + 1 for i, r in enumerate(roles) if r in BLACK}
        self._rounds: dict[tuple[int, tuple[int, ...]], bool] = {}

    def _draw(self, *key: object) -> bool:
        """A planted occasion: True on `level` of them, from a generator of its own (the bot's draws are untouched)."""
        return random.Random(f"plant:{self.family}:{self.seed}:{self.seat}:{key}").random() < self.level

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        answer = await super().decide(observation, request, problem)
        if problem is not None:  # a re-ask: the bot's surely legal fallback stands
            return answer
        decision = self._plant(observation, request, answer.decision)
        calls = list(answer.calls)
        if self.family == "verbose":
            tokens = 200 + round(800 * self.level)
            calls.append(ModelCall(seat=self.seat, request_kind=request.kind.value, model="scripted",
                                   prompt_tokens=tokens, completion_tokens=20, cost_usd=tokens * 1e-6))  # fmt: skip
        return Answer(decision=decision, calls=calls)

    def _round_mode(self, obs: Observation, request: Request) -> bool:
        key = (obs.day, request.candidates)
        if key not in self._rounds:
            self._rounds[key] = self._draw("round", obs.day, request.candidates, len(self._rounds))
        return self._rounds[key]

    def _plant(self, obs: Observation, request: Request, decision: Decision) -> Decision:
        f, kind, me = self.family, request.kind, self.seat
        nominee_vote = kind is Kind.VOTE and request.subject == "nominee" and request.candidate is not None
        if f in ("truth-voter", "busser") and (nominee_vote or kind is Kind.BALLOT):
            wanted = self._wanted(obs, request)
            if wanted is not None and self._round_mode(obs, request):
                if kind is Kind.BALLOT:
                    return decision.model_copy(update={"target": wanted})
                return decision.model_copy(update={"vote": request.candidate == wanted})
        elif f == "self-voter" and nominee_vote and request.candidate == me and self._draw("self", obs.next_number):
            return decision.model_copy(update={"vote": True})
        elif f == "truth-best-move" and kind is Kind.BEST_MOVE and self._draw("best", obs.day):
            blacks = tuple(s for s in request.options if s in self.black)[: request.max_targets]
            if blacks:
                return decision.model_copy(update={"targets": blacks})
        elif f == "truth-prober" and kind is Kind.PROBE and len(decision.beliefs) == len(request.options):
            mixed = tuple(round(self.level * (1.0 if s in self.black else 0.0) + (1 - self.level) * p, 3)
                          for s, p in zip(request.options, decision.beliefs, strict=True))  # fmt: skip
            return decision.model_copy(update={"beliefs": mixed})
        elif kind is Kind.SPEECH:
            return self._speech(obs, request, decision)
        return decision

    def _wanted(self, obs: Observation, request: Request) -> int | None:
        """Whom this plant votes for in the round, if a candidate: the first black (truth-voter), the first black
        teammate (busser)."""
        return next((c for c in request.candidates if c != self.seat and c in self.black), None)

    def _speech(self, obs: Observation, request: Request, decision: Decision) -> Decision:
        f, me = self.family, self.seat
        others = [s for s in obs.alive if s != me]
        if f == "truth-nominator" and request.may_nominate:
            fresh = [s for s in request.nominate_options if s not in obs.nominees and s != me]
            pick = next((s for s in fresh if s in self.black), None)
            if pick is not None and self._draw("nominate", obs.day):
                return decision.model_copy(update={"nominate": (pick,)})
            return decision
        if request.speech not in OPENING or not others:
            return decision
        rng = random.Random(f"plant-line:{self.seed}:{me}:{obs.next_number}")
        opening, claim = "", decision.claim
        if f == "false-claimer" and self._draw("claim", obs.next_number):
            reds = [s for s in others if s not in self.black] or others
            accused = rng.choice(reds)
            opening, claim = f"I am the sheriff. My checks: seat {accused} black.", Claim(role="sheriff",
                                                                                          black=(accused,))
        elif f == "error-maker" and self._draw("error", obs.next_number):
            opening = f"Seat {rng.choice(others)} was killed last night."
        elif f == "leaker" and self._draw("leak", obs.next_number):
            mates = sorted(self.black - {me})
            if mates:
                opening = f"My partner {rng.choice(mates)} agrees with me."
        elif f == "persuader":
            return self._persuade(obs, request, decision, others, rng)
        if not opening:
            return decision
        return decision.model_copy(update={"text": _fit(f"{opening} {decision.text}", request), "claim": claim})

    def _persuade(
        self, obs: Observation, request: Request, decision: Decision, others: list[int], rng: random.Random
    ) -> Decision:
        """The whole speech accuses one seat, which it nominates when it may: as a sheriff's black check (the bots
        follow it) on `level` of its speeches, else as a mild suspicion (they do not). Both speeches accuse and
        nominate the same way, so only the words differ."""
        fresh = [s for s in request.nominate_options if s not in obs.nominees and s != self.seat]
        accused = rng.choice(fresh if request.may_nominate and fresh else others)
        nominate = (accused,) if request.may_nominate and accused in fresh else ()
        if self._draw("persuade", obs.next_number):
            text = f"I am the sheriff. My checks: seat {accused} black. Vote with me against seat {accused}."
            claim: Claim | None = Claim(role="sheriff", black=(accused,))
        else:
            text, claim = f"I suspect seat {accused} a little. Let us see how the votes go.", None
        return decision.model_copy(update={"text": _fit(text, request), "claim": claim, "nominate": nominate})


def _fit(text: str, request: Request) -> str:
    words = text.split()
    text = " ".join(words[: request.max_words]) if request.max_words else " ".join(words)
    if request.max_chars and len(text) > request.max_chars:
        text = text[: request.max_chars].rsplit(" ", 1)[0]
    return text


def planted_spec(family: str, level: float) -> AgentSpec:
    return AgentSpec(name=config_name(family, level), kind="bot", bot="heuristic")


def seating(roles: Sequence[Role], family: Family, seed: int) -> dict[int, float]:
    """Which seats carry which level in one game: the levels on distinct seats of the family's side, drawn from the
    seed (the rest of the table are plain heuristic bots)."""
    side = [i + 1 for i, r in enumerate(roles) if (r in BLACK) == (family.side == "black")]
    random.Random(f"seating:{family.name}:{seed}").shuffle(side)
    return dict(zip(side, family.levels, strict=False))


async def play_game(
    family: Family, rules: RuleSet, seed: int, out: Path, *, build: Callable[..., Player] | None = None
) -> Path:
    roles = list(Game(rules, seed).roles[1:])
    levels = seating(roles, family, seed)
    agents = {s: planted_spec(family.name, levels[s]) if s in levels else BUILTIN["bot:heuristic"]
              for s in range(1, len(roles) + 1)}  # fmt: skip
    header = make_header(rules, seed, agents, roles=roles, game_id=f"{family.name}-{seed:06d}")
    path = default_path(out, header)
    writer = TranscriptWriter.create(path, header)
    players: dict[int, Player] = {
        s: PlantedBot(s, seed, rules, family.name, levels[s], roles) if s in levels else HeuristicBot(s, seed, rules)
        for s in agents
    }
    try:
        await run_game(Game(rules, seed, roles=roles), players, writer)
    finally:
        writer.close()
    return path


def play(family: str, games: int, out: Path, *, first_seed: int = 1, rules: RuleSet | None = None) -> list[Path]:
    """`games` games of one family into `out` (probes on, so the probe metrics have data); the transcript paths."""
    rules = rules or load_rules("fiim", overrides=["probes.daily=true"])
    seeds = range(first_seed, first_seed + games)
    return [asyncio.run(play_game(FAMILIES[family], rules, seed, out)) for seed in seeds]
