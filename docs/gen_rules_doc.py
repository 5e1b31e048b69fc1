"""Generate the top part of docs/rules.md from the RuleSet models in arena/engine/ruleset.py and the preset files.

    python docs/gen_rules_doc.py           # rewrite the generated part of docs/rules.md
    python docs/gen_rules_doc.py --check   # exit 1 if that part is out of date or shows a raw Python type

docs/rules.md has two parts. Everything above the END_MARK line is generated here: the presets, the parameter
reference, the per-preset values, the error messages and the custom-file examples, all produced by running the real
code, so they cannot drift from it. Everything below the mark is the hand-written rules reference (every rule id R…,
P…, E… and § with its source document); this script keeps it as it is.

What the code cannot say (what a field means and which rule it implements) lives in FIELD_DOCS below. A field with
no entry there (one added since) is still listed, with its pydantic `description` if it has one; an entry that names
a field that no longer exists stops the script. Types are written in words (`integer ≥ 0 or `unlimited``); a type
the script cannot word stops it, and `--check` also fails on any raw type text (`typing.`, `FieldInfo`, `<class`).
"""

from __future__ import annotations

import argparse
import enum
import sys
import tempfile
import types
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from arena.engine.roles import Role
from arena.engine.ruleset import PRESETS, RulesError, RuleSet, load_rules

OUT = Path(__file__).with_name("rules.md")
END_MARK = "<!-- End of the generated part. Below: the hand-written rules reference, kept by the generator. -->"
RAW_TYPE_TEXT = ("typing.", "FieldInfo", "<class ", "annotation=", "NoneType")

# How the CLI takes rules. Only `--rule` is fixed by the design; keep these in step with docs/cli.md.
CLI_PRESET = "arena play --preset club"
CLI_FILE = "arena play --rules my_rules.toml"
CLI_OVERRIDE = "arena play --rule voting.protocol=ballot --rule speech.regular_s=45"

