"""One human-input model for every human seat (terminal and browser): a form built from the engine's `Request`.

Why it exists: a person must learn that an answer is illegal while still typing it, not after a whole speech, and the
terminal and the page must agree on what is legal. The form carries the request's legal options, word limit and
default, plus the character cap and the forbidden phrases; `nomination_problem`, `text_problem` and `decision_from`
check an answer locally and say why it is refused. The engine still validates every decision: the form only refuses
earlier, never accepts more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Decision, Kind, Request, RuleSet, SpeechKind
from arena.engine.text import lone_surrogate

DEFAULT_CHARS_PER_WORD = 12
MAX_NOMINATIONS = 1  # R4.1: one accepted nomination per player per day; a second would be ignored by the judge


class FormError(ValueError):
    """An answer the form refuses before it reaches the engine; the message says why."""


def chars_per_word(rules: RuleSet) -> int:
    """The rules' character allowance per word of a speech budget (older rule sets lack it: 12)."""
    for holder in (rules.speech, rules):
        value = getattr(holder, "chars_per_word", None)
        if isinstance(value, int) and value > 0:
            return value
    return DEFAULT_CHARS_PER_WORD


def forbidden_phrases(rules: RuleSet, lang: str) -> tuple[str, ...]:
    """The phrases that cost a foul (R9.7) in the seat's language, and English ones too when the game is Russian."""
    words = rules.forbidden_words
    if rules.fouls.forbidden_content == "off":
        return ()
    found = list(words.get(lang, []))
    for phrase in words.get("en", []):
        if phrase not in found:
            found.append(phrase)
    return tuple(found)


@dataclass(frozen=True)
class Form:
    """What a human seat may answer now, with every limit it must respect."""

    request: Request
    max_chars: int
    forbidden: tuple[str, ...] = ()
    already_nominated: tuple[int, ...] = ()  # seats on today's nomination list (from the seat's own view)
    notes: tuple[str, ...] = field(default=())
    lang: str = "en"
    rules: RuleSet | None = None  # for the one line on how a vote counts (`vote_rule`)

    @property
    def kind(self) -> Kind:
        return self.request.kind

    @property
    def seat(self) -> int:
        return self.request.seat

    @property
    def has_text(self) -> bool:
        return self.kind in (Kind.SPEECH, Kind.BLACK_MESSAGE)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        """The form as plain data for the browser (the request's own fields plus the limits), its words (the
        default, how a vote counts) in the page's language."""
        req = self.request
        lang = lang or self.lang
        return {
            "kind": req.kind.value,
            "speech": req.speech.value if req.speech else None,
            "options": list(req.options),
            "allow_none": req.allow_none,
            "max_words": req.max_words,
            "max_chars": self.max_chars if self.has_text else 0,
            "may_nominate": req.may_nominate,
            "nominate_options": [s for s in req.nominate_options if s not in self.already_nominated],
            "already_nominated": list(self.already_nominated),
            "may_request_extra": req.may_request_extra,
            "candidate": req.candidate,
            "subject": req.subject,
            "candidates": list(req.candidates),
            "max_targets": req.max_targets,
            "may_set_order": req.may_set_order,
            "actions": list(req.actions),
            "choices": list(req.choices),
            "forbidden": list(self.forbidden) if req.kind is Kind.SPEECH else [],
            "default": describe_default(req, lang),
            "rule": vote_rule(self.rules, req, lang) if self.rules is not None else "",
        }


def build_form(request: Request, rules: RuleSet, lang: str = "en", nominees: Sequence[int] = ()) -> Form:
    """The form for `request`; `nominees` is the seat's own view of today's nomination list."""
    words = request.max_words
    return Form(
        request=request,
        max_chars=request.max_chars or max(words, 1) * chars_per_word(rules),  # the engine's own cap when it says
        forbidden=forbidden_phrases(rules, lang),
        already_nominated=tuple(nominees),
        lang=lang,
        rules=rules,
    )


