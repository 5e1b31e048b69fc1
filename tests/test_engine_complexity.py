"""The engine reads like the rule book, one rule's procedure to a function: no function of `arena/engine/` is rated
E or F by radon's cyclomatic complexity (over 30 decisions: two rules or more interleaved, as `vote_round` and
`night` were before they became a ballot round and a hands round, and the night's steps in §3's order)."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ENGINE = Path(__file__).resolve().parent.parent / "arena" / "engine"


def ranks() -> dict[str, tuple[str, int]]:
    """Every function and method of the engine: its radon rank and complexity, by `file:name`."""
    out: dict[str, tuple[str, int]] = {}
    for path in sorted(ENGINE.glob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            for item in [block, *getattr(block, "methods", [])]:
                out[f"{path.name}:{item.fullname}"] = (cc_rank(item.complexity), item.complexity)
    return out


def test_no_engine_function_is_rated_e_or_f() -> None:
    found = ranks()
    assert "voting.py:hands_round" in found and "game.py:Game.remove_seat" in found  # the walk sees functions, methods
    worst = {name: rank for name, rank in found.items() if rank[0] in ("E", "F")}
    assert not worst, f"engine functions rated E or F (split them by rule): {worst}"


def test_the_rank_sees_a_tangled_function() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(35))
    (block,) = cc_visit(f"def f(x):\n{branches}    return -1\n")
    assert cc_rank(block.complexity) == "E"