# dotted field -> (rule reference, meaning). The references are defined in the rules reference (below END_MARK).
FIELD_DOCS: dict[str, tuple[str, str]] = {
    "name": ("–", "Name of the rule set, recorded in the transcript header. Each preset sets its own."),
    "description": ("–", "One line for humans."),
    "players": ("P01", "Number of seats, 1..N clockwise. Must equal the sum of `roles`."),
    "roles": (
        "P02, R1.1",
        "Cards dealt, role → count. `sheriff` is also the commissar of classic and edge. Counts add up to "
        "`players`; at most one don, sheriff, doctor, lover and maniac; at least one mafia or don; a dealt "
        "doctor needs `night.doctor` other than `none`.",
    ),
    "maniac_side": (
        "P03, §5.3 ⚠",
        "Side of a dealt maniac: `independent`, `mafia_ally` (counts as black for the win checks), or "
        "`chosen_at_night0` (the maniac picks one of the two in private on Night 0; the mafia is never told).",
    ),
    "reveal_on_elimination": (
        "P04, R1.2",
        "`none`: closed cards, no role is ever revealed. `card`: a leaving player's card is shown, day or night.",
    ),
    "silent_night_exit": (
        "P04, P20",
        "Who leaves with no last word when killed at night: `sheriff`, `black`, `maniac_if_ally` (club).",
    ),
    "day1": (
        "P06",
        "`normal`, or `intro_only`: one round of `speech.intro_s` speeches from seat 1, no nominations and no "
        "vote, then Night 1 (club).",
    ),
    "night0.black_meeting": ("P05, R2.2", "The black players meet on Night 0 and learn each other's seats."),
    "night0.black_meeting_rounds": (
        "P05, R2.2",
        "Rounds of the bounded black-only message exchange on Night 0 (don first, then seat order). "
        "0 = they meet in silence.",
    ),
    "night0.message_s": (
        "P05, R2.2",
        "Length of each black message in the Night-0 meeting, in seconds (the meeting lasts a minute).",
    ),
    "night0.don_sets_order": ("P05, R2.2", "The don names the kill order (договорка) for the next nights."),
    "night0.kill_order_length": ("P05, R2.2", "How many targets that kill order names."),
    "night0.wake_to_be_seen": (
        "P05, R2.3 ⚠",
        "Roles the host wakes on Night 0 only to see them. Nothing is exchanged; recorded as a no-op.",
    ),
    "opener.day1": ("P08, R3.3", "Seat that opens Day 1."),
    "opener.rotate": (
        "P08, R3.3",
        "How the opener moves: Day k opens with the first living seat after Day k−1's opener.",
    ),
    "speech.words_per_minute": (
        "R3.4 [ASSUMPTION]",
        "Turns the seconds below into a word budget for text seats (60 s ≈ 150 words).",
    ),
    "speech.regular_s": ("P09, R3.4", "A regular day speech."),
    "speech.intro_s": ("P06", "An intro speech on an `intro_only` Day 1."),
    "speech.extra_s": ("P09", "Extra word after the round for players who raised a hand (club). 0 = none."),
    "speech.tie_s": ("P14, R6.1", "Popil speech of a tied player, or the justification speech (club, edge)."),
    "speech.last_word_voted_s": ("P19, R7.1", "Last word of a player voted or lifted out. 0 = none."),
    "speech.last_word_night_s": ("P20, R7.2", "Last word of a night victim at the start of the next day. 0 = none."),
    "speech.nominate_only_s": ("R4.6", "The short, nominate-only turn of a player whose speech is forfeited."),
    "speech.short_speech_s": (
        "R9.2",
        "The speech a player who reached `fouls.lose_speech_at` gets instead, when "
        "`fouls.short_speech_if_alive_le` or fewer players are alive.",
    ),
    "speech.overlong": (
        "R9.7 [ASSUMPTION], §5.11",
        "Text over the budget is cut off (`truncate`), or cut off and fouled (`truncate_and_foul`).",
    ),
    "speech.chars_per_word": (
        "R3.4 [ASSUMPTION]",
        "Every text's budget in characters: its word budget times this. A speech or black message over either "
        "limit is cut (logged as `speech_truncated`, seen by whoever sees the text), so a single word of "
        "10,000 letters cannot pass a word limit. A human's line is read with the same cap (`Request.max_chars`).",
    ),
    "speech.reasoning_words": (
        "–",
        "A seat's private reasoning, in words (and `chars_per_word` characters per word); longer reasoning is "
        "cut before it is stored in the transcript. Nobody else sees it, so no event is made.",
    ),
    "nominations.enabled": (
        "P10, R4.1",
        "Players nominate during their own speech (one accepted nomination each per day, no withdrawal, an "
        "already-nominated seat is refused). `false`: the vote runs over all living players (club, edge).",
    ),
    "nominations.self_allowed": ("R4.3 ⚠, §5.2", "A player may nominate himself."),
    "nominations.day1_allowed": ("P06, P39", "Nominations are accepted on Day 1."),
    "voting.protocol": (
        "R5.10, §5.12",
        "`per_nominee`: nominee by nominee, each voter answers yes/no and sees the running counts. "
        "`ballot`: one pick per voter, made at once. See [Voting protocols](#voting-protocols).",
    ),
    "voting.mandatory": ("P11, R5.5", "Every living player must vote. `false` lets players abstain (aurora)."),
    "voting.default": (
        "P11, R5.7",
        "Where the vote of a player who has not voted goes: `last_candidate` (the last nominee called) or "
        "`none` (nowhere).",
    ),
    "voting.self_vote_allowed": (
        "§5.2 ⚠",
        "A voter may vote for himself. Off: he is never asked about, nor defaulted to, himself (he may abstain).",
    ),
    "voting.single_nominee_day1": (
        "P12, R5.3",
        "Exactly one nominee on Day 1: `no_vote` (nobody leaves), `eliminated` (he leaves without a vote), or "
        "`threshold` (he leaves only with votes from more than half of the living players).",
    ),
    "voting.single_nominee_later": ("P12, R5.4", "The same choice for Day 2 and later."),
    "voting.majority": (
        "P13, §5.8 ⚠",
        "Who leaves when two or more are voted on: `plurality` (strictly the most votes) or "
        "`more_than_half_of_votes_cast`.",
    ),
    "ties.max_tied_for_speeches": (
        "P15",
        "Largest tie that gets tie speeches and a re-vote; a larger tie means nobody leaves. `any` = no limit.",
    ),
    "ties.subset_retie": (
        "P17, R6.4",
        "The re-vote ties again among a strict subset: `new_popil` with that subset, or `nobody` leaves.",
    ),
    "ties.repeat": (
        "P16, R6.5",
        "The re-vote ties again among the same players: `lift_vote` (all leave if yes > living/2; exactly half "
        "fails) or `nobody` leaves.",
    ),
    "ties.lift_forbidden_all_living_tied": ("R6.6a", "No lift vote when every living player is tied; night falls."),
    "ties.lift_forbidden_nine_living_three_tied": ("R6.6b ⚠", "No lift vote with 9 living and 3 tied; night falls."),
    "ties.lift_forbidden_four_living_two_tied": (
        "R6.6c",
        "No lift vote with 4 living and 2 tied. `false` (fiim) holds it as usual, needing 3 yes.",
    ),
    "ties.leader_justification": (
        "P18, §5.4 ⚠",
        "Club acquittal: a sole leader gives a justification speech, then a yes/no re-vote on him; fewer votes "
        "than the first time acquits him.",
    ),
    "ties.one_justification_per_game": (
        "P18",
        "A player justifies at most once per game; as sole leader again, he leaves at once.",
    ),
    "fouls.lose_speech_at": (
        "P31, R9.2",
        "Foul count that forfeits the player's nearest regular speech (once). `never` = no such step.",
    ),
    "fouls.short_speech_if_alive_le": (
        "P31, R9.2",
        "With this many living players or fewer, the forfeit becomes a `speech.short_speech_s` speech.",
    ),
    "fouls.lose_vote_at": (
        "P31, §5.8 ⚠",
        "Foul (warning) count that takes away the player's vote for the rest of the game. `never` = no such step.",
    ),
    "fouls.removal_at": ("P31, R9.3", "Foul count that removes the player at once, with no last word."),
    "fouls.cancel_vote_on_removal": (
        "P32, R9.5",
        "A removal before the day's vote result is determined cancels that vote; a removal after it cancels the "
        "next day's, unless the removed player is the one leaving (by that vote, or as the night's victim).",
    ),
    "fouls.forbidden_content": (
        "P33, R9.4, R9.7, §5.11",
        "What a phrase from `forbidden_words` in a speech costs: `off` (nothing), `foul`, or `removal`.",
    ),
    "fouls.illegal_action_foul": (
        "R9.7, §5.11",
        "An illegal or malformed decision, replaced by the rule's default action, also costs 1 foul; a decision made "
        "at night never does (a public foul would name a seat that acts at night).",
    ),
    "night.mafia_kill": (
        "P22, R8.2",
        "`unanimous_blind`: each black picks blind, a kill only if all picked the same player (fiim). "
        "`unanimous_point`: all point at once, eyes open; disagreement is a miss (club). `don_decides`: the "
        "don's pick, never a miss (aurora variant 2). `consensus_don_tiebreak`: the team agrees, and if it "
        "does not, the don's pick counts (edge ⚠).",
    ),
    "night.black_channel_every_night": ("P23", "A bounded black-only chat before the shot every night."),
    "night.mafia_targets": ("P24", "`any_living` (teammates too: a self-shot) or `non_mafia`."),
    "night.don_check_from_night": ("P25, R8.3", "First night of don checks; 0 = Night 0 too; `never` = none."),
    "night.sheriff_check_from_night": ("P26, R8.4", "First night of sheriff checks; 0 = Night 0 too; `never`."),
    "night.sheriff_answer": (
        "P26, R1.3, §5.7 ⚠",
        "`colour`: black for mafia and don, red otherwise. `is_don`: is this the don? `is_mafia`: mafia or don?",
    ),
    "night.maniac_reads_black": ("P26", "The maniac reads black (or mafia) to the sheriff's check."),
    "night.sheriff_can_shoot": ("P26, §5.6", "Each night the sheriff may shoot one player instead of checking."),
    "night.sheriff_max_shots": ("§5.6 ⚠", "Sheriff shots allowed per game."),
    "night.shot_checker_still_checks": ("R8.5 ⚠", "A don or sheriff shot this night still makes this night's check."),
    "night.maniac_kills": ("P29", "A dealt maniac kills one player each night."),
    "night.doctor": (
        "P27",
        "`none`; `sees_victims`: the doctor is shown the night's victims and saves one (club); "
        "`blind_heal`: he heals any player blind (edge).",
    ),
    "night.heal_stops_all_attackers": (
        "§5.5 ⚠, §3.1 step 6, §3.2 step 7",
        "One save cancels every attack on the saved player; off: a player attacked twice dies even if saved.",
    ),
    "night.doctor_sees_attackers": (
        "§5.5 ⚠",
        "The club doctor is told who put each victim on the stretchers (mafia, maniac, sheriff), not only who.",
    ),
    "night.doctor_transfer_order": (
        "§5.5 ⚠, §3.1 step 5",
        "Where an ineligible save passes: the next eligible victim in host order (mafia, maniac, sheriff) or by seat.",
    ),
    "night.doctor_once_per_player": (
        "P27, §5.5",
        "Each player, the doctor included, can be saved at most once per game (club).",
    ),
    "night.doctor_self_heal_max": ("P27", "Times per game the doctor may heal himself."),
    "night.doctor_no_repeat_target": ("P27", "The doctor never heals the same player two nights running (edge)."),
    "night.lover_self_visit": ("P28 ⚠, §5.9", "The lover may visit herself."),
    "night.lover_repeat_visit": ("P28 ⚠, §5.9", "The lover may visit the same player again."),
    "night.lover_voids_mafia_kill": (
        "P28",
        "A lover's visit to any mafia member, the don included, voids that night's mafia kill.",
    ),
    "night.morning": (
        "P30, R8.8",
        "Morning wording: `killed_or_missed` (fiim); `killed_or_nobody` (a miss is not told apart); "
        "`deaths_or_everyone_woke` (club); `deaths_plus_lover_miss` (each death, plus 'the mafia missed' only "
        "when the lover voided the kill; edge).",
    ),
    "night.miss_announced_at_night": ("P22, P30", "A mafia miss is announced at once, during the night (club)."),
    "best_move.enabled": ("P21, R8.7", "The Night-1 victim names suspected blacks. Scoring only, no game effect."),
    "best_move.seats": ("P21, R8.7", "Most seats the best move may name."),
    "best_move.void_if_day1_left_at_least": (
        "R8.7",
        "No best move if at least this many players left the table in the Day-1 vote.",
    ),
    "win.town": (
        "P34, R10.1",
        "`no_black`: town wins once no black is alive. `no_black_no_maniac`: once no black and no maniac is "
        "alive (an allied maniac counts as black).",
    ),
    "win.mafia": (
        "P35, R10.2",
        "`black_ge_red`: black alive ≥ red alive. `mafia_ge_all_others`: mafia alive ≥ everyone else alive, "
        "the maniac included (edge ⚠).",
    ),
    "win.maniac": (
        "P36",
        "`none`, or `alive_and_at_most_one_other`: an independent maniac wins when he is alive with at most "
        "one other player (checked before mafia parity).",
    ),
    "win.draw_after_idle_rounds": (
        "P37, R10.4 ⚠, §5.10",
        "Draw when this many nights in a row, and the days between them, pass with nobody leaving.",
    ),
    "win.draw_if_everyone_dead": ("P37", "Draw if every player dies at once."),
    "win.game_end_last_word": (
        "P38, R7.4",
        "A player whose elimination ends the game still gives his last word before the result.",
    ),
    "probes.daily": (
        "research",
        "Belief probes (not a club rule): at the end of every day each living seat privately gives, for every other "
        "living seat, its probability of being black. Probes never change the game; see docs/metrics.md.",
    ),
    "forbidden_words": (
        "P33, R9.4",
        "Phrases, per language and in lower case, that count as oaths or bets. What they cost is "
        "`fouls.forbidden_content`.",
    ),
}