_DEFAULT_WORDS = {
    "en": {"silence": "silence", "yes": "vote yes", "no": "vote no", "nobody": "nobody", "nothing": "nothing"},
    "ru": {"silence": "молчание", "yes": "голос «за»", "no": "голос «против»", "nobody": "никто", "nothing": "ничего"},
}
SIDE_WORDS = {  # the maniac's sides and the sheriff's actions, as a Russian page names them
    "ru": {"independent": "сам за себя", "mafia_ally": "союзник мафии", "check": "проверка", "shoot": "выстрел"}
}


def describe_default(request: Request, lang: str = "en") -> str:
    """What happens if the seat gives no legal answer in time, in a few words of the page's language."""
    words = _DEFAULT_WORDS.get(lang, _DEFAULT_WORDS["en"])
    d = request.default
    if request.kind is Kind.SPEECH:
        return words["silence"]
    if d.vote is not None:
        return words["yes"] if d.vote else words["no"]
    if d.target is not None:
        return f"#{d.target}"
    if d.action and request.kind is Kind.CHOOSE_SIDE:
        return SIDE_WORDS.get(lang, {}).get(d.action, d.action)
    if d.targets:
        return ", ".join(f"#{s}" for s in d.targets)
    return words["nobody"] if request.kind not in (Kind.BLACK_MESSAGE, Kind.BEST_MOVE) else words["nothing"]


def _seat_words(seats: Sequence[int]) -> str:
    return ", ".join(f"#{s}" for s in seats)


def _seat_list_words(seats: Sequence[int], conjunction: str) -> str:
    """`#3 and #7`, `#3, #5 and #7`."""
    named = [f"#{s}" for s in seats]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} {conjunction} {named[-1]}"


def vote_rule(rules: RuleSet, request: Request, lang: str = "en") -> str:
    """One line on how this vote counts under these rules (R5.5-R5.10, R6.5, P12, P18), or "" for other decisions.

    Read from the rules, not assumed: a mandatory vote with the `last_candidate` default gives an unused vote to the
    last nominee called; otherwise it is no vote at all."""
    v = rules.voting
    ru = lang == "ru"
    last = request.candidates[-1] if request.candidates else None
    if request.kind is Kind.BALLOT:
        if v.mandatory and v.default == "last_candidate" and last is not None:
            return (
                f"Один тайный голос: выберите одного кандидата; не отданный голос уходит последнему, #{last}."
                if ru
                else f"One secret ballot: pick one nominee; a ballot not cast goes to the last nominee, #{last}."
            )
        return (
            "Один тайный голос: выберите одного кандидата или «никого» (воздержаться)."
            if ru
            else "One secret ballot: pick one nominee, or nobody to abstain."
        )
    if request.kind is not Kind.VOTE:
        return ""
    if request.subject == "lift":
        both = len(request.candidates) == 2
        who = _seat_list_words(request.candidates, "и" if ru else "and")
        return (
            f"Подъём: «за» — уходят {'оба' if both else 'все'}: {who}; нужно больше половины живых игроков, "
            "ровно половина — нет."
            if ru
            else f"Lift vote: yes means {who} {'both' if both else 'all'} leave; it needs more than half of the "
            "living players (half fails)."
        )
    if request.subject == "acquittal":
        return (
            f"Переголосование по #{request.candidate}: меньше голосов, чем в первый раз, — оправдан."
            if ru
            else f"Re-vote on #{request.candidate}: fewer yes votes than the first time acquits him."
        )
    if request.subject == "threshold":
        return (
            f"Единственная кандидатура #{request.candidate}: уходит, если «за» больше половины живых."
            if ru
            else f"The lone nominee #{request.candidate} leaves only with yes from more than half of the living."
        )
    if v.mandatory and v.default == "last_candidate" and last is not None:
        return (
            f"У вас один голос на всё голосование; «за» отдаёт его #{request.candidate}. "
            f"Кто не проголосовал до последней кандидатуры, голосует за неё, #{last}."
            if ru
            else f"You have one vote in this round; yes gives it to #{request.candidate}. "
            f"A vote not given by the last nominee goes to him, #{last}."
        )
    return (
        f"У вас один голос на всё голосование; «за» отдаёт его #{request.candidate}; можно не голосовать ни за кого."
        if ru
        else f"You have one vote in this round; yes gives it to #{request.candidate}; you may also vote for nobody."
    )


