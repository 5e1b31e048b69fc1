"""A human at the terminal plays one seat: sees only that seat's view, and types each decision.

Why it exists: the same table must seat people next to bots and models, under the same invalid-action policy. The
seat shows the new events of its own Observation (never the game), then asks for the one decision pending, through
the shared form (`arena.human.form`): an answer the form refuses is refused at once, with the reason, and only the
field at fault is asked again (a refused nomination keeps the speech; an unreadable kill order keeps the message).

A speech is typed line by line and ends with an empty line, "pass" or "спасибо"; an empty line before anything was
said asks once more, so a stray Enter never ends a speech silent. "nominate 5" (or «выставляю 5») on a line of its
own nominates, and so does the spoken form inside a sentence ("I nominate 5", "my nomination is seat 5"), which is
kept in the speech and confirmed on screen; "withdraw" takes it back, "undo" drops the last line. The forbidden
phrases are shown at the start and on every speech prompt, and a line holding one is flagged as it is typed.

What was typed while the seat was not asked anything (a double Enter at the last prompt, keys pressed while the
bots talked) is discarded when a new decision is asked, on a terminal only: piped answers are meant in order.

Lines are read by a daemon thread (`TerminalLines`) while the event loop waits, so Ctrl-C stops the game at once
(asyncio cancels the waiting task; nothing blocks the loop), and the orchestrator's time limit can apply the rule's
default to a person who does not answer. Closed input (Ctrl-D, the end of a pipe) stops the game, saved and
resumable, with a clear message, instead of defaulting silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import sys
import termios
import threading
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from rich.console import Console
from rich.text import Text

from arena.engine import Decision, EventType, Kind, Observation, Request, SpeechKind
from arena.engine.ruleset import RuleSet
from arena.human.form import (
    Form,
    FormError,
    build_form,
    decision_from,
    forbidden_in,
    forbidden_phrases,
    nomination_problem,
    spoken_nomination,
    text_problem,
    vote_rule,
    word_count,
)
from arena.live import EventPrinter
from arena.players.base import Answer, Player

END_SPEECH = {"", "pass", "пас", "спасибо", "thanks", "thank you"}
YES = {"y", "yes", "да", "д", "+"}
NO = {"n", "no", "нет", "н", "-"}
NONE = {"none", "no one", "nobody", "skip", "никого", "нет", "-"}
_NOMINATE = re.compile(r"^\s*(?:nominate|выставляю)\b\s*(.*?)\s*\.?\s*$", re.IGNORECASE)
_WITHDRAW = {"withdraw", "снимаю"}
_SEAT_WORDS = re.compile(r"^(?:(?:seat|player|number|игрока|игрок|номер|место|№)\s*)*#?\s*(\d{1,2})$", re.IGNORECASE)
MAX_FIELD_TRIES = 200  # a person retyping one field this often is not answering; the outer policy takes over
MAX_SPEECH_LINES = 500

T = TypeVar("T")


class InputError(ValueError):
    """Typed input that cannot be read as the decision asked for; the message says what was expected."""


class InputClosed(KeyboardInterrupt):
    """The seat's input ended (Ctrl-D, or the end of piped input): the game stops, saved, as on Ctrl-C."""


class LineSource(Protocol):
    interactive: bool  # a person types the lines (a terminal), not a script or a pipe

    async def line(self, prompt: str) -> str:
        """One typed line (without its newline); raises EOFError when the input is closed."""
        ...

    def discard_typeahead(self) -> int:
        """Drop input typed before the prompt of a new decision; how many lines (or partial lines) were dropped."""
        ...


class CallableLines:
    """Lines from a plain function (tests and scripts): `read(prompt)` returns a line or raises EOFError.
    `interactive` says whether a person types them (then a stray Enter is asked about, as at a terminal)."""

    def __init__(self, read: Callable[[str], str | Awaitable[str]], interactive: bool = False) -> None:
        self._read = read
        self.interactive = interactive

    async def line(self, prompt: str) -> str:
        got = self._read(prompt)
        if isinstance(got, str):
            return got
        return await got

    def discard_typeahead(self) -> int:
        return 0  # scripted lines are answers in order, never stray keys


