"""Roles and teams: the fixed vocabulary every other module of the engine speaks."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    CIVILIAN = "civilian"
    SHERIFF = "sheriff"  # also the commissar of classic and edge
    DOCTOR = "doctor"
    LOVER = "lover"
    MAFIA = "mafia"
    DON = "don"
    MANIAC = "maniac"


class Team(StrEnum):
    RED = "red"
    BLACK = "black"
    MANIAC = "maniac"


BLACK_ROLES = frozenset({Role.MAFIA, Role.DON})


def base_team(role: Role) -> Team:
    """The team a role belongs to before any Night-0 choice (an allied maniac counts as black for the win check)."""
    if role in BLACK_ROLES:
        return Team.BLACK
    return Team.MANIAC if role is Role.MANIAC else Team.RED
