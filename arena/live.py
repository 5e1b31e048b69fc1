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

from arena.engine import Event, EventType, Game, RuleSet
from arena.players.base import TIMEOUT_PREFIX
from arena.render.console import STYLES
from arena.render.phrases import clean, phrase, result_text


def timed_out(event: Event) -> bool:
    """A re-ask or a default whose reason is the seat's time limit, not a refused answer."""
    return event.type in (EventType.ACTION_REJECTED, EventType.DEFAULT_APPLIED) and (event.value or "").startswith(
        TIMEOUT_PREFIX
    )


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
    return f"#{event.seat}: {clean(event.value or '')} (time is up); {after}"


def _seat(seat: int | None) -> Text:
    return Text(f"#{seat}" if seat is not None else "nobody", style=STYLES.get("seat", ""))


class EventPrinter:
    """Prints events one by one to a console; votes are buffered and printed as one line per round."""

    def __init__(self, console: Console, rules: RuleSet, *, show: Callable[[Event], bool] | None = None) -> None:
        self.console = console
        self.rules = rules
        self.show = show
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
        by_target: dict[str, list[int]] = {}
        for vote in self._votes:
            if vote.value in ("yes", "no") and self._round in ("lift", "acquittal", "threshold"):
                key = vote.value
            else:
                key = f"#{vote.target}" if vote.target is not None else "abstain"
            by_target.setdefault(key, []).append(vote.seat or 0)
        parts = [f"{key}: {len(seats)} ({', '.join(map(str, seats))})" for key, seats in by_target.items()]
        self.console.print(Text("  votes  " + " · ".join(parts), style=STYLES.get("vote", "")))
        self._votes = []

    def render(self, event: Event) -> Rule | Text | None:
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
            return Text(f"Game over: {result_text(event.value)} ({clean(event.text or '')})", style="bold")
        if timed_out(event):
            return Text("◆ " + timeout_text(event), style=STYLES.get("warn", ""))
        spans = phrase(event, self.rules.night.sheriff_answer)
        if spans is None:
            return None
        out = Text("• " if event.vis.value == "public" else "◆ ", style="dim")
        for span in spans:
            out.append(span.text, style=STYLES.get(span.style, ""))
        return out


def status_line(game: Game, extra: str = "") -> Text:
    """Day, phase, who is alive and whose turn it is: the one line under the live feed."""
    pending = [r.seat for r in game.pending()]
    turn = (
        f"speaking #{pending[0]}"
        if len(pending) == 1 and game.pending()[0].kind.value == "speech"
        else (f"waiting for {', '.join(f'#{s}' for s in pending)}" if pending else "")
    )
    alive = len(game.living())
    phase = {"night": f"night {game.day}", "day": f"day {game.day}"}.get(game.phase.value, game.phase.value)
    text = f"{game.rules.name} · {phase} · {alive}/{game.n} alive"
    if game.over:
        text += f" · {result_text(game.winner)}"
    elif turn:
        text += f" · {turn}"
    if extra:
        text += f" · {extra}"
    return Text(text, style="reverse")