# §2.1 parameters that have no field, and why.
UNMODELLED = {
    "P07": "first kill night: Night 1 in every preset, so it is fixed in the engine.",
    "P39": "Day-1 customs: table habits, not rules; only `nominations.day1_allowed` touches them.",
    "P40": "first-day vote variants: only the FIIM rules' `standard` is built (see `voting.single_nominee_day1`).",
}

# §5, item by item: (the open question, the fields that settle it; empty = fixed in the engine).
OPEN_QUESTIONS: list[tuple[str, str, list[str]]] = [
    (
        "5.1",
        "FIIM primary text not retrieved: R2.3, the don and sheriff woken on Night 0 to be seen",
        ["night0.wake_to_be_seen"],
    ),
    ("5.1", "R6.6b, no lift vote with 9 living and 3 tied", ["ties.lift_forbidden_nine_living_three_tied"]),
    ("5.1", "R8.5, a sheriff (or don) shot this night still checks", ["night.shot_checker_still_checks"]),
    ("5.1", "R10.4, draw after 3 idle rounds", ["win.draw_after_idle_rounds"]),
    ("5.2", "Self-nomination allowed", ["nominations.self_allowed"]),
    ("5.2", "Self-voting allowed", ["voting.self_vote_allowed"]),
    ("5.3", "The club rules: maniac side: chosen privately at Night 0, the mafia never told", ["maniac_side"]),
    (
        "5.3",
        "The club rules: independent maniac's win conditions, borrowed from edge",
        ["win.maniac", "win.town", "win.mafia"],
    ),
    (
        "5.4",
        "The club rules: re-vote after the justification is a yes/no vote on the leader",
        ["ties.leader_justification"],
    ),
    ("5.4", "The club rules: second tie between two players: nobody leaves", ["ties.repeat", "ties.subset_retie"]),
    ("5.4", "The club rules: last word after a vote: 30 s", ["speech.last_word_voted_s"]),
    (
        "5.5",
        "The club rules: doctor: one save covers two attackers on the same target",
        ["night.heal_stops_all_attackers"],
    ),
    (
        "5.5",
        "The club rules: doctor: with three victims the save passes to the first eligible one in host order",
        ["night.doctor_transfer_order"],
    ),
    (
        "5.5",
        "The club rules: doctor sees the victims, not who attacked them",
        ["night.doctor", "night.doctor_sees_attackers"],
    ),
    (
        "5.6",
        "The club rules: sheriff may shoot every night, with no limit",
        ["night.sheriff_can_shoot", "night.sheriff_max_shots"],
    ),
    ("5.7", 'The classic rules: commissar check read as "is this the don?"', ["night.sheriff_answer"]),
    ("5.8", "The Aurora club: «простое большинство»: plurality or more than half of votes cast", ["voting.majority"]),
    (
        "5.8",
        "The Aurora club: «лишение права голоса»: losing the vote (rest of the game) rather than the speech",
        ["fouls.lose_vote_at", "fouls.lose_speech_at"],
    ),
    (
        "5.8",
        "The Aurora club: ties not covered: fiim's tie rules used",
        ["ties.subset_retie", "ties.repeat", "ties.lift_forbidden_nine_living_three_tied"],
    ),
    ("5.8", 'The Aurora club: mafia goal "remove all reds" implemented as parity', ["win.mafia"]),
    ("5.9", "«На грани реальности»: player count", ["players", "roles"]),
    ("5.9", "«На грани реальности»: ties of 3 or more, and second ties", ["ties.max_tied_for_speeches", "ties.repeat"]),
    (
        "5.9",
        "«На грани реальности»: lover self-visits and repeat visits",
        ["night.lover_self_visit", "night.lover_repeat_visit"],
    ),
    ("5.9", "«На грани реальности»: whether a heal covers the maniac's attack (no field: it does)", []),
    (
        "5.9",
        "«На грани реальности»: commissar's answer on the maniac",
        ["night.sheriff_answer", "night.maniac_reads_black"],
    ),
    ("5.9", "«На грани реальности»: length of last words", ["speech.last_word_voted_s", "speech.last_word_night_s"]),
    (
        "5.9",
        "«На грани реальности»: win conditions and their order (maniac first)",
        ["win.maniac", "win.mafia", "win.town"],
    ),
    (
        "5.10",
        "No draw rule in any source document: `draw_after_idle_rounds = 3` everywhere as an engine safety",
        ["win.draw_after_idle_rounds"],
    ),
    (
        "5.11",
        "Foul mapping for LLM seats: forbidden words cost a foul or a removal",
        ["fouls.forbidden_content", "fouls.illegal_action_foul", "speech.overlong", "forbidden_words"],
    ),
    ("5.12", "Sequential (per-nominee) versus simultaneous (ballot) voting", ["voting.protocol"]),
    ("5.13", "R9.5b: the night's victim removed between the shot and the morning cancels no vote", []),
]

