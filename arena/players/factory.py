"""Build a seat's Player from its AgentSpec: the one place that maps a spec kind to a player class.

Bots and humans are built here. LLM and LangChain seats are imported lazily, so a missing optional extra fails only
when such a seat is asked for, with a message that says what to install. A remote seat (an external program,
docs/remote.md) needs the `RemoteTable` that serves it, passed as `remote`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from arena.agents import AgentSpec
from arena.engine import RuleSet
from arena.players.base import Player
from arena.players.bots import HeuristicBot, RandomBot
from arena.players.noisy import NoisyBot

if TYPE_CHECKING:
    from arena.remote.server import RemoteTable


class PlayerBuildError(RuntimeError):
    """A seat that cannot be built (an unknown bot, a missing optional dependency); the message says why."""


def _lazy(module: str, function: str, extra: str, spec: AgentSpec, seat: int, **kwargs: Any) -> Player:
    try:
        builder = getattr(importlib.import_module(module), function)
    except ImportError as exc:
        raise PlayerBuildError(
            f"seat {seat} ({spec.name}) needs {module}, which failed to import ({exc}); "
            f"install the extra: pip install -e '.[{extra}]'"
        ) from None
    except AttributeError:
        raise PlayerBuildError(f"seat {seat} ({spec.name}): {module} has no {function}()") from None
    player = builder(spec, seat, **kwargs)
    if not isinstance(player, Player):
        raise PlayerBuildError(f"seat {seat} ({spec.name}): {module}.{function} did not return a Player")
    return player


def build_player(
    spec: AgentSpec, seat: int, *, seed: int, rules: RuleSet, lang: str, remote: RemoteTable | None = None
) -> Player:
    """The Player for `seat`. Bots are seeded from the game seed (each draw also mixes in the seat); a remote seat
    is served by `remote`."""
    if spec.kind == "bot":
        bot: Player
        if spec.bot == "random":
            bot = RandomBot(seat, seed)
        elif spec.bot == "heuristic" or spec.bot is None:
            bot = HeuristicBot(seat, seed, rules, lang)
        else:  # pragma: no cover - the spec forbids it
            raise PlayerBuildError(f"seat {seat}: unknown bot {spec.bot!r}")
        return NoisyBot(bot, seat, seed, spec.noise) if spec.noise else bot
    if spec.kind == "human":
        from arena.players.human import HumanPlayer

        return HumanPlayer(seat, lang=lang, rules=rules)
    if spec.kind == "llm":
        return _lazy("arena.players.llm", "build_llm_player", "llm", spec, seat, rules=rules, lang=lang)
    if spec.kind == "langchain":
        return _lazy(
            "arena.players.langchain_seat", "build_langchain_player", "langchain", spec, seat, rules=rules, lang=lang
        )
    if spec.kind == "remote":
        if remote is None:
            raise PlayerBuildError(
                f"seat {seat} ({spec.name}) is a remote agent, which `arena play` and `arena resume` seat "
                "(docs/remote.md); this command has no server for it"
            )
        from arena.players.remote import build_remote_player

        return build_remote_player(spec, seat, table=remote)
    raise PlayerBuildError(f"seat {seat}: unknown agent kind {spec.kind!r}")  # pragma: no cover
