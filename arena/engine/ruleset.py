"""RuleSet: every parameter of docs/rules.md §2.1 (P01–P40) and every ⚠ point of §5, frozen and validated.

Presets are TOML files in `presets/`; a user's own file (TOML or YAML) is validated field by field, and a bad
field produces an error that names it and lists the allowed values.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from arena.engine.roles import Role

PRESETS = ("fiim", "club", "classic", "aurora", "edge")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Night0(_Section):
    """P05: what happens on the introduction night."""

    black_meeting: bool = True  # R2.2: the blacks see each other
    black_meeting_rounds: int = Field(1, ge=0, le=5)  # bounded message exchange (don first, then seat order)
    don_sets_order: bool = True  # the don names the kill order for the next nights
    kill_order_length: int = Field(3, ge=0, le=5)
    message_s: int = Field(20, ge=5)  # each black message of the meeting (the meeting lasts a minute)
    wake_to_be_seen: list[Role] = []  # R2.3 / club / edge: roles shown to the host; no exchange (no-op but recorded)


class Opener(_Section):
    """P08: who opens each day."""

    day1: int = Field(1, ge=1)
    rotate: Literal["next_after_previous_opener"] = "next_after_previous_opener"


class Speech(_Section):
    """P09, P14, P19, P20 and R3.4: speech lengths in seconds, mapped to words."""

    words_per_minute: int = Field(150, ge=30, le=600)  # R3.4 [ASSUMPTION] 60 s ≈ 150 words
    regular_s: int = Field(60, ge=5)
    intro_s: int = Field(30, ge=5)  # club's Day-1 intro round
    extra_s: int = Field(0, ge=0)  # club's 30 s extra word on a raised hand; 0 = none
    tie_s: int = Field(30, ge=5)  # popil / justification speech
    last_word_voted_s: int = Field(60, ge=0)
    last_word_night_s: int = Field(60, ge=0)
    nominate_only_s: int = Field(10, ge=1)  # R4.6: the forfeited speech keeps a short turn to nominate
    short_speech_s: int = Field(30, ge=5)  # R9.2: 3 fouls with 3–4 alive
    overlong: Literal["truncate", "truncate_and_foul"] = "truncate"  # R9.7: over the limit is cut off
    chars_per_word: int = Field(12, ge=1, le=100)  # a text of N words holds at most N × this many characters
    reasoning_words: int = Field(600, ge=0)  # a seat's private reasoning, cut before it is stored

    def words(self, seconds: int) -> int:
        return max(1, round(seconds * self.words_per_minute / 60)) if seconds > 0 else 0

    def chars(self, words: int) -> int:
        """The character cap of a text whose budget is `words` words."""
        return words * self.chars_per_word


class Nominations(_Section):
    """P10, R4.*."""

    enabled: bool = True  # False: the vote runs over all living players (club, edge)
    self_allowed: bool = True  # §5.2 ⚠: no source forbids it
    day1_allowed: bool = True  # club intro day has none anyway


class Voting(_Section):
    """P11–P13, R5.*."""

    protocol: Literal["per_nominee", "ballot"] = "per_nominee"  # R5.10 default; ballot = one secret pick each
    mandatory: bool = True  # P11; aurora lets players abstain
    default: Literal["last_candidate", "none"] = "last_candidate"  # R5.7 / P11: unvoted go to the last called
    self_vote_allowed: bool = True  # §5.2 ⚠: no source forbids voting for yourself
    single_nominee_day1: Literal["no_vote", "eliminated", "threshold"] = "no_vote"  # R5.3 / P12
    single_nominee_later: Literal["no_vote", "eliminated", "threshold"] = "eliminated"  # R5.4 / P12
    majority: Literal["plurality", "more_than_half_of_votes_cast"] = "plurality"  # P13 (aurora ⚠ §5.8)


class Ties(_Section):
    """P14–P18, R6.*."""

    # club/edge: 2, so ties of 3+ → nobody (P15)
    max_tied_for_speeches: Annotated[int, Field(ge=2)] | Literal["any"] = "any"
    subset_retie: Literal["new_popil", "nobody"] = "new_popil"  # R6.4 / P17
    repeat: Literal["lift_vote", "nobody"] = "lift_vote"  # R6.5 / P16
    lift_forbidden_all_living_tied: bool = True  # R6.6a
    lift_forbidden_nine_living_three_tied: bool = True  # R6.6b ⚠
    lift_forbidden_four_living_two_tied: bool = False  # R6.6c: fiim allows it
    leader_justification: bool = False  # P18 club acquittal: a sole leader justifies, then a yes/no re-vote
    one_justification_per_game: bool = True  # P18: a player justifies once; next time he leaves at once


class Fouls(_Section):
    """P31–P33, R9.*."""

    lose_speech_at: Annotated[int, Field(ge=1)] | Literal["never"] = 3  # R9.2
    short_speech_if_alive_le: int = Field(4, ge=0)  # R9.2
    # aurora ⚠: 2 warnings lose the vote for the rest of the game
    lose_vote_at: Annotated[int, Field(ge=1)] | Literal["never"] = "never"
    removal_at: int = Field(4, ge=1)  # R9.3
    cancel_vote_on_removal: bool = True  # R9.5 / P32
    forbidden_content: Literal["off", "foul", "removal"] = "foul"  # R9.7 [ASSUMPTION]: LLM wording is noisy
    illegal_action_foul: bool = False  # R9.7: a defaulted decision may also cost a foul (never one made at night)


class Night(_Section):
    """P22–P30: night mechanics."""

    mafia_kill: Literal["unanimous_blind", "unanimous_point", "don_decides", "consensus_don_tiebreak"] = (
        "unanimous_blind"
    )
    black_channel_every_night: bool = False  # P23: a bounded black chat before the shot
    mafia_targets: Literal["any_living", "non_mafia"] = "any_living"  # P24
    don_check_from_night: Annotated[int, Field(ge=0)] | Literal["never"] = 1  # P25; 0 = also on Night 0 (aurora)
    sheriff_check_from_night: Annotated[int, Field(ge=0)] | Literal["never"] = 1  # P26; 0 = also on Night 0 (aurora)
    sheriff_answer: Literal["colour", "is_don", "is_mafia"] = "colour"  # P26 (classic ⚠ is_don)
    maniac_reads_black: bool = False  # club: the maniac reads red; edge: "not mafia"
    sheriff_can_shoot: bool = False  # club: check OR shoot each night
    # §5.6 ⚠: the seed sets no limit
    sheriff_max_shots: Annotated[int, Field(ge=0)] | Literal["unlimited"] = "unlimited"
    shot_checker_still_checks: bool = True  # R8.5 ⚠: a don/sheriff shot tonight still checks
    maniac_kills: bool = True  # P29 (only matters when a maniac is dealt)
    doctor: Literal["none", "sees_victims", "blind_heal"] = "none"  # P27
    heal_stops_all_attackers: bool = True  # §5.5 / §3.2 ⚠: one save covers two attackers on the same target
    doctor_sees_attackers: bool = False  # §5.5 ⚠: the club doctor sees who is on the stretchers, not who put them
    doctor_transfer_order: Literal["host_order", "ascending_seat"] = "host_order"  # §5.5 ⚠ with three victims
    doctor_once_per_player: bool = True  # club: each player saved at most once per game
    doctor_self_heal_max: Annotated[int, Field(ge=0)] | Literal["unlimited"] = 1  # edge: self once per game
    doctor_no_repeat_target: bool = True  # edge: never the same player two nights running
    lover_self_visit: bool = False  # P28 ⚠
    lover_repeat_visit: bool = True  # P28 ⚠
    lover_voids_mafia_kill: bool = True  # P28
    morning: Literal["killed_or_missed", "killed_or_nobody", "deaths_or_everyone_woke", "deaths_plus_lover_miss"] = (
        "killed_or_missed"  # P30
    )
    miss_announced_at_night: bool = False  # club: «мафия не договорилась» at once


class BestMove(_Section):
    """P21, R8.7."""

    enabled: bool = True
    seats: int = Field(3, ge=1, le=5)
    void_if_day1_left_at_least: int = Field(2, ge=1)


class Win(_Section):
    """P34–P38, R10.*."""

    town: Literal["no_black", "no_black_no_maniac"] = "no_black"
    mafia: Literal["black_ge_red", "mafia_ge_all_others"] = "black_ge_red"
    maniac: Literal["none", "alive_and_at_most_one_other"] = "none"
    draw_after_idle_rounds: int = Field(3, ge=1)  # R10.4 ⚠ (engine safety)
    draw_if_everyone_dead: bool = True  # P37 edge
    game_end_last_word: bool = True  # R7.4 / P38


class Probes(_Section):
    """Research belief probes (not a club rule): each living seat privately rates every other living seat."""

    daily: bool = False  # at the end of every day; never changes the game


class RuleSet(_Section):
    """The whole rules of one game. Frozen: a game never changes its rules."""

    name: str = "custom"
    description: str = ""
    players: int = Field(10, ge=3, le=20)  # P01
    roles: dict[Role, int] = {Role.CIVILIAN: 6, Role.SHERIFF: 1, Role.MAFIA: 2, Role.DON: 1}  # P02
    maniac_side: Literal["independent", "mafia_ally", "chosen_at_night0"] = "independent"  # P03
    reveal_on_elimination: Literal["none", "card"] = "none"  # P04
    silent_night_exit: list[Literal["sheriff", "black", "maniac_if_ally"]] = []  # P04 club
    day1: Literal["normal", "intro_only"] = "normal"  # P06
    night0: Night0 = Night0()
    opener: Opener = Opener()
    speech: Speech = Speech()
    nominations: Nominations = Nominations()
    voting: Voting = Voting()
    ties: Ties = Ties()
    fouls: Fouls = Fouls()
    night: Night = Night()
    best_move: BestMove = BestMove()
    win: Win = Win()
    probes: Probes = Probes()
    forbidden_words: dict[str, list[str]] = {
        "en": ["i swear", "swear to god", "i promise on", "i bet", "by god", "honest to god"],
        "ru": ["клянусь", "честное слово", "богом", "ей-богу", "спорим"],
    }  # P33

    @model_validator(mode="after")
    def _consistent(self) -> RuleSet:
        total = sum(self.roles.values())
        if total != self.players:
            raise ValueError(f"roles add up to {total} but players is {self.players}")
        if any(n < 0 for n in self.roles.values()):
            raise ValueError("roles: counts must be zero or more")
        if self.roles.get(Role.DON, 0) > 1 or self.roles.get(Role.SHERIFF, 0) > 1:
            raise ValueError("roles: at most one don and one sheriff")
        for single in (Role.DOCTOR, Role.LOVER, Role.MANIAC):
            if self.roles.get(single, 0) > 1:
                raise ValueError(f"roles: at most one {single.value}")
        black = self.roles.get(Role.MAFIA, 0) + self.roles.get(Role.DON, 0)
        if black < 1:
            raise ValueError("roles: at least one mafia or don is needed")
        if self.roles.get(Role.DOCTOR, 0) and self.night.doctor == "none":
            raise ValueError("night.doctor: a doctor is dealt, so choose 'sees_victims' or 'blind_heal'")
        if self.opener.day1 > self.players:
            raise ValueError(f"opener.day1: must be a seat from 1 to {self.players}")
        return self

    def count(self, role: Role) -> int:
        return self.roles.get(role, 0)


class RulesError(ValueError):
    """A rules file or override that does not validate; the message names each bad field."""


def _fields_at(loc: tuple[int | str, ...]) -> list[str]:
    """The field names allowed at `loc` (the path of an unknown field), for a typo's hint."""
    model: type[BaseModel] = RuleSet
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def _deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _preset_data(name: str) -> dict[str, Any]:
    if name not in PRESETS:
        raise RulesError(f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
    text = resources.files("arena.engine").joinpath(f"presets/{name}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _read_file(path: Path) -> dict[str, Any]:
    from arena.safe_read import UnsafeFile, load_toml, load_yaml, read_text

    try:  # a hostile file (huge, binary, nested, an alias bomb) is one clear message
        text = read_text(path)
    except UnsafeFile as exc:
        raise RulesError(f"cannot read rules file {path}: {exc}") from None
    try:
        data: Any = load_toml(text) if path.suffix == ".toml" else load_yaml(text)
    except UnsafeFile as exc:
        raise RulesError(f"rules file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise RulesError(f"rules file {path} must hold a table of parameters")
    return data


def parse_override(text: str) -> dict[str, Any]:
    """Turn `voting.protocol=ballot` into a nested mapping; the value is read as YAML (numbers, booleans, lists)."""
    if "=" not in text:
        raise RulesError(f"override {text!r} must look like section.field=value")
    from arena.safe_read import UnsafeFile, load_yaml

    key, raw = text.split("=", 1)
    try:  # the value is user input: invalid YAML, tags, huge numbers and deep nesting are one clear message
        value: Any = load_yaml(raw) if raw.strip() else ""
    except UnsafeFile as exc:
        raise RulesError(f"override {key.strip()!r}: {' '.join(str(exc).split())}") from None
    out: dict[str, Any] = {}
    cursor = out
    parts = key.strip().split(".")
    for part in parts[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[parts[-1]] = value
    return out


def load_rules(
    preset: str | None = None,
    path: str | Path | None = None,
    overrides: Mapping[str, Any] | list[str] | None = None,
) -> RuleSet:
    """Build a RuleSet from a preset, a file (which may name a `base` preset) and overrides, in that order."""
    data: dict[str, Any] = {}
    source = f"preset {preset or 'fiim'}"
    if path is not None:
        path = Path(path)
        file_data = _read_file(path)
        base = file_data.pop("base", None) or preset
        if base is not None and not isinstance(base, str):
            raise RulesError(f"invalid rules in {path}:\n  base: must be a preset name ({', '.join(PRESETS)})")
        data = _deep_merge(_preset_data(base) if base else {}, file_data)
        source = str(path)
    else:
        data = _preset_data(preset or "fiim")
    if overrides:
        items = [parse_override(o) for o in overrides] if isinstance(overrides, list) else [dict(overrides)]
        for item in items:
            data = _deep_merge(data, item)
        source += " with overrides"
    try:
        return RuleSet.model_validate(data)
    except ValidationError as exc:
        from arena.safe_read import field_errors

        raise RulesError(field_errors(exc, f"invalid rules in {source}:", _fields_at)) from None