EXAMPLE_TOML = """\
# my_rules.toml: FIIM with a simultaneous ballot and shorter speeches
base = "fiim"
name = "fiim-fast"
description = "FIIM, ballot voting, 45 s speeches"

[speech]
regular_s = 45

[voting]
protocol = "ballot"
"""

EXAMPLE_YAML = """\
# my_rules.yaml: the club rules without the maniac
base: club
name: club-no-maniac
roles: {civilian: 5, maniac: 0}   # merged into club's roles key by key
win: {town: no_black, mafia: black_ge_red, maniac: none}
"""

EXAMPLES = [  # (file name, text, code-block language, its base preset)
    ("my_rules.toml", EXAMPLE_TOML, "toml", "fiim"),
    ("my_rules.yaml", EXAMPLE_YAML, "yaml", "club"),
]

BAD_OVERRIDES: list[list[str]] = [
    ["voting.protocol=secret"],
    ["voting.protocl=ballot"],
    ["players=12"],
]


# ---------------------------------------------------------------- model walking


def iter_fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Yield (dotted name, annotation, field info) for every leaf field; sections are walked into."""
    for name, info in model.model_fields.items():
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from iter_fields(ann, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", ann, info


def sections() -> list[tuple[str, type[BaseModel]]]:
    out: list[tuple[str, type[BaseModel]]] = []
    for name, info in RuleSet.model_fields.items():
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out.append((name, ann))
    return out


def lookup(data: dict[str, Any], dotted: str) -> Any:
    value: Any = data
    for part in dotted.split("."):
        value = value[part]
    return value


# ---------------------------------------------------------------- formatting


def code(text: object) -> str:
    return f"`{text}`"


def _constraints(metadata: list[Any]) -> list[Any]:
    """The constraint objects (Ge, Le, Gt, Lt, …), also from inside a `Field(...)` found in `Annotated`."""
    out: list[Any] = []
    for m in metadata:
        out += m.metadata if isinstance(m, FieldInfo) else [m]
    return out


def _bounds(kind: str, metadata: list[Any]) -> str:
    items = _constraints(metadata)
    lo = next((("≥", m.ge) for m in items if getattr(m, "ge", None) is not None), None)
    lo = lo or next((("> ", m.gt) for m in items if getattr(m, "gt", None) is not None), None)
    hi = next((("≤", m.le) for m in items if getattr(m, "le", None) is not None), None)
    hi = hi or next((("< ", m.lt) for m in items if getattr(m, "lt", None) is not None), None)
    if lo is not None and hi is not None and lo[0] == "≥" and hi[0] == "≤":
        return f"{kind} {lo[1]}–{hi[1]}"
    parts = [f"{bound[0].strip()} {bound[1]}" for bound in (lo, hi) if bound is not None]
    return f"{kind} {' and '.join(parts)}" if parts else kind


def describe_type(ann: Any, metadata: list[Any], field: str = "?") -> str:
    """A field's type in words, e.g. `integer ≥ 0 or `unlimited``; stops the script on a type it cannot word."""
    origin = get_origin(ann)
    args = get_args(ann)
    if origin is Annotated:
        return describe_type(args[0], [*ann.__metadata__, *metadata], field)
    if origin is Literal:
        return code(args[0]) if len(args) == 1 else "one of " + ", ".join(code(a) for a in args)
    if origin in (Union, types.UnionType):
        parts = [describe_type(a, metadata, field) for a in args if a is not type(None)]
        text = " or ".join(parts)
        return f"{text} or none" if type(None) in args else text
    if origin is list:
        (item,) = args
        if get_origin(item) is Literal:
            return "list of " + ", ".join(code(a) for a in get_args(item))
        if item is Role:
            return "list of roles"
        return f"list of {describe_type(item, [], field)}"
    if origin is dict:
        key, value = args
        if key is Role:
            return "table: role → count"
        if key is str and get_origin(value) is list:
            return "table: language → list of phrases"
        return "table"
    if ann is bool:
        return "boolean"
    if ann is str:
        return "string"
    if ann is int:
        return _bounds("integer", metadata)
    if ann is float:
        return _bounds("number", metadata)
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return "one of " + ", ".join(code(m.value) for m in ann)
    raise SystemExit(f"gen_rules_doc: no words for the type of {field} ({ann!r}); teach describe_type about it")