class TerminalLines:
    """Lines from a file descriptor (stdin), read by a daemon thread one line at a time, on demand.

    The event loop only polls a queue, so a cancelled wait (Ctrl-C, a time limit) never blocks; a line typed after
    a cancelled wait answers the next prompt. Raw `os.read` avoids holding a Python stream lock in the thread.
    """

    POLL_S = 0.05

    def __init__(self, console: Console, fd: int | None = None) -> None:
        self.console = console
        self.fd = fd if fd is not None else _stdin_fd()
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reading = False
        self._closed = False
        self._buffer = b""
        self.interactive = self.fd >= 0 and os.isatty(self.fd)

    def discard_typeahead(self) -> int:
        """What was typed before this prompt answered nothing asked: drop it (a terminal only; a pipe's lines are
        answers in order). Lines already read, the bytes buffered after them, and the terminal's unread input go.
        A reader still waiting for its line keeps it: that line is typed after the prompt."""
        if self._closed or not self.interactive:
            return 0
        dropped = 0
        while True:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                break
            if item is None:  # the end of input is kept: it is no keystroke
                self._lines.put(None)
                break
            self._reading = False  # that reader is done
            dropped += 1
        if not self._reading and self._buffer:  # no reader owns the buffer now
            dropped += 1
            self._buffer = b""
        with contextlib.suppress(termios.error, OSError):
            waiting = _unread_bytes(self.fd)
            termios.tcflush(self.fd, termios.TCIFLUSH)
            dropped += bool(waiting)
        return dropped

    def _fill(self) -> None:
        if self.fd < 0:  # stdin without a descriptor (an embedding that replaced sys.stdin): its own readline
            typed = sys.stdin.readline()
            self._lines.put(typed.rstrip("\r\n") if typed else None)
            return
        try:
            while b"\n" not in self._buffer:
                chunk = os.read(self.fd, 4096)
                if not chunk:
                    rest, self._buffer = self._buffer, b""
                    self._lines.put(rest.decode("utf-8", "replace") if rest else None)
                    return
                self._buffer += chunk
            line, _, self._buffer = self._buffer.partition(b"\n")
            self._lines.put(line.decode("utf-8", "replace").rstrip("\r"))
        except OSError:
            self._lines.put(None)

    async def line(self, prompt: str) -> str:
        if self._closed:
            raise EOFError
        self.console.print(Text(prompt), end="")
        if not self._reading:
            self._reading = True
            threading.Thread(target=self._fill, name="arena-stdin", daemon=True).start()
        while True:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                await asyncio.sleep(self.POLL_S)
                continue
            self._reading = False
            if item is None:
                self._closed = True
                raise EOFError
            return item


def _unread_bytes(fd: int) -> int:
    """How many typed bytes the terminal holds unread (FIONREAD)."""
    import fcntl
    import struct

    got = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", got)[0])


def _stdin_fd() -> int:
    try:
        return sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return -1


def parse_seats(text: str) -> tuple[int, ...]:
    """'2 5 7', '2,5,7' or '#2 #5' -> (2, 5, 7); '', 'none' -> ()."""
    if text.strip().lower() in NONE:
        return ()
    parts = [p for p in re.split(r"[\s,;]+", text.strip().replace("#", "")) if p]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise InputError(f"expected seat numbers like '2 5 7' (or none), got {text!r}") from None


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
    line = f"{phase_title(obs.phase.value, obs.day).lower()} · alive: {alive}"
    if vote_round is not None and vote_round[0] in ROUND_NAMES and vote_round[1]:
        kind, seats = vote_round
        line += f" · {ROUND_NAMES[kind]}: {', '.join(f'#{s}' for s in seats)}"
    elif obs.nominees:
        line += f" · nominees: {', '.join(f'#{s}' for s in obs.nominees)}"
    return line


def phase_title(phase: str, day: int) -> str:
    """`Night 1`, `Day 2`: the words of the phase banner, so the status line under it says the same."""
    return {"night": f"Night {day}", "day": f"Day {day}", "setup": "Setup", "end": "Game over"}.get(phase, phase)


def _seats(seats: tuple[int, ...] | list[int]) -> str:
    return ", ".join(str(s) for s in seats)


PROBE_GUESS = 0.3  # a seat the human leaves out of a probe gets the base rate of black (3 of 10)


def probe_prompt(req: Request) -> str:
    seats = ", ".join(str(s) for s in req.options)
    return (
        f"Private probe: how likely is each seat to be black? Seats {seats}; type e.g. '3:0.8 5:10%' "
        f"(a seat left out gets {PROBE_GUESS}; an empty line keeps {PROBE_GUESS} for all)"
    )