# "I nominate 5", "my nomination is seat 5", «выставляю номер 5», «моя кандидатура — 5»: a nomination said inside a
# speech, as players say it at a club table (a negated «не выставляю» is not one)
_SPOKEN = re.compile(
    r"(?:\bi\s+nominate|\bmy\s+nomination\s+is|(?<!не )\bвыставляю|\bмоя\s+кандидатура)"
    r"[\s:,—-]*(?:(?:seat|player|number|игрока|игрок|номер|место|№)\s*)*#?\s*(\d{1,2})(?!\d)",
    re.IGNORECASE,
)


def spoken_nomination(text: str) -> int | None:
    """The seat a sentence of a speech nominates in so many words, or None."""
    match = _SPOKEN.search(text)
    return int(match.group(1)) if match else None


def nomination_problem(form: Form, target: int, chosen: Sequence[int] = ()) -> str | None:
    """Why nominating `target` now is refused, or None if the form accepts it. `chosen`: this speech's so far."""
    req = form.request
    if not req.may_nominate:
        return "this turn carries no right to nominate"
    if target in chosen:
        return f"you already nominate #{target} in this speech"
    if len(chosen) >= MAX_NOMINATIONS:
        current = ", ".join(f"#{s}" for s in chosen)
        return f"one nomination per speech: you already nominate {current} (type 'withdraw' to take it back)"
    if target in form.already_nominated:
        return f"#{target} is already nominated"
    if target not in req.nominate_options:
        if target == req.seat:
            return "you cannot nominate yourself"
        legal = ", ".join(str(s) for s in req.nominate_options if s not in form.already_nominated)
        return f"#{target} cannot be nominated; choose one of {legal}"
    return None


def text_problem(form: Form, text: str) -> str | None:
    """Why `text` is refused as this form's speech or message: over the character cap (words are cut), or holding
    a surrogate code point, which is no character (a page's `\ud800`, an undecodable terminal byte)."""
    if len(text) > form.max_chars:
        return f"{len(text)} characters is over the cap of {form.max_chars}"
    bad = lone_surrogate(text)
    if bad is not None:
        return f"the text holds {bad}, half of a surrogate pair, which is no character: remove it"
    return None


def forbidden_in(form: Form, text: str) -> list[str]:
    """The forbidden phrases `text` contains (each costs a foul when spoken)."""
    low = " ".join(text.lower().split())
    return [p for p in form.forbidden if p in low]


def word_count(text: str) -> int:
    return len(text.split())


