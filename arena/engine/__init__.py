"""The pure Mafia rules engine: rules, state, events, requests and the one view function. No I/O, no clock.

It may import nothing of `arena` outside `arena/engine/` but `arena.safe_read` (a rules file is read as hostile data,
inside `load_rules`); everything else imports it. The public names are re-exported here.

A game is a loop: the engine asks (`pending()`), each asked seat sees its `view` and answers (`submit`, or the rule's
default, `apply_default`), until the game is decided. With every seat taking the default (CI runs this as a doctest):

>>> from arena.engine import Game, load_rules, view
>>> game = Game(load_rules("fiim"), seed=7)
>>> while not game.over:
...     for request in game.pending():
...         observation = view(game, request.seat)  # all the seat may know
...         decision = game.apply_default(request.seat, "the example takes each rule's default")
>>> print(game.winner)
draw
"""

from arena.engine.decisions import Claim, Decision, Failed, Failure, IllegalDecision, Kind, Request, SpeechKind
from arena.engine.events import Event, EventType, Phase, Vis
from arena.engine.game import AWARDS, JUDGE_OPS, AwardKind, Game, Input
from arena.engine.outcome import Outcome, Termination, Winner
from arena.engine.roles import Role, Team
from arena.engine.ruleset import PRESETS, RulesError, RuleSet, load_rules
from arena.engine.view import MODERATOR, PUBLIC, Observation, seat_log, view, visible_events

__all__ = [
    "AWARDS",
    "JUDGE_OPS",
    "MODERATOR",
    "PRESETS",
    "PUBLIC",
    "AwardKind",
    "Claim",
    "Decision",
    "Event",
    "EventType",
    "Failed",
    "Failure",
    "Game",
    "IllegalDecision",
    "Input",
    "Kind",
    "Observation",
    "Outcome",
    "Phase",
    "Request",
    "Role",
    "RuleSet",
    "RulesError",
    "SpeechKind",
    "Team",
    "Termination",
    "Vis",
    "Winner",
    "load_rules",
    "seat_log",
    "view",
    "visible_events",
]
