"""Events as readable console lines, as they happen: the live view of `arena play` and a human seat's own view.

The review renderer (`arena.render.phrases.phrase`) words each event; this module adds what a live feed needs on top:
day and night rules, speeches as quoted text, and votes folded into one line per round. Player text is data: it is
cleaned of control characters and always drawn as `rich.text.Text`, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from arena.engine import Event, EventType, Failure, Game, RuleSet
from arena.render import labels, phrasebook
from arena.render.console import STYLES
from arena.render.phrases import Span, clean, phrase, result_text


def timed_out(event: Event) -> bool:
    """A re-ask or a default whose reason is the seat's time limit, not a refused answer."""
    failed = event.type in (EventType.ACTION_REJECTED, EventType.DEFAULT_APPLIED)
    return failed and event.code == Failure.TIMEOUT


def fold_timeouts(events: Sequence[Event]) -> list[Event]:
    """The events to word, with a timed-out decision's re-asks folded away: a timeout whose seat's next event is
    another timeout (the re-ask of a decision whose time is up returns at once) or the default says nothing new."""
    kept: list[Event] = []
    next_timed_out: dict[int, bool] = {}  # seat -> whether that seat's next event (later in the list) timed out
    for event in reversed(events):
        seat = event.seat
        if not (seat is not None and next_timed_out.get(seat) and event.type is EventType.ACTION_REJECTED):
            kept.append(event)
        if seat is not None:
            next_timed_out[seat] = timed_out(event)
    kept.reverse()
    return kept


def timeout_text(event: Event) -> str:
    """`#3: no answer within 120 s; the rule's default applies` (or `...; asked again` for a re-ask)."""
    after = "the rule's default applies" if event.type is EventType.DEFAULT_APPLIED else "asked again"
    within = f" within {event.count / 1000:g} s" if event.count is not None else ""  # the limit, in ms
    return f"#{event.seat}: no answer{within} (time is up); {after}"


def _seat(seat: int | None) -> Text:
    return Text(f"#{seat}" if seat is not None else "nobody", style=STYLES.get("seat", ""))


