"""The schedule: who sits in which seat with which role in every game of a tournament, balanced, not drawn.

Two schedules (`kind`): `sides`, the default, and `seats`.

`sides`: every game one configuration holds the whole town and one (the same or another) the whole mafia, cycling
through every ordered pair in rounds of k games in which each configuration holds the town once and the mafia once
(the filler takes only a seat of neither side, such as a maniac). That identifies each configuration's town skill,
its mafia skill and the side term (arena/research/identify.py). The deal's roles turn over the seats by one every
game and by one more after every cycle of pairs, so every pair meets every turn.

`seats`: one seat per configuration per game, the filler on the others. Every configuration plays each side, each
role and each seat as often as every other, within one at every prefix of the tournament (a run stopped by its
budget is still fair), exactly over whole blocks of n games (n seats). Holding one seat per game, a configuration
only ever trades one red seat for one black seat, so only a weighted combination of its two skills is identified.

- Roles: a block rotation over Latin-square seatings. In each block of n games, place e holds the role slot
  W[(e + shift) mod n] of an arrangement W of the rules' roles, each shift once per block, so a whole block gives
  every place every role slot once. `block_order` searches for an arrangement and an order of the shifts that keep
  every prefix within one, for every role and side.
- Who sits where is drawn afresh for every block from the seed, never from the pool's order: the configurations'
  places, the arrangement W and the seat each place starts from. With one fixed arrangement a configuration's role
  was tied to its neighbour's in the `[[pool]]` list (entries e and e + 1 held W[x] and W[x + 1]), and with role
  leverage (a sheriff or a don matters more) the rated combination absorbed the neighbour's role: the estimates
  changed when two pool entries were swapped. Drawn per block, the roles two configurations hold together are spread
  over every pair of slots, as in a dealt game, and the same in either order.
- Seats: place e sits at seat (start[e] + game) mod n within its block, so every block of n games gives every place
  n distinct seats, and neighbours change from block to block.
- A pool as large as the table admits no fair order of shifts; then each game is chosen by a bounded backtracking
  search: the cheapest role assignment (Hungarian algorithm on a steep cost of getting ahead of the fair share,
  perturbed by the seed so that ties do not follow the pool's order) that keeps every count within one.

With fewer configurations than seats the filler takes the other places; with more, each game seats the least-played
configurations (then balance is kept per game played, not guaranteed within one). The schedule is a pure function
of (labels, rules, games, seed, kind), so a resumed run recomputes the same one. Game i's seed is `seed + i`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Role, RuleSet
from arena.engine.roles import base_team

_GAP = 1e9  # the price of putting one configuration two ahead of another on any count
_BASE = 16.0  # the steepness of the cost: one game ahead of the fair share costs 16x more than being on it


@dataclass(frozen=True, slots=True)
class GamePlan:
    """One game: its index (0-based), seed, and per seat (seat 1 first) the configuration's label and the role."""

    index: int
    seed: int
    labels: tuple[str, ...]
    roles: tuple[Role, ...]

    def seats_of(self, label: str) -> list[int]:
        return [seat for seat, held in enumerate(self.labels, start=1) if held == label]


def side_of(role: Role) -> str:
    return base_team(role).value


