"""A human at the terminal plays one seat: sees only that seat's view, and types each decision.

Why it exists: the same table must seat people next to bots and models, under the same invalid-action policy. The
seat shows the new events of its own Observation (never the game), then asks for the one decision pending. Input
that cannot be read is asked again at once with the reason; an answer the engine refuses comes back as `problem`
and is shown before the next prompt. A speech is typed line by line and ends with an empty line, "pass" or
"спасибо"; a line "nominate 5" (or «выставляю 5») nominates. Input and output are injectable for tests.

Input is read synchronously: a person is slower than any timeout a bot needs, so the human seat has no timeout, and
a blocking read keeps Ctrl-C working.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from arena.engine import Decision, EventType, Kind, Observation, Request, SpeechKind
from arena.engine.ruleset import RuleSet
from arena.live import EventPrinter
from arena.players.base import Answer, Player

END_SPEECH = {"", "pass", "пас", "спасибо", "thanks", "thank you"}
YES = {"y", "yes", "да", "д", "+"}
NO = {"n", "no", "нет", "н", "-"}
NONE = {"none", "no one", "nobody", "skip", "никого", "нет", "-"}
_NOMINATE = re.compile(r"^\s*(?:nominate|выставляю)\s+#?(\d{1,2})\s*\.?\s*$", re.IGNORECASE)


class InputError(ValueError):
    """Typed input that cannot be read as the decision asked for; the message says what was expected."""


def parse_seats(text: str) -> tuple[int, ...]:
    """'2 5 7', '2,5,7' or '#2 #5' -> (2, 5, 7)."""
    parts = [p for p in re.split(r"[\s,;]+", text.strip().replace("#", "")) if p]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise InputError(f"expected seat numbers like '2 5 7', got {text!r}") from None


def parse_target(text: str, allow_none: bool) -> int | None:
    low = text.strip().lower().lstrip("#")
    if low in NONE:
        if not allow_none:
            raise InputError("a seat number is required here")
        return None
    if not low.isdigit():
        raise InputError(f"expected a seat number{' or none' if allow_none else ''}, got {text!r}")
    return int(low)


def parse_vote(text: str) -> bool:
    low = text.strip().lower()
    if low in YES:
        return True
    if low in NO:
        return False
    raise InputError(f"answer y or n, got {text!r}")


SPEECH_NAMES = {  # "Your regular speech, up to 150 words": every kind names a speech
    SpeechKind.REGULAR: "regular speech",
    SpeechKind.SHORT: "short speech",
    SpeechKind.NOMINATE_ONLY: "nominate-only turn",
    SpeechKind.INTRO: "intro speech",
    SpeechKind.EXTRA: "extra word",
    SpeechKind.TIE: "tie speech",
    SpeechKind.LAST_WORD: "last word",
}
ROUND_NAMES = {"revote": "re-vote", "lift": "lift vote", "acquittal": "acquittal vote", "threshold": "vote"}


def status_text(obs: Observation, vote_round: tuple[str, tuple[int, ...]] | None = None) -> str:
    """The human seat's status line. Once a re-vote or lift vote has begun, it names the players on that vote, not
    every nominee of the day."""
    alive = ", ".join(f"#{s}" for s in obs.alive)
    line = f"day {obs.day} · {obs.phase.value} · alive: {alive}"
    if vote_round is not None and vote_round[0] in ROUND_NAMES and vote_round[1]:
        kind, seats = vote_round
        line += f" · {ROUND_NAMES[kind]}: {', '.join(f'#{s}' for s in seats)}"
    elif obs.nominees:
        line += f" · nominees: {', '.join(f'#{s}' for s in obs.nominees)}"
    return line


class HumanPlayer(Player):
    """A terminal seat. `read(prompt)` returns one typed line; the default reads the console."""

    def __init__(
        self,
        seat: int,
        *,
        lang: str = "en",
        console: Console | None = None,
        read: Callable[[str], str] | None = None,
        rules: RuleSet | None = None,
    ) -> None:
        self.seat = seat
        self.lang = lang
        self.console = console or Console()
        self._read = read or self._console_read
        self.rules = rules or RuleSet()
        self.printer = EventPrinter(self.console, self.rules)
        self.last_seq = -1
        self.introduced = False
        self.vote_round: tuple[str, tuple[int, ...]] | None = None  # today's latest round: kind, candidates

    def _console_read(self, prompt: str) -> str:
        return self.console.input(prompt)

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        self.show(observation)
        if problem:
            self.console.print(Text(f"Not accepted: {problem}. Try again.", style="bold red"))
        while True:
            try:
                return Answer(decision=self.ask(request))
            except InputError as exc:
                self.console.print(Text(f"Cannot read that: {exc}", style="red"))

    # ----- what the seat sees -------------------------------------------------------------------------------
    def show(self, obs: Observation) -> None:
        if not self.introduced:
            self.introduced = True
            mates = f"; your team: {', '.join(f'#{s}' for s in obs.teammates)}" if obs.teammates else ""
            role = obs.role.value if obs.role else "?"
            self.console.print(Text(f"You are seat #{obs.seat}, {role}{mates}.", style="bold magenta"))
        for event in obs.events:
            if event.seq > self.last_seq:
                self.last_seq = event.seq
                if event.type is EventType.PHASE_STARTED:
                    self.vote_round = None
                elif event.type is EventType.VOTING_STARTED:
                    self.vote_round = (event.value or "", event.seats)
                self.printer(event)
        self.printer.flush_votes()
        self.console.print(Text(status_text(obs, self.vote_round), style="dim"))

    # ----- what the seat is asked ----------------------------------------------------------------------------
    def line(self, prompt: str) -> str:
        return self._read(f"[#{self.seat}] {prompt} ")

    def ask(self, req: Request) -> Decision:
        kind = req.kind
        if kind is Kind.SPEECH:
            return self.speech(req)
        if kind is Kind.VOTE:
            subject = {"lift": "Eliminate all of", "acquittal": "Still eliminate", "threshold": "Eliminate"}
            who = ", ".join(f"#{s}" for s in req.candidates) if req.subject == "lift" else f"#{req.candidate}"
            question = subject.get(req.subject or "", "Vote to eliminate")
            return Decision(vote=parse_vote(self.line(f"{question} {who}? [y/n]")))
        if kind is Kind.SHERIFF:
            action = "check"
            if len(req.actions) > 1:
                action = self.line(f"Tonight: {' or '.join(req.actions)}?").strip().lower() or "check"
            target = parse_target(self.line(f"Whom to {action}? {self.options(req)}"), req.allow_none)
            return Decision(action=action, target=target)
        if kind is Kind.BEST_MOVE:
            seats = parse_seats(self.line(f"Best move: name up to {req.max_targets} seats (Enter for none)"))
            return Decision(targets=seats)
        if kind is Kind.BLACK_MESSAGE:
            text = self.line(f"Message to your team (up to {req.max_words} words)")
            order: tuple[int, ...] = ()
            if req.may_set_order:
                order = parse_seats(self.line(f"Kill order: up to {req.max_targets} seats, e.g. 3 7 1"))
            return Decision(text=text, targets=order)
        if kind is Kind.CHOOSE_SIDE:
            choice = self.line(f"Choose your side: {' or '.join(req.choices)}").strip().lower()
            if choice not in req.choices:
                raise InputError(f"type one of {', '.join(req.choices)}")
            return Decision(action=choice)
        verbs = {
            Kind.BALLOT: "Vote for",
            Kind.SHOOT: "Shoot",
            Kind.DON_CHECK: "Check (are they the sheriff?)",
            Kind.MANIAC_KILL: "Kill",
            Kind.HEAL: "Heal",
            Kind.VISIT: "Visit",
        }
        verb = verbs.get(kind, "Choose")
        return Decision(target=parse_target(self.line(f"{verb}: {self.options(req)}"), req.allow_none))

    def options(self, req: Request) -> str:
        seats = ", ".join(str(s) for s in req.options)
        return f"[{seats}{' or none' if req.allow_none else ''}]"

    def speech(self, req: Request) -> Decision:
        kind = SPEECH_NAMES[req.speech or SpeechKind.REGULAR]
        hints = ["an empty line, 'pass' or 'спасибо' ends it"]
        if req.may_nominate:
            hints.append(f"'nominate N' nominates one of {', '.join(map(str, req.nominate_options))}")
        if req.may_request_extra:
            hints.append("'extra' asks for the extra word")
        self.console.print(Text(f"Your {kind}, up to {req.max_words} words ({'; '.join(hints)}).", style="bold"))
        lines: list[str] = []
        nominate: list[int] = []
        extra = False
        while True:
            typed = self.line(">")
            low = typed.strip().lower().rstrip(".!")
            if low in END_SPEECH:
                break
            match = _NOMINATE.match(typed)
            if match:
                if req.may_nominate:
                    nominate.append(int(match.group(1)))
                    self.console.print(Text(f"(nominating #{match.group(1)})", style="dim"))
                else:
                    self.console.print(Text("(this turn carries no right to nominate)", style="yellow"))
                continue
            if low == "extra" and req.may_request_extra:
                extra = True
                continue
            lines.append(typed.strip())
            words = len(" ".join(lines).split())
            if words > req.max_words:
                self.console.print(Text(f"(over {req.max_words} words: the judge will cut the rest)", style="yellow"))
        return Decision(text=" ".join(lines), nominate=tuple(nominate), extra=extra)
