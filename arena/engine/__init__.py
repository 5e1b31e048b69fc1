"""The pure Mafia rules engine: rules, state, events, requests and the one view function. No I/O, no clock.

It may import nothing of `arena` outside `arena/engine/` but `arena.safe_read` (a rules file is read as hostile data,
inside `load_rules`); everything else imports it. The public names are re-exported here."""

from arena.engine.decisions import Claim, Decision, IllegalDecision, Kind, Request, SpeechKind
from arena.engine.events import Event, EventType, Phase, Vis
from arena.engine.game import AWARDS, JUDGE_OPS, AwardKind, Game, Input, Winner
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
    "Game",
    "IllegalDecision",
    "Input",
    "Kind",
    "Observation",
    "Phase",
    "Request",
    "Role",
    "RuleSet",
    "RulesError",
    "SpeechKind",
    "Team",
    "Vis",
    "Winner",
    "load_rules",
    "seat_log",
    "view",
    "visible_events",
]
