"""Placements in simulation: does the printed interval cover the entrant's true place on the frozen scale, at fixed
games and when the placement stops at a width? (`bench/reference.py` prints the table of docs/reference.md.)

The world is `arena.research.simulate.World`, which the model does not assume: a seat's skill weighs by its role
(sheriff ×3, don ×2), seat positions have effects of their own, every deal draws a random effect shared by its two
games and every game one of its own, and 1 % of games are draws. The field is calibrated in that world as the real
one is (every ordered pair of members, whole sides, one game a deal) and frozen; then entrants below, inside and
above the field are placed on fresh deals, many times over.

**The truth** of a placement is what it estimates: with the field's frozen ratings as offsets, the skill at which the
frozen model's predicted wins against the schedule's opponents equal the entrant's true expected wins (each game's
true marginal chance, over both noises and over the deals' seatings), per side; the combined truth is their mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.field.place import MAFIA, TOWN, Estimate, Frozen, Outcome, place, stein_interval, stein_plan
from arena.research.corpus import side_of
from arena.research.records import Match
from arena.research.simulate import RULES, World

Array = NDArray[np.float64]
ENTRANT = "entrant"
SLOTS = [role.value for role, count in RULES.roles.items() for _ in range(count)]


def arrangement(rng: np.random.Generator) -> tuple[str, ...]:
    return tuple(SLOTS[i] for i in rng.permutation(len(SLOTS)))


def seating(roles: Sequence[str], town: str, mafia: str) -> tuple[str, ...]:
    return tuple(mafia if side_of(r) == MAFIA else town for r in roles)


def game(world: World, roles: Sequence[str], town: str, mafia: str, deal: float, rng: np.random.Generator) -> str:
    """One game's winner: town, mafia or draw."""
    logit = world.eta(seating(roles, town, mafia), roles) + deal + float(rng.normal(0, world.game_sd))
    if rng.random() < world.draw:
        return "draw"
    return TOWN if rng.random() < 1 / (1 + math.exp(-logit)) else MAFIA


def calibrate(world: World, members: Sequence[str], games: int, rng: np.random.Generator) -> Frozen:
    """A field frozen in `world` as `arena field freeze` freezes one: every ordered pair, whole sides."""
    from arena.research.ratings import fit

    pairs = [(a, b) for a in members for b in members]
    matches = []
    for g in range(games):
        town, mafia = pairs[g % len(pairs)]
        winner = game(world, arrangement(rng), town, mafia, float(rng.normal(0, world.deal_sd)), rng)
        if winner != "draw":
            matches.append(Match("sim", (town,) * 7, (mafia,) * 3, winner == TOWN, f"c{g}"))
    f = fit(matches, boot=0)
    side = f.side["sim"]
    assert side is not None

    def value(c: str, kind: str) -> float:
        e = f.estimate(c, kind)
        assert e is not None
        return float(e.interval.value)

    return Frozen(side.interval.value, {c: value(c, TOWN) for c in members}, {c: value(c, MAFIA) for c in members})


def truth(world: World, frozen: Frozen, members: Sequence[str], rng: np.random.Generator,
          seatings: int = 4000) -> tuple[float, float, float]:  # fmt: skip
    """(town, mafia, combined): the pseudo-true placement (module docstring), over `seatings` drawn deals."""
    out = {}
    for side in (TOWN, MAFIA):
        offsets, wins = np.empty(seatings), np.empty(seatings)
        for i in range(seatings):
            member, roles = members[i % len(members)], arrangement(rng)
            town, mafia = (ENTRANT, member) if side == TOWN else (member, ENTRANT)
            p = world.p_town(world.eta(seating(roles, town, mafia), roles)) / (1 - world.draw)
            offsets[i], wins[i] = frozen.offset(member, side), p if side == TOWN else 1 - p
        low, high = -30.0, 30.0
        for _ in range(80):  # the expected score is monotone in the skill
            mid = (low + high) / 2
            if float(np.sum(wins - 1 / (1 + np.exp(-(offsets + mid))))) > 0:
                low = mid
            else:
                high = mid
        out[side] = (low + high) / 2
    return out[TOWN], out[MAFIA], (out[TOWN] + out[MAFIA]) / 2


class Placement:
    """One simulated placement's games, drawn a deal at a time as a real run plays them."""

    def __init__(self, world: World, members: Sequence[str], rng: np.random.Generator) -> None:
        self.world, self.members, self.rng = world, list(members), rng
        self.outcomes: list[Outcome] = []
        self.deals = 0

    def play(self, deals: int) -> list[Outcome]:
        while self.deals < deals:
            d = self.deals
            roles = arrangement(self.rng)
            effect = float(self.rng.normal(0, self.world.deal_sd))
            member = self.members[d % len(self.members)]
            for side in (TOWN, MAFIA):
                town, mafia = (ENTRANT, member) if side == TOWN else (member, ENTRANT)
                winner = game(self.world, roles, town, mafia, effect, self.rng)
                if winner != "draw":
                    self.outcomes.append(Outcome(d, member, side, winner == side))
            self.deals += 1
        return self.outcomes


@dataclass(frozen=True)
class Result:
    estimate: Estimate
    deals: int
    capped: bool = False


def fixed(p: Placement, frozen: Frozen, deals: int) -> Result:
    return Result(place(p.play(deals), frozen).combined, deals)


def stein(p: Placement, frozen: Frozen, width: float, pilot: int, cap: int) -> Result:
    plan = stein_plan(place(p.play(pilot), frozen), width, cap)
    final = stein_interval(place(p.play(plan.deals), frozen), plan)
    return Result(final.combined, plan.deals, plan.capped)


def naive(p: Placement, frozen: Frozen, width: float, pilot: int, cap: int, *, floor: bool = True) -> Result:
    """Stop after the first deal (from the pilot's size on) at which the fixed-games interval is at most `width`
    wide: the rule that does not allow for its own stopping."""
    for deals in range(pilot, cap + 1):
        c = place(p.play(deals), frozen, floor=floor).combined
        if c.width <= width:
            return Result(c, deals)
    return Result(c, cap, True)


def entrants(frozen: Frozen, members: Sequence[str], gap: float = 1.0) -> dict[str, tuple[float, float]]:
    """World skills (town, mafia) of an entrant below, inside and above the field: `gap` logits past its weakest and
    strongest members on both sides, and halfway between its two middle members by combined skill."""
    ranked = sorted(members, key=frozen.combined)
    low, high = ranked[0], ranked[-1]
    a, b = ranked[(len(ranked) - 1) // 2], ranked[len(ranked) // 2 + (len(ranked) % 2 == 1)]
    return {
        "below": (frozen.town[low] - gap, frozen.mafia[low] - gap),
        "inside": ((frozen.town[a] + frozen.town[b]) / 2, (frozen.mafia[a] + frozen.mafia[b]) / 2),
        "above": (frozen.town[high] + gap, frozen.mafia[high] + gap),
    }


def world_for(frozen: Frozen, members: Sequence[str], entrant: tuple[float, float]) -> World:
    """The bench's world: the members' skills are a field's frozen ratings, the entrant's as given, misspecified as
    `research.simulate.World` is by default."""
    town = {m: frozen.town[m] for m in members} | {ENTRANT: entrant[0]}
    mafia = {m: frozen.mafia[m] for m in members} | {ENTRANT: entrant[1]}
    return World(frozen.h, town, mafia)