def _seat(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormError(f"{what} must be a seat number")
    return value


def _target(form: Form, value: object) -> int | None:
    req = form.request
    if value is None:
        if not req.allow_none:
            raise FormError("a seat is required here")
        return None
    seat = _seat(value, "target")
    if seat not in req.options:
        raise FormError(f"#{seat} is not a legal choice; choose one of {', '.join(map(str, req.options))}")
    return seat


def _seats(form: Form, value: object, *, limit: int, unique: bool = True) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise FormError("targets must be a list of seats")
    seats = tuple(_seat(v, "target") for v in value)
    if len(seats) > limit:
        raise FormError(f"name at most {limit} seats")
    if unique and len(set(seats)) != len(seats):
        raise FormError("name each seat once")
    for seat in seats:
        if seat not in form.request.options:
            raise FormError(f"#{seat} is not a legal choice; choose from {', '.join(map(str, form.request.options))}")
    return seats


def _text(form: Form, value: object) -> str:
    if not isinstance(value, str):
        raise FormError("text must be a string")
    problem = text_problem(form, value)
    if problem:
        raise FormError(problem)
    return value


_ALLOWED = {
    Kind.SPEECH: {"text", "nominate", "extra"},
    Kind.VOTE: {"vote"},
    Kind.BEST_MOVE: {"targets"},
    Kind.BLACK_MESSAGE: {"text", "targets"},
    Kind.CHOOSE_SIDE: {"action"},
    Kind.SHERIFF: {"action", "target"},
    Kind.PROBE: {"beliefs"},
}


def decision_from(form: Form, payload: Mapping[str, object]) -> Decision:
    """A `Decision` from an answer given as plain data (the browser's JSON, the terminal's parsed fields).

    Every field is checked against the form; unknown or foreign fields are refused, so a page can never send more
    than its request allows.
    """
    req = form.request
    kind = req.kind
    allowed = _ALLOWED.get(kind, {"target"})
    extra_keys = set(payload) - allowed
    if extra_keys:
        raise FormError(f"unexpected field(s) for {kind.value}: {', '.join(sorted(extra_keys))}")
    if kind is Kind.SPEECH:
        text = _text(form, payload.get("text", ""))
        raw = payload.get("nominate", [])
        if not isinstance(raw, list):
            raise FormError("nominate must be a list of seats")
        chosen: list[int] = []
        for value in raw:
            seat = _seat(value, "nominate")
            problem = nomination_problem(form, seat, chosen)
            if problem:
                raise FormError(problem)
            chosen.append(seat)
        extra = payload.get("extra", False)
        if not isinstance(extra, bool) or (extra and not req.may_request_extra):
            raise FormError("there is no extra word to ask for in this turn")
        return Decision(text=text, nominate=tuple(chosen), extra=extra)
    if kind is Kind.VOTE:
        vote = payload.get("vote")
        if not isinstance(vote, bool):
            raise FormError("vote must be yes or no")
        return Decision(vote=vote)
    if kind is Kind.BEST_MOVE:
        return Decision(targets=_seats(form, payload.get("targets", []), limit=req.max_targets))
    if kind is Kind.BLACK_MESSAGE:
        text = _text(form, payload.get("text", ""))
        targets = payload.get("targets", [])
        if targets and not req.may_set_order:
            raise FormError("only the don sets the kill order, on the first night")
        order = _seats(form, targets, limit=req.max_targets, unique=False) if req.may_set_order else ()
        return Decision(text=text, targets=order)
    if kind is Kind.CHOOSE_SIDE:
        action = payload.get("action")
        if action not in req.choices:
            raise FormError(f"choose one of {', '.join(req.choices)}")
        assert isinstance(action, str)
        return Decision(action=action)
    if kind is Kind.PROBE:
        return Decision(beliefs=_beliefs(form, payload.get("beliefs")))
    if kind is Kind.SHERIFF:
        action = payload.get("action", "check")
        if action not in req.actions:
            raise FormError(f"choose one of {', '.join(req.actions)}")
        assert isinstance(action, str)
        return Decision(action=action, target=_target(form, payload.get("target")))
    return Decision(target=_target(form, payload.get("target")))


def _beliefs(form: Form, raw: object) -> tuple[float, ...]:
    """A probe answer: `{seat: probability}` for every seat the request lists (seat keys as text or numbers)."""
    if not isinstance(raw, Mapping):
        raise FormError("beliefs must map each seat to a probability from 0 to 1")
    given = {str(key): value for key, value in raw.items()}
    unknown = set(given) - {str(s) for s in form.request.options}
    if unknown:
        raise FormError(f"no probe for seat(s) {', '.join(sorted(unknown))}; rate {_seat_list(form.request.options)}")
    out = []
    for seat in form.request.options:
        value = given.get(str(seat))
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise FormError(f"seat {seat} needs a probability from 0 to 1, got {value!r}")
        out.append(float(value))
    return tuple(out)


def _seat_list(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seats)


def speech_title(req: Request) -> str:
    return (req.speech or SpeechKind.REGULAR).value.replace("_", " ")