def parse_probe(text: str, req: Request) -> dict[str, object]:
    """`3:0.8 5:10%` -> {"3": 0.8, "5": 0.1, every other option: PROBE_GUESS}; InputError for anything else."""
    beliefs: dict[str, object] = {str(seat): PROBE_GUESS for seat in req.options}
    for item in text.replace(",", " ").split():
        seat, sep, value = item.partition(":")
        if not sep or not seat.strip().isdigit():
            raise InputError(f"write SEAT:PROBABILITY, e.g. 3:0.8 or 3:80%, got {item!r}")
        try:
            number = float(value.rstrip("%")) / (100 if value.endswith("%") else 1)
        except ValueError:
            raise InputError(f"{value!r} is not a number") from None
        beliefs[seat.strip()] = number
    return beliefs


class HumanPlayer(Player):
    """A terminal seat. `read(prompt)` returns one typed line (tests); by default stdin is read by `TerminalLines`."""

    def __init__(
        self,
        seat: int,
        *,
        lang: str = "en",
        console: Console | None = None,
        read: Callable[[str], str | Awaitable[str]] | None = None,
        rules: RuleSet | None = None,
        lines: LineSource | None = None,
    ) -> None:
        self.seat = seat
        self.lang = lang
        self.console = console or Console(highlight=False)
        self.rules = rules or RuleSet()
        self.lines: LineSource = lines or (CallableLines(read) if read is not None else TerminalLines(self.console))
        self.printer = EventPrinter(self.console, self.rules, lang=self.lang)
        self.last_seq = -1
        self.introduced = False
        self.vote_round: tuple[str, tuple[int, ...]] | None = None  # today's latest round: kind, candidates
        self._timed_out: Request | None = None
        self._rule_for: tuple[object, ...] | None = None
        self.round_seq = -1  # the seq of the latest vote round's start this seat saw

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        self.show(observation)
        if problem is not None and self._timed_out == request:  # its time ran out (an answer clears it)
            self.note("(time is up: the rule's default applies)", "yellow")
            raise TimeoutError  # one time limit per decision: the re-asks of a timed-out one do not wait again
        if problem:
            self.console.print(Text(f"Not accepted: {problem}. Try again.", style="bold red"))
        if self.lines.discard_typeahead():
            self.note("(what was typed before this question is ignored: answer it now)", "yellow")
        form = build_form(request, self.rules, self.lang, observation.nominees)
        for _ in range(MAX_FIELD_TRIES):
            try:
                decision = await self.ask(form)
            except InputError as exc:
                self.console.print(Text(f"Cannot read that: {exc}", style="red"))
                continue
            except asyncio.CancelledError:
                self._timed_out = request
                raise
            self._timed_out = None
            return Answer(decision=decision)
        raise InputError("too many unreadable answers")

    # ----- what the seat sees -------------------------------------------------------------------------------
    def forbidden_line(self) -> str:
        phrases = forbidden_phrases(self.rules, self.lang)
        if not phrases:
            return ""
        return "Forbidden phrases (each costs a foul): " + ", ".join(f"«{p}»" for p in phrases)

    def show(self, obs: Observation) -> None:
        if not self.introduced:
            self.introduced = True
            mates = f"; your team: {', '.join(f'#{s}' for s in obs.teammates)}" if obs.teammates else ""
            role = obs.role.value if obs.role else "?"
            self.console.print(Text(f"You are seat #{obs.seat}, {role}{mates}.", style="bold magenta"))
            if self.forbidden_line():
                self.console.print(Text(self.forbidden_line(), style="yellow"))
        for event in obs.events:
            if event.seq > self.last_seq:
                self.last_seq = event.seq
                if event.type is EventType.PHASE_STARTED:
                    self.vote_round = None
                elif event.type is EventType.VOTING_STARTED:
                    self.vote_round = (event.value or "", event.seats)
                    self.round_seq = event.seq
                self.printer(event)
        self.printer.flush_votes()
        self.console.print(Text(status_text(obs, self.vote_round), style="dim"))

    # ----- what the seat is asked ----------------------------------------------------------------------------
    async def line(self, prompt: str) -> str:
        try:
            return await self.lines.line(f"[#{self.seat}] {prompt} ")
        except EOFError:
            self.console.print()
            raise InputClosed(f"seat #{self.seat}'s input was closed (Ctrl-D or the end of piped input)") from None

    async def field(self, prompt: str, parse: Callable[[str], T]) -> T:
        """Ask one field until it can be read; only this field is asked again."""
        for _ in range(MAX_FIELD_TRIES):
            typed = await self.line(prompt)
            try:
                return parse(typed)
            except (InputError, FormError) as exc:
                self.console.print(Text(f"Cannot read that: {exc}", style="red"))
        raise InputError(f"too many unreadable answers to {prompt!r}")

    async def ask(self, form: Form) -> Decision:
        req = form.request
        kind = req.kind
        if kind is Kind.SPEECH:
            return await self.speech(form)
        if kind is Kind.VOTE:
            subject = {"lift": "Eliminate all of", "acquittal": "Still eliminate", "threshold": "Eliminate"}
            who = ", ".join(f"#{s}" for s in req.candidates) if req.subject == "lift" else f"#{req.candidate}"
            question = subject.get(req.subject or "", "Vote to eliminate")
            self.rule_once(req)
            return Decision(vote=await self.field(f"{question} {who}? [y/n]", parse_vote))
        if kind is Kind.SHERIFF:
            action = "check"
            if len(req.actions) > 1:

                def read_action(text: str) -> str:
                    low = text.strip().lower() or "check"
                    if low not in req.actions:
                        raise InputError(f"type one of {', '.join(req.actions)}")
                    return low

                action = await self.field(f"Tonight: {' or '.join(req.actions)}?", read_action)

            def read_target(text: str) -> Decision:
                target = parse_target(text, req.allow_none)
                return decision_from(form, {"action": action, "target": target})

            return await self.field(f"Whom to {action}? {self.options(req)}", read_target)
        if kind is Kind.BEST_MOVE:

            def read_best(text: str) -> Decision:
                return decision_from(form, {"targets": list(parse_seats(text))})

            prompt = f"Best move: name up to {req.max_targets} seats of {_seats(req.options)} (Enter for none)"
            return await self.field(prompt, read_best)
        if kind is Kind.BLACK_MESSAGE:
            return await self.black_message(form)
        if kind is Kind.CHOOSE_SIDE:

            def read_side(text: str) -> Decision:
                return decision_from(form, {"action": text.strip().lower()})

            return await self.field(f"Choose your side: {' or '.join(req.choices)}", read_side)
        if kind is Kind.PROBE:
            return await self.field(probe_prompt(req), lambda text: decision_from(form, parse_probe(text, req)))
        verbs = {
            Kind.BALLOT: "Vote for",
            Kind.SHOOT: "Shoot",
            Kind.DON_CHECK: "Check (are they the sheriff?)",
            Kind.MANIAC_KILL: "Kill",
            Kind.HEAL: "Heal",
            Kind.VISIT: "Visit",
        }
        verb = verbs.get(kind, "Choose")
        if kind is Kind.BALLOT:
            self.rule_once(req)

        def read_pick(text: str) -> Decision:
            return decision_from(form, {"target": parse_target(text, req.allow_none)})

        return await self.field(f"{verb}: {self.options(req)}", read_pick)

    def options(self, req: Request) -> str:
        seats = ", ".join(str(s) for s in req.options)
        return f"[{seats}{' or none' if req.allow_none else ''}]"

    async def black_message(self, form: Form) -> Decision:
        req = form.request

        def read_text(text: str) -> str:
            problem = text_problem(form, text.strip())
            if problem:
                raise InputError(problem)
            return text.strip()

        text = await self.field(f"Message to your team (up to {req.max_words} words)", read_text)
        if not req.may_set_order:
            return Decision(text=text)

        def read_order(typed: str) -> Decision:  # only the order is asked again; the message is kept
            return decision_from(form, {"text": text, "targets": list(parse_seats(typed))})

        prompt = f"Kill order: up to {req.max_targets} seats of {_seats(req.options)}, e.g. 3 7 1 (none for no order)"
        return await self.field(prompt, read_order)

    def rule_once(self, req: Request) -> None:
        """How the vote counts, once per round (not again for each nominee of it)."""
        key = (self.round_seq, req.subject, req.kind.value)
        if key != self._rule_for:
            self._rule_for = key
            self.note(vote_rule(self.rules, req), "bold")

    def note(self, text: str, style: str = "dim") -> None:
        self.console.print(Text(text, style=style))

    async def speech(self, form: Form) -> Decision:
        req = form.request
        kind = SPEECH_NAMES[req.speech or SpeechKind.REGULAR]
        hints = ["an empty line, 'pass' or 'спасибо' ends it", "'undo' drops the last line"]
        if req.may_nominate:
            legal = [s for s in req.nominate_options if s not in form.already_nominated]
            hints.append(f"'nominate N' nominates one of {_seats(legal)}, as does 'I nominate N' in a sentence")
        if req.may_request_extra:
            hints.append("'extra' asks for the extra word")
        limits = f"up to {req.max_words} words / {form.max_chars} characters"
        self.note(f"Your {kind}, {limits} ({'; '.join(hints)}).", "bold")
        if form.already_nominated:
            self.note(f"(already nominated: {_seats(form.already_nominated)})")
        if self.forbidden_line():
            self.note(self.forbidden_line(), "yellow")
        lines: list[str] = []
        nominate: list[int] = []
        extra = False
        asked_silence = False
        for _ in range(MAX_SPEECH_LINES):
            typed = await self.line(">")
            low = typed.strip().lower().rstrip(".!")
            if not low and self.lines.interactive and not (lines or nominate or extra or asked_silence):
                asked_silence = True  # a stray Enter at a terminal must not end a speech unsaid
                self.note("(nothing said yet: press Enter again to stay silent, or type your speech)", "yellow")
                continue
            if low in END_SPEECH:
                break
            match = _NOMINATE.match(typed)
            if match:
                self.nominate(form, match.group(1), nominate)
                continue
            if low in _WITHDRAW:
                self.note(f"(withdrawn: #{nominate.pop()})" if nominate else "(no nomination to withdraw)")
                continue
            if low == "undo":
                self.note(f"(dropped: {lines.pop()})" if lines else "(nothing to drop)")
                continue
            if low == "extra":
                if req.may_request_extra:
                    extra = True
                    self.note("(asking for the extra word)")
                else:
                    self.note("(there is no extra word to ask for in this turn; not added to the speech)", "yellow")
                continue
            candidate = " ".join([*lines, typed.strip()])
            problem = text_problem(form, candidate)
            if problem:
                self.note(f"(not added: the speech would be {problem}; end it with an empty line)", "yellow")
                continue
            lines.append(typed.strip())
            self.spoken(form, typed, nominate)
            for phrase in forbidden_in(form, typed):
                self.note(f"(warning: «{phrase}» is a forbidden phrase and costs a foul; 'undo' drops it)", "bold red")
            if word_count(candidate) > req.max_words:
                self.note(f"(over {req.max_words} words: the judge will cut the rest)", "yellow")
        return Decision(text=" ".join(lines), nominate=tuple(nominate), extra=extra)

    def spoken(self, form: Form, typed: str, chosen: list[int]) -> None:
        """A nomination said inside the speech ("I nominate 5"): taken as one, and said so, or a one-line hint of
        why it is not (the words stay in the speech either way)."""
        target = spoken_nomination(typed)
        if target is None or target in chosen:
            return
        if not form.request.may_nominate:
            self.note("(this turn carries no right to nominate: those words nominate nobody)", "yellow")
            return
        problem = nomination_problem(form, target, chosen)
        if problem:
            self.note(f"(heard a nomination of #{target}, not taken: {problem})", "yellow")
            return
        chosen.append(target)
        self.note(f"(heard a nomination: nominating #{target}; 'withdraw' takes it back)")

    def nominate(self, form: Form, arg: str, chosen: list[int]) -> None:
        """Check a `nominate N` line at once: accepted, or refused with the reason; never part of the speech."""
        named = _SEAT_WORDS.match(arg)
        target = named.group(1) if named else arg.lstrip("#")
        if not target.isdigit():
            self.note(f"Cannot read that: 'nominate' needs a seat number, e.g. 'nominate 5' (got {arg!r})", "red")
            return
        problem = nomination_problem(form, int(target), chosen)
        if problem:
            self.note(f"Nomination refused: {problem}. Your speech so far is kept.", "red")
            return
        chosen.append(int(target))
        self.note(f"(nominating #{target}; 'withdraw' takes it back)")