def fmt_value(value: Any, dotted: str = "") -> str:
    """A JSON value (from model_dump(mode='json')) as it reads in a table cell."""
    if isinstance(value, bool):
        return code("true" if value else "false")
    if isinstance(value, (int, float)):
        return code(value)
    if isinstance(value, str):
        return code(value) if value else "(empty)"
    if isinstance(value, list):
        return code("[" + ", ".join(str(v) for v in value) + "]")
    if isinstance(value, dict):
        if dotted == "roles":
            return ", ".join(f"{k} {v}" for k, v in value.items())
        if all(isinstance(v, list) for v in value.values()):
            return ", ".join(f"{k}: {len(v)} phrases" for k, v in value.items())
        return code(value)
    return code(value)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return out


def rules_error(call: Callable[[], RuleSet]) -> str:
    try:
        call()
    except RulesError as exc:
        return str(exc)
    raise SystemExit("gen_rules_doc: an example that should fail validated")


def diff_lines(base: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for dotted, _, _ in iter_fields(RuleSet):
        a, b = lookup(base, dotted), lookup(new, dotted)
        if a != b and dotted != "description":
            lines.append(f"- `{dotted}`: {fmt_value(a, dotted)} → {fmt_value(b, dotted)}")
    return lines


# ---------------------------------------------------------------- checks


def field_doc(dotted: str, info: FieldInfo) -> tuple[str, str]:
    """(rule reference, meaning) of a field: its FIELD_DOCS entry, else its pydantic description (a new field)."""
    if dotted in FIELD_DOCS:
        return FIELD_DOCS[dotted]
    text = info.description or "(not described yet: add it to FIELD_DOCS in docs/gen_rules_doc.py)"
    return "–", " ".join(text.split())


def raw_type_problems(text: str) -> list[str]:
    """Lines of the page that show raw Python type text instead of words."""
    return [line[:120] for line in text.splitlines() if any(raw in line for raw in RAW_TYPE_TEXT)]


def hand_written(current: str) -> str:
    """The hand-written rules reference: everything after END_MARK in the current page (empty if there is none)."""
    _, mark, rest = current.partition(END_MARK)
    return rest if mark else "\n"


def check_docs() -> None:
    fields = {dotted for dotted, _, _ in iter_fields(RuleSet)}
    missing = sorted(fields - FIELD_DOCS.keys())
    stale = sorted(FIELD_DOCS.keys() - fields)
    unknown = sorted({f for _, _, fs in OPEN_QUESTIONS for f in fs} - fields)
    problems = []
    if missing:  # listed anyway (see field_doc); say so, so that someone writes the entries
        print(f"gen_rules_doc: note: no FIELD_DOCS entry for {', '.join(missing)}", file=sys.stderr)
    if stale:
        problems.append(f"FIELD_DOCS entries for fields that no longer exist: {', '.join(stale)}")
    if unknown:
        problems.append(f"OPEN_QUESTIONS names unknown fields: {', '.join(unknown)}")
    referenced = " ".join(ref for ref, _ in FIELD_DOCS.values())
    for n in range(1, 41):
        p = f"P{n:02d}"
        if p not in referenced and p not in UNMODELLED:
            problems.append(f"{p} is neither referenced in FIELD_DOCS nor listed in UNMODELLED")
    if problems:
        raise SystemExit("gen_rules_doc:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------- the page


def render() -> str:
    check_docs()
    presets = {p: load_rules(p).model_dump(mode="json") for p in PRESETS}
    defaults = RuleSet().model_dump(mode="json")
    fiim = presets["fiim"]
    out: list[str] = []
    add = out.append

    add("# Rules: presets, parameters, custom rules files and the rules reference")
    add("")
    add("<!-- The part down to the comment 'End of the generated part' is generated by docs/gen_rules_doc.py from")
    add("     arena/engine/ruleset.py and arena/engine/presets/*.toml. Do not edit it by hand: edit the models, the")
    add("     presets or the script, then run `python docs/gen_rules_doc.py` (`--check` tells whether it is stale).")
    add("     The rules reference after that comment is written by hand; the script keeps it as it is. -->")
    add("")
    add(
        "A game's rules are one `RuleSet` (`arena/engine/ruleset.py`): a frozen, validated pydantic model. "
        "It is built once, from a preset, a rules file and command-line overrides, in that order. The game "
        "never changes it, and the transcript header records all of it. Each field implements a parameter "
        "(P01–P40) or a rule (R1.1–R10.5) of the [rules reference](#the-rules-reference) at the end of this "
        "page, which defines every rule id used in the code and the docs and names the document each rule comes "
        "from. Points marked ⚠ are uncertain readings of those documents; they are collected under "
        "[Open questions](#open-questions)."
    )
    add("")

    # ---- presets
    add("## Presets")
    add("")
    rows = []
    for p in PRESETS:
        d = presets[p]
        rows.append(
            [
                code(p) + (" (default)" if p == "fiim" else ""),
                d["description"],
                str(d["players"]),
                fmt_value(d["roles"], "roles"),
            ]
        )
    out += table(["Preset", "What it is", "Players", "Roles"], rows)
    add("")
    add(
        "Each preset is a TOML file in `arena/engine/presets/`, read on top of the model defaults. The full "
        "list of values is under [Values per preset](#values-per-preset)."
    )
    add("")
    add("```bash")
    add("arena play                          # fiim")
    add(CLI_PRESET)
    add("```")
    add("")

    # ---- custom files
    add("## Custom rules files")
    add("")
    add(
        "A rules file is TOML (`.toml`) or YAML (any other suffix, e.g. `.yaml`) holding the same keys and "
        "sections as the parameter reference below. Give only what you change:"
    )
    add("")
    add("- An optional top-level `base` key names the preset to start from (`" + "`, `".join(PRESETS) + "`).")
    add(
        "- Without `base`, the file starts from the preset passed alongside it (`load_rules(preset, path)`), "
        "and with no preset at all from the model defaults (the *Default* column below)."
    )
    add(
        "- Tables merge key by key into the base, lists and plain values replace it. So `roles` in a file only "
        "changes the roles it names: set a role to `0` to drop it."
    )
    add("- The whole result is validated: unknown keys are errors, not ignored.")
    add("")
    base_diff = [d for d in diff_lines(defaults, fiim) if not d.startswith("- `name`")]
    if base_diff:
        add("The model defaults equal `fiim` except:")
        add("")
        out += base_diff
        add("")
    with tempfile.TemporaryDirectory() as tmp:
        for fname, text, lang, base_name in EXAMPLES:
            path = Path(tmp) / fname
            path.write_text(text, encoding="utf-8")
            rules = load_rules(path=path).model_dump(mode="json")
            add("```" + lang)
            add(text.rstrip("\n"))
            add("```")
            add("")
            add(f"`{fname}` differs from `{base_name}` in:")
            add("")
            out += diff_lines(presets[base_name], rules)
            add("")
    add("Play with it:")
    add("")
    add("```bash")
    add(CLI_FILE)
    add("```")
    add("")

    # ---- overrides
    add("## Overrides on the command line")
    add("")
    add(
        "`--rule section.field=value` changes one field after the preset and the file; repeat it for more. "
        "The value is read as YAML, so `3`, `true`, `never` and `[don, sheriff]` all mean what they look like."
    )
    add("")
    add("```bash")
    add(CLI_OVERRIDE)
    add("arena play --preset classic --rule ties.lift_forbidden_nine_living_three_tied=true")
    add("```")
    add("")
    add("In Python the same is `load_rules(preset, path, overrides)`:")
    add("")
    add("```python")
    add("from arena.engine.ruleset import load_rules")
    add("")
    add('rules = load_rules("fiim", overrides=["voting.protocol=ballot"])')
    add("```")
    add("")

    # ---- errors
    add("## Errors")
    add("")
    add(
        "A preset, file or override that does not validate is refused before the game starts. `load_rules` "
        "raises `RulesError` (a `ValueError`) with one line per bad field: its dotted name, what was wrong, the "
        "allowed values where there is a fixed set, and the value given. These are the real messages, produced "
        "by running `load_rules` when this page was generated:"
    )
    add("")
    for overrides in BAD_OVERRIDES:
        args = ", ".join(f'"{o}"' for o in overrides)
        add(f'`--rule {" --rule ".join(overrides)}`, i.e. `load_rules("fiim", overrides=[{args}])`:')
        add("")
        add("```text")
        add(rules_error(partial(load_rules, "fiim", overrides=overrides)))
        add("```")
        add("")
    add('An unknown preset, `load_rules("fimm")`:')
    add("")
    add("```text")
    add(rules_error(lambda: load_rules("fimm")))
    add("```")
    add("")

    # ---- voting protocols
    add("## Voting protocols")
    add("")
    add(
        "`voting.protocol` chooses how the day vote is collected (R5.10, §5.12). Every other voting "
        "rule (mandatory votes, the default vote, ties, the lift vote) applies to both."
    )
    add("")
    add(
        "- **`per_nominee`** (default, R5.10): the live procedure. The judge calls the nominees one by one in "
        "nomination order, and for each one every living player who has not yet voted answers yes or no, seeing "
        "the running counts. After the last nominee, the players still unvoted are handled by `voting.default` "
        "(under `last_candidate` their votes go to the last nominee, R5.7). Earlier counts are visible and the "
        "default lands on the last nominee, which is what shapes real play."
    )
    add(
        "- **`ballot`**: each voter makes one pick among the candidates at the same time, without seeing anyone "
        "else's. Faster for LLM seats (one call per voter instead of one per nominee), but it changes the game: "
        "there are no running counts and no last-nominee dynamics. §5.12 lists this as an open choice."
    )
    add("")

    # ---- reference
    add("## Parameter reference")
    add("")
    add(
        "Top-level fields first, then one table per section. *Default* is the model default, used for anything a "
        "rules file without `base` leaves out; the presets' own values are under "
        "[Values per preset](#values-per-preset)."
    )
    add("")
    add("### Top level")
    add("")
    rows = []
    for dotted, ann, info in iter_fields(RuleSet):
        if "." in dotted:
            continue
        ref, meaning = field_doc(dotted, info)
        rows.append(
            [code(dotted), describe_type(ann, info.metadata, dotted), fmt_value(defaults[dotted], dotted), meaning, ref]
        )
    out += table(["Field", "Type / allowed", "Default", "Meaning", "Rule"], rows)
    add("")
    add("Default `forbidden_words`:")
    add("")
    for lang, words in defaults["forbidden_words"].items():
        add(f"- `{lang}`: " + ", ".join(f"«{w}»" for w in words))
    add("")
    for name, model in sections():
        add(f"### `[{name}]`")
        add("")
        doc = " ".join((model.__doc__ or "").split())
        if doc:
            add(doc)
            add("")
        rows = []
        for dotted, ann, info in iter_fields(model, f"{name}."):
            ref, meaning = field_doc(dotted, info)
            rows.append(
                [
                    code(dotted.split(".", 1)[1]),
                    describe_type(ann, info.metadata, dotted),
                    fmt_value(lookup(defaults, dotted), dotted),
                    meaning,
                    ref,
                ]
            )
        out += table(["Field", "Type / allowed", "Default", "Meaning", "Rule"], rows)
        add("")

    # ---- per preset
    add("## Values per preset")
    add("")
    add("Loaded with `load_rules(preset)`. **Bold** marks a value that differs from `fiim`.")
    add("")
    rows = []
    for dotted, _, _ in iter_fields(RuleSet):
        if dotted == "description":
            continue
        cells = [code(dotted)]
        for p in PRESETS:
            value = lookup(presets[p], dotted)
            cell = fmt_value(value, dotted)
            if p != "fiim" and value != lookup(fiim, dotted):
                cell = f"**{cell}**"
            cells.append(cell)
        rows.append(cells)
    out += table(["Field", *PRESETS], rows)
    add("")

    # ---- open questions
    add("## Open questions")
    add("")
    add(
        "Every ⚠ point of §5 (in the rules reference below) and the field that decides it. A point with no field "
        "is fixed in the engine; changing it means changing code."
    )
    add("")
    rows = []
    for num, text, fields in OPEN_QUESTIONS:
        rows.append([f"§{num}", text, ", ".join(code(f) for f in fields) if fields else "–"])
    out += table(["§", "Point", "Field(s)"], rows)
    add("")
    add("§2.1 parameters with no field:")
    add("")
    for p, why in UNMODELLED.items():
        add(f"- {p}, {why}")
    add("")
    add(END_MARK)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date; write nothing")
    parser.add_argument("--out", type=Path, default=OUT, help=argparse.SUPPRESS)  # tests check a copy
    args = parser.parse_args(argv)
    out: Path = args.out
    current = out.read_text(encoding="utf-8") if out.exists() else ""
    generated = render()
    raw = raw_type_problems(generated)
    if args.check:  # the page as it is must not show raw types either, whatever wrote it
        raw += raw_type_problems(current.partition(END_MARK)[0])
    if raw:
        print(f"{out}: raw Python type text instead of words:", *raw, sep="\n  ", file=sys.stderr)
        return 1
    text = generated + hand_written(current)
    if args.check:
        if END_MARK not in current:
            print(f"{out} has no end mark of the generated part: run python docs/gen_rules_doc.py", file=sys.stderr)
            return 1
        if current != text:
            print(f"{out} is out of date: run python docs/gen_rules_doc.py", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