def assign(cost: Sequence[Sequence[float]]) -> list[int]:
    """Minimum-cost perfect assignment of a square matrix (Hungarian algorithm with potentials): row i -> column."""
    n = len(cost)
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (n + 1)
    match = [0] * (n + 1)  # match[column] = row, 1-based; 0 is free
    way = [0] * (n + 1)
    for row in range(1, n + 1):
        match[0] = row
        col0 = 0
        best = [inf] * (n + 1)
        used = [False] * (n + 1)
        for _ in range(n + 1):  # bounded: each round marks one more column used
            used[col0] = True
            r0, delta, col1 = match[col0], inf, 0
            for col in range(1, n + 1):
                if used[col]:
                    continue
                reduced = cost[r0 - 1][col - 1] - u[r0] - v[col]
                if reduced < best[col]:
                    best[col], way[col] = reduced, col0
                if best[col] < delta:
                    delta, col1 = best[col], col
            for col in range(n + 1):
                if used[col]:
                    u[match[col]] += delta
                    v[col] -= delta
                else:
                    best[col] -= delta
            col0 = col1
            if match[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            match[col0] = match[col1]
            col0 = col1
    out = [0] * n
    for col in range(1, n + 1):
        out[match[col] - 1] = col - 1
    return out


class _Blocks:
    """What is drawn afresh for every block of n games of the `seats` schedule, from the seed alone: the place each
    configuration takes (0 to k − 1; the filler takes the rest) and the seat each place starts from."""

    def __init__(self, seed: int, k: int, n: int) -> None:
        self.seed, self.k, self.n = seed, k, n
        self._drawn: dict[int, tuple[list[int], list[int]]] = {}

    def rng(self, block: int) -> random.Random:
        return random.Random(f"seats:{self.seed}:{block}")

    def draw(self, block: int) -> tuple[list[int], list[int]]:
        if block not in self._drawn:
            rng = self.rng(block)
            self._drawn[block] = rng.sample(range(self.k), self.k), rng.sample(range(self.n), self.n)
        return self._drawn[block]

    def place(self, entry: int, game: int) -> int:
        """Configuration `entry`'s place in game `game`'s block."""
        return self.draw(game // self.n)[0][entry]

    def seat(self, place: int, game: int) -> int:
        """Place `place`'s seat (0-based) in game `game`: its block's start, one on per game."""
        return (self.draw(game // self.n)[1][place] + game) % self.n


def _steep(ahead: float) -> float:
    return float(_BASE**ahead)


def _gap(lead: int) -> float:
    """Two ahead of the configuration that has a count least: what the schedule must avoid above all."""
    return _GAP * (lead - 1) if lead >= 2 else 0.0


class _State:
    """Counts per configuration, with the undo a backtracking search needs."""

    def __init__(self, k: int) -> None:
        self.played = [0] * k
        self.roles = [Counter[Role]() for _ in range(k)]
        self.sides = [Counter[str]() for _ in range(k)]
        self.seats = [Counter[int]() for _ in range(k)]

    def apply(self, entry: int, role: Role, seat: int, step: int) -> None:
        self.played[entry] += step
        self.roles[entry][role] += step
        self.sides[entry][side_of(role)] += step
        self.seats[entry][seat] += step

    def balanced(self, roles: Sequence[Role], sides: Sequence[str], exact: bool) -> bool:
        """Every count within one between configurations; with `exact` (a block's end), all equal."""
        limit = 0 if exact else 1
        for counters, keys in ((self.roles, roles), (self.sides, sides)):
            for key in keys:
                values = [c[key] for c in counters]  # type: ignore[index]
                if max(values) - min(values) > limit:
                    return False
        return True


def _shift_order(
    key_of: list[tuple[int, int]], keys: int, places: Sequence[int], nodes: int = 4000, spent: list[int] | None = None
) -> list[int] | None:
    """A depth-first search for an order of the n shifts keeping every prefix balanced among `places` (bounded by
    `nodes`; the nodes visited are added to `spent[0]`)."""
    n = len(key_of)
    counts = [[0] * keys for _ in places]
    order: list[int] = []
    used = [False] * n
    visited = 0

    def move(shift: int, step: int) -> None:
        for i, e in enumerate(places):
            for key in key_of[(e + shift) % n]:
                counts[i][key] += step

    def fair() -> bool:
        return all(max(c[key] for c in counts) - min(c[key] for c in counts) <= 1 for key in range(keys))

    share = [sum(key in keys_of for keys_of in key_of) / n for key in range(keys)]

    def drift(shift: int) -> float:
        """How far the counts stray from the fair share after `shift`: the search tries the closest first, so a
        short tournament already mixes sides and roles (not ten red games, then the black ones)."""
        move(shift, 1)
        played = len(order) + 1
        total = sum((c[key] - played * share[key]) ** 2 for c in counts for key in range(keys))
        move(shift, -1)
        return total

    def search() -> bool:
        nonlocal visited
        if len(order) == n:
            return True
        visited += 1
        if visited > nodes:
            return False
        for shift in sorted((s for s in range(n) if not used[s]), key=drift):
            move(shift, 1)
            if fair():
                used[shift] = True
                order.append(shift)
                if search():
                    return True
                order.pop()
                used[shift] = False
            move(shift, -1)
        return False

    found = search()
    if spent is not None:
        spent[0] += visited
    return order if found else None


def block_order(
    slots: Sequence[Role], configs: int | Sequence[int], seed: int, *, attempts: int = 100, nodes: int = 4000,
    spent: list[int] | None = None, shuffle: bool = False,
) -> tuple[list[Role], list[int]] | None:
    """One block of the Latin rotation: an arrangement W of the role slots and an order of the n shifts such that,
    with place e holding W[(e + shift) mod n], every prefix of the block keeps the configurations' places (the first
    `configs`, or those listed) within one of each other on every role and side count. A whole block gives every
    place every slot once (exact). None when the search finds none (a pool as large as the table cannot be balanced
    by shifts alone)."""
    places = range(configs) if isinstance(configs, int) else configs
    n = len(slots)
    role_keys = sorted(set(slots))
    side_keys = sorted({side_of(r) for r in slots})
    key_of = [(role_keys.index(r), len(role_keys) + side_keys.index(side_of(r))) for r in slots]
    keys = len(role_keys) + len(side_keys)
    for attempt in range(attempts):
        arrangement = list(range(n))
        if attempt or shuffle:
            random.Random(f"{seed}:{attempt}").shuffle(arrangement)
        order = _shift_order([key_of[i] for i in arrangement], keys, places, nodes, spent)
        if order is not None:
            return [slots[i] for i in arrangement], order
    return None


SCHEDULES = ("sides", "seats")
DEFAULT = "sides"  # both skills identified; `seats` rates only a combination of them


def side_pairs(k: int) -> list[tuple[int, int]]:
    """Every ordered (town, mafia) pair of k configurations, in k rounds of k games: round d pairs a with a + d,
    so within a round every configuration holds the town once and the mafia once."""
    return [(a, (a + d) % k) for d in range(k) for a in range(k)]


def make_side_schedule(labels: Sequence[str], filler: str, rules: RuleSet, games: int, seed: int) -> list[GamePlan]:
    """The `sides` schedule: game i puts pair i mod k² of `side_pairs` on the town and the mafia seats, the roles'
    seats turned by one every game and by one more after every full cycle of pairs, so that each pair meets every
    turn (turning them only every game tied a pair to half the turns when k² and the table size share a factor, and
    a seat's own advantage passed for a skill)."""
    n = rules.players
    slots = [role for role, count in rules.roles.items() for _ in range(count)]
    random.Random(f"sides:{seed}").shuffle(slots)
    pairs = side_pairs(len(labels))
    plans = []
    for game in range(games):
        town, mafia = pairs[game % len(pairs)]
        turn = game % len(pairs) + game // len(pairs)
        roles = tuple(slots[(seat - turn) % n] for seat in range(n))
        side = {"red": labels[town], "black": labels[mafia]}
        seat_labels = tuple(side.get(side_of(role), filler) for role in roles)
        plans.append(GamePlan(game, seed + game, seat_labels, roles))
    return plans


NODES = 2000  # the search steps spent on them beyond the first, over the pool's size (each step counts them)
ARRANGEMENTS = 128  # fair arrangements a `seats` tournament draws its blocks from


Arrangement = tuple[list[Role], list[int], list[int]]  # slots W, the order of the shifts, the configurations' places


def arrangements(
    slots: Sequence[Role], configs: int, seed: int, wanted: int = ARRANGEMENTS, nodes: int = NODES
) -> list[Arrangement]:
    """Up to `wanted` distinct fair arrangements of a block (`block_order`), each for its own set of places drawn
    from `seed`: the blocks of a tournament draw from them, so the roles two configurations hold together are not
    one arrangement's neighbours all tournament long (with two configurations on places 0 and 1, the fair
    arrangements put a black slot beside a red one more often than a deal does). The first (places 0 to k − 1) may
    take `block_order`'s whole search; the others share a budget of `nodes` search steps, one try each. Small pools
    find many at once; large ones (8 of 10 places) mix well with one and find few, so the budget, not the clock,
    decides how many (the schedule stays a pure function of its inputs)."""
    n = len(slots)
    first = block_order(slots, configs, random.Random(f"seats:{seed}:arrangement").randrange(1 << 30))
    if first is None:
        return []
    found: list[Arrangement] = [(first[0], first[1], list(range(configs)))]
    spent = [0]
    attempt = 0
    nodes //= configs  # a step weighs the pool's size: large pools get few tries (and need few)
    while len(found) < wanted and spent[0] < nodes:
        rng = random.Random(f"seats:{seed}:arrangement:{attempt}")
        places = sorted(rng.sample(range(n), configs))
        one = block_order(slots, places, rng.randrange(1 << 30), attempts=1, nodes=min(4000, nodes - spent[0]),
                          spent=spent, shuffle=True)  # fmt: skip
        attempt += 1
        if one is not None and (one[0], places) not in [(f[0], f[2]) for f in found]:
            found.append((one[0], one[1], places))
    return found


def _latin(
    labels: Sequence[str], filler: str, slots: Sequence[Role], games: int, seed: int, blocks: _Blocks
) -> list[GamePlan] | None:
    """The Latin block rotation with a fair order of shifts; each block draws its arrangement (from `arrangements`),
    its places and its starting seats. None when no fair arrangement is found (a pool as large as the table)."""
    n, k = len(slots), len(labels)
    pool = arrangements(slots, k, seed)
    if not pool:
        return None
    plans: list[GamePlan] = []
    for block in range(-(-games // n)):
        arrangement, order, fair = pool[blocks.rng(block).randrange(len(pool))]
        shuffled, _ = blocks.draw(block)  # which configuration takes which of the arrangement's places
        at_place: list[str] = [filler] * n
        for entry, i in enumerate(shuffled):
            at_place[fair[i]] = labels[entry]
        for game in range(block * n, min(games, (block + 1) * n)):
            shift = order[game % n]
            seat_labels = [filler] * n
            seat_roles = [Role.CIVILIAN] * n
            for place in range(n):
                seat = blocks.seat(place, game)
                seat_roles[seat] = arrangement[(place + shift) % n]
                seat_labels[seat] = at_place[place]
            plans.append(GamePlan(game, seed + game, tuple(seat_labels), tuple(seat_roles)))
    return plans


def make_schedule(
    labels: Sequence[str],
    filler: str,
    rules: RuleSet,
    games: int,
    seed: int,
    *,
    search: int = 64,
    kind: str = DEFAULT,
) -> list[GamePlan]:
    """The tournament's games in order (`kind`: `sides`, the default, or `seats`; see the module docstring).

    For `seats`, each game's role assignment is the cheapest one (plus a small seeded perturbation on a retry) that
    keeps every count within one between configurations; when no retry of a game finds one, the search steps back a
    game (bounded by `search` tries per game on average)."""
    if kind not in SCHEDULES:
        raise ValueError(f"schedule {kind!r}: one of {', '.join(SCHEDULES)}")
    if kind == "sides":
        return make_side_schedule(labels, filler, rules, games, seed)
    n = rules.players
    k = len(labels)
    slots = [role for role, count in rules.roles.items() for _ in range(count)]
    share = {role: count / n for role, count in rules.roles.items()}
    side_share: dict[str, float] = {}
    for role, count in rules.roles.items():
        side_share[side_of(role)] = side_share.get(side_of(role), 0.0) + count / n
    role_keys = list(share)
    side_keys = list(side_share)
    blocks = _Blocks(seed, min(k, n), n)
    latin = _latin(labels, filler, slots, games, seed, blocks) if k <= n else None
    if latin is not None:
        return latin
    state = _State(k)
    chosen: list[tuple[list[int | None], list[int], list[int]]] = []  # per game: rows, role slot, seat (0-based)
    tries = [0] * (games + 1)
    budget = search * max(games, 1)
    best_len = -1
    best: list[tuple[list[int | None], list[int], list[int]]] = []

    def rows_for(game: int) -> list[int | None]:
        if k <= n:
            sitting = list(range(k))
        else:  # the least-played configurations sit; ties are broken by the seed, not the pool's order
            rank = random.Random(f"seats:{seed}:sit:{game}").sample(range(k), k)
            sitting = sorted(sorted(range(k), key=lambda e: (state.played[e], rank[e]))[:n])
        return [*sitting, *([None] * (n - len(sitting)))]  # None: a filler seat

    def seats_for(game: int, rows: list[int | None]) -> list[int]:
        if k <= n:  # every block of n games gives every place n distinct seats, from a start drawn per block
            places = [blocks.place(e, game) if e is not None else i for i, e in enumerate(rows)]
            return [blocks.seat(place, game) for place in places]
        low = {seat: min(c[seat] for c in state.seats) for seat in range(1, n + 1)}

        def cost(entry: int | None, seat: int) -> float:
            if entry is None:
                return 0.0
            have = state.seats[entry][seat]
            return _steep(have + 1 - (state.played[entry] + 1) / n) + _gap(have + 1 - low[seat])

        return assign([[cost(e, seat) for seat in range(1, n + 1)] for e in rows])

    def roles_for(game: int, attempt: int, rows: list[int | None]) -> list[int]:
        low_role = {role: min(c[role] for c in state.roles) for role in share}
        low_side = {side: min(c[side] for c in state.sides) for side in side_share}
        noise = random.Random(f"{seed}:{game}:{attempt}")

        def cost(entry: int | None, role: Role) -> float:
            if entry is None:
                return 0.0
            after = state.played[entry] + 1
            side = side_of(role)
            have, have_side = state.roles[entry][role], state.sides[entry][side]
            jitter = noise.random() * attempt  # retries explore other near-cheapest assignments
            return (
                _steep(have + 1 - after * share[role] + jitter)
                + _steep(have_side + 1 - after * side_share[side])
                + _gap(have + 1 - low_role[role])
                + _gap(have_side + 1 - low_side[side])
            )

        return assign([[cost(e, role) for role in slots] for e in rows])

    def play(rows: list[int | None], role_of: list[int], seat_of: list[int], step: int) -> None:
        for row, entry in enumerate(rows):
            if entry is not None:
                state.apply(entry, slots[role_of[row]], seat_of[row] + 1, step)

    steps = 0
    while len(chosen) < games and steps < budget:
        game = len(chosen)
        steps += 1
        attempt = tries[game]
        tries[game] += 1
        if attempt >= search and game > 0:  # this game has no balanced continuation: step back one game
            tries[game] = 0
            play(*chosen.pop(), step=-1)
            continue
        rows = rows_for(game)
        role_of = roles_for(game, attempt, rows)
        seat_of = seats_for(game, rows)
        play(rows, role_of, seat_of, 1)
        if k > n or attempt >= search or state.balanced(role_keys, side_keys, False):
            chosen.append((rows, role_of, seat_of))
            if len(chosen) > best_len:
                best_len, best = len(chosen), list(chosen)
        else:
            play(rows, role_of, seat_of, -1)
    if len(chosen) < games:  # the search ran out: keep the longest balanced run, then the cheapest choices
        state = _State(k)
        chosen = list(best)
        for picked in chosen:
            play(*picked, step=1)
        while len(chosen) < games:
            game = len(chosen)
            rows = rows_for(game)
            picked = (rows, roles_for(game, 0, rows), seats_for(game, rows))
            play(*picked, step=1)
            chosen.append(picked)
    drawn = random.Random(f"seats:{seed}:labels").sample(range(k), k)

    def label_of(entry: int, game: int) -> int:
        """The configuration that the search's entry `entry` is in game `game`. With a full table every count is
        equal at the end of each block of n games, so the entries take other configurations in every block (the
        roles two configurations hold together then do not follow the search's fixed pattern); otherwise one
        assignment drawn from the seed, never the pool's order."""
        return blocks.place(entry, game) if k == n else drawn[entry]

    out: list[GamePlan] = []
    for game, (rows, role_of, seat_of) in enumerate(chosen):
        seat_labels = [filler] * n
        seat_roles = [Role.CIVILIAN] * n
        for row, held in enumerate(rows):
            seat_roles[seat_of[row]] = slots[role_of[row]]
            if held is not None:
                seat_labels[seat_of[row]] = labels[label_of(held, game)]
        out.append(GamePlan(game, seed + game, tuple(seat_labels), tuple(seat_roles)))
    return out


def balance(plans: Sequence[GamePlan], labels: Sequence[str]) -> dict[str, Counter[str]]:
    """Per configuration, how often it played each side (`side:red`), role (`role:don`) and seat (`seat:3`), and
    how many seat-games in all (`games`)."""
    out = {label: Counter[str]() for label in labels}
    for plan in plans:
        for seat, (label, role) in enumerate(zip(plan.labels, plan.roles, strict=True), start=1):
            if label not in out:
                continue
            count = out[label]
            count["games"] += 1
            count[f"side:{side_of(role)}"] += 1
            count[f"role:{role.value}"] += 1
            count[f"seat:{seat}"] += 1
    return out


def spread(table: dict[str, Counter[str]]) -> dict[str, int]:
    """For every count key, the largest difference between two configurations (0 or 1 for a balanced schedule)."""
    keys = sorted({key for counts in table.values() for key in counts})
    return {key: max(c[key] for c in table.values()) - min(c[key] for c in table.values()) for key in keys}