class EventPrinter:
    """Prints events one by one to a console; votes are buffered and printed as one line per round."""

    def __init__(
        self, console: Console, rules: RuleSet, *, show: Callable[[Event], bool] | None = None, lang: str = "en"
    ) -> None:
        self.console = console
        self.rules = rules
        self.show = show
        self.lang = labels.pick(lang)  # the phrase tables' language (`arena.render.phrasebook`); English as it was
        self._votes: list[Event] = []
        self._timeout: Event | None = None  # a timed-out re-ask, held until we know whether a default follows
        self._round = ""
        self._deal_shown = False  # the god view's "Roles dealt" line makes each seat's "card dealt" line redundant

    def __call__(self, event: Event) -> None:
        if self.show is not None and not self.show(event):
            return
        if event.type is EventType.VOTE_CAST:
            self._votes.append(event)
            return
        held, self._timeout = self._timeout, None
        if held is not None and not (timed_out(event) and event.seat == held.seat):
            self._print(held)  # a re-ask that was answered after all
        if event.type is EventType.ACTION_REJECTED and timed_out(event):
            self._timeout = event  # held: a default or another timeout of the same seat would say it again
            return
        if event.type is EventType.ROLES_DEALT:
            self._deal_shown = True
        elif event.type is EventType.ROLE_ASSIGNED and self._deal_shown:
            return
        self.flush_votes()
        self._print(event)

    def _print(self, event: Event) -> None:
        line = self.render(event)
        if line is not None:
            self.console.print(line)

    def flush_votes(self) -> None:
        """Print what is held back: a round's votes, a timed-out re-ask (called before a prompt and at the end)."""
        held, self._timeout = self._timeout, None
        if held is not None:
            self._print(held)
        if not self._votes:
            return
        ru = self.lang == "ru"
        by_target: dict[str, list[int]] = {}
        for vote in self._votes:
            if vote.value in ("yes", "no") and self._round in ("lift", "acquittal", "threshold"):
                key = {"yes": "за", "no": "против"}[vote.value] if ru else vote.value
            else:
                key = f"#{vote.target}" if vote.target is not None else labels.label("row_abstain", self.lang)
            by_target.setdefault(key, []).append(vote.seat or 0)
        parts = [f"{key}: {len(seats)} ({', '.join(map(str, seats))})" for key, seats in by_target.items()]
        head = "  голоса  " if ru else "  votes  "
        self.console.print(Text(head + " · ".join(parts), style=STYLES.get("vote", "")))
        self._votes = []

    def render(self, event: Event) -> Rule | Text | None:
        if self.lang != "en":
            return self._render_in(event, self.lang)
        t = event.type
        if t is EventType.PHASE_STARTED:
            title = f"Day {event.day}" if event.value == "day" else f"Night {event.day}"
            return Rule(title)
        if t is EventType.SPEECH:
            kind = "" if event.value == "regular" else f" ({(event.value or '').replace('_', ' ')})"
            out = Text("» ")
            out.append_text(_seat(event.seat))
            out.append(f"{kind}: ", style="dim")
            out.append(clean(event.text or "") or "…", style="")
            return out
        if t is EventType.BLACK_MESSAGE:
            out = Text("♠ ", style=STYLES.get("black", ""))
            out.append_text(_seat(event.seat))
            out.append(" to the black team: ", style="dim")
            out.append(clean(event.text or "") or "…")
            return out
        if t is EventType.VOTING_STARTED:
            self._round = event.value or ""
            seats = ", ".join(f"#{s}" for s in event.seats)
            return Text(f"  vote ({self._round.replace('_', ' ')}) on {seats}", style="bold")
        if t is EventType.VOTES_COUNTED:
            return None  # the folded votes line says it
        if t is EventType.GAME_ENDED:
            return Text(f"Game over: {result_text(event.value)} ({phrasebook.end_reason(event)})", style="bold")
        if timed_out(event):
            return Text("◆ " + timeout_text(event), style=STYLES.get("warn", ""))
        spans = phrase(event, self.rules.night.sheriff_answer)
        if spans is None:
            return None
        out = Text("• " if event.vis.value == "public" else "◆ ", style="dim")
        for span in spans:
            out.append(span.text, style=STYLES.get(span.style, ""))
        return out

    def _render_in(self, event: Event, lang: str) -> Rule | Text | None:
        """An event in another language than English: its line from that language's phrase table, drawn as the
        English feed draws it (a rule for a phase, votes folded, a marker by who may see it)."""
        t = event.type
        if t is EventType.PHASE_STARTED:
            key = "chapter_day" if event.value == "day" else "chapter_night"
            return Rule(labels.label(key, lang, n=event.day))
        if t is EventType.VOTES_COUNTED:
            return None  # the folded votes line says it
        if t is EventType.VOTING_STARTED:
            self._round = event.value or ""
            return Text("  " + phrasebook.text(event, lang), style="bold")
        spans = phrasebook.line(event, lang, self.rules.night.sheriff_answer)
        if t is EventType.SPEECH:
            out = Text("» ")
        elif t is EventType.BLACK_MESSAGE:
            out = Text("♠ ", style=STYLES.get("black", ""))
        elif t is EventType.GAME_ENDED:
            return _styled(Text(), spans, "bold")
        else:
            out = Text("• " if event.vis.value == "public" else "◆ ", style="dim")
        return _styled(out, spans)


def _styled(out: Text, spans: Sequence[Span], style: str | None = None) -> Text:
    for span in spans:
        out.append(span.text, style=style if style is not None else STYLES.get(span.style, ""))
    return out


def status_line(game: Game, extra: str = "", lang: str = "en") -> Text:
    """Day, phase, who is alive and whose turn it is: the one line under the live feed."""
    ru = labels.pick(lang) == "ru"
    pending = [r.seat for r in game.pending()]
    seats = ", ".join(f"#{s}" for s in pending)
    if len(pending) == 1 and game.pending()[0].kind.value == "speech":
        turn = f"{'говорит' if ru else 'speaking'} #{pending[0]}"
    else:
        turn = f"{'ждём' if ru else 'waiting for'} {seats}" if pending else ""
    alive = len(game.living())
    names = {"night": "ночь" if ru else "night", "day": "день" if ru else "day"}
    phase = f"{names[game.phase.value]} {game.day}" if game.phase.value in names else game.phase.value
    if ru:
        phase = {"end": "конец игры", "setup": "раздача"}.get(phase, phase)
    living = f"в игре {alive}/{game.n}" if ru else f"{alive}/{game.n} alive"
    text = f"{game.rules.name} · {phase} · {living}"
    if game.over:
        text += f" · {labels.result(game.winner, lang)}"
    elif turn:
        text += f" · {turn}"
    if extra:
        text += f" · {extra}"
    return Text(text, style="reverse")
