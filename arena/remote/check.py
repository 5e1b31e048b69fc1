"""`arena verify`'s check of a remote seat's exchanges (docs/remote.md, docs/transcripts.md).

Each exchange record is checked where it stands in the file, with the game replayed to the inputs before it:
- what was sent: the turn is rebuilt from the seat's own `view` (from the recorded `since`) and its pending request,
  with the recorded turn, attempt, refusal and deadline, and its digest must be the recorded one;
- what came back: `answer` is read again as the server read it, to the same decision or the same error.

Then every decision input of a remote seat (`decide`, `reject`, `default`) must be the outcome of its next exchange
for the same request: a decision the engine takes (the same, once the engine normalised it) or refuses with the
recorded reason, an unreadable answer's error, or a time-out; a re-ask must repeat the refusal before it. Exchanges
no input took (a batch the game stopped, or one a judge's removal withdrew) are left over, as unused model calls
are; a resume starts the seats' queues afresh. A seat whose input no exchange gave is a forged or foreign record.

It reads plain lists, not the transcript (the transcript imports this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Failure, Game, IllegalDecision, Input, Request, view
from arena.remote.protocol import AnswerError, Exchange, digest, read_answer, turn_body

_TIMED = ("timeout", "undelivered", "expired", "cancelled")  # cancelled: cut by a time limit the turn did not state


@dataclass
class _Open:
    number: int
    exchange: Exchange
    request: Request


class ExchangeCheck:
    """Walks the exchanges alongside verify's replay: `before_input(i, game)` before input i is replayed,
    `at_input(i, item, game)` for that input, `at_end(game)` once every input is in. Each returns a problem or None.
    `remote` is the set of remote seats at the start, `resumed` each resume record's (inputs before it, exchanges
    before it, its remote seats)."""

    def __init__(
        self,
        exchanges: Sequence[Exchange],
        positions: Sequence[int],
        remote: set[int],
        resumed: Sequence[tuple[int, int, set[int]]] = (),
    ) -> None:
        self.exchanges = exchanges
        self.positions = positions
        self.remote = set(remote)
        self.resumed = list(resumed)
        self.next = 0
        self.queue: dict[int, list[_Open]] = {}
        self.last_reason: dict[int, str] = {}

    def before_input(self, index: int, game: Game) -> str | None:
        while True:
            if self.resumed and self.resumed[0][0] <= index and self.resumed[0][1] <= self.next:
                _, _, seats = self.resumed.pop(0)
                self.queue.clear()  # a batch a crash or a stop cut short is asked again
                self.remote = set(seats)
                continue
            limit = self.resumed[0][1] if self.resumed else len(self.exchanges)
            if self.next < min(limit, len(self.exchanges)) and self.positions[self.next] <= index:
                problem = self._sent(self.next, game)
                self.next += 1
                if problem:
                    return problem
                continue
            return None

    def _sent(self, number: int, game: Game) -> str | None:
        """Check one exchange's turn against the replay, and queue it for the input it became."""
        exchange = self.exchanges[number]
        seat = exchange.seat
        where = f"exchange record {number} (seat {seat})"
        if seat not in self.remote:
            return f"{where}: the seat is not a remote seat here"
        request = game.request_for(seat)
        if request is None:
            return None  # its request was withdrawn (a judge's removal): nothing to check it against
        if exchange.request_kind != request.kind.value:
            return f"{where}: recorded for a {exchange.request_kind} request, the replay asks {request.kind.value}"
        if exchange.turn:
            obs = view(game, seat, exchange.since)
            if obs.next_number != exchange.upto:
                return f"{where}: it sent events {exchange.since}-{exchange.upto}, the seat had {obs.next_number}"
            body = turn_body(obs, request, turn=exchange.turn, attempt=exchange.attempt, problem=exchange.problem,
                             deadline_s=exchange.deadline_s)  # fmt: skip
            if digest(body) != exchange.sent:
                return f"{where}: the turn it records is not the one the replay gives the seat"
        elif exchange.outcome != "expired":
            return f"{where}: no turn was sent, yet its outcome is {exchange.outcome}"
        if exchange.answer is not None:
            try:
                turn, _ = read_answer(exchange.answer)
            except AnswerError as exc:
                if exchange.outcome != "unreadable" or exchange.error != str(exc):
                    return f"{where}: its answer reads as unreadable ({exc}), the record says {exchange.outcome}"
            else:
                if exchange.outcome != "answered" or turn != exchange.turn:
                    return f"{where}: its answer reads as an answer to turn {turn}, the record says {exchange.outcome}"
        elif exchange.outcome == "answered":
            return f"{where}: answered, but no answer is recorded"
        self.queue.setdefault(seat, []).append(_Open(number, exchange, request))
        return None

    def at_input(self, index: int, item: Input, game: Game) -> str | None:
        if item.op not in ("decide", "reject", "default") or item.seat not in self.remote:
            return None
        seat = item.seat
        request = game.request_for(seat)
        queue = self.queue.setdefault(seat, [])
        while queue and queue[0].request != request:  # an answer no input took (its batch never applied)
            queue.pop(0)
        if not queue:
            return f"input {index} (seat {seat}, {item.op}): no exchange record of the remote seat gave it"
        found = queue.pop(0)
        problem = self._matches(found, item, game)
        if problem:
            return f"input {index} (seat {seat}) and exchange record {found.number}: {problem}"
        self.last_reason[seat] = item.reason
        return None

    def _matches(self, found: _Open, item: Input, game: Game) -> str | None:
        exchange = found.exchange
        if exchange.attempt > 1 and exchange.problem != self.last_reason.get(item.seat):
            return "the re-ask repeats no refusal recorded before it"
        if exchange.attempt == 1 and exchange.problem is not None:
            return "a first ask carries a refusal"
        if exchange.outcome == "answered":
            assert exchange.answer is not None  # checked in `_sent`
            _, decision = read_answer(exchange.answer)
            try:
                taken = game.check(item.seat, decision)
            except IllegalDecision as exc:
                if item.op == "decide" or item.reason != exc.reason:
                    return f"the engine refuses its answer ({exc.reason}), the input says {item.op} {item.reason!r}"
                return None
            if item.op != "decide":
                return f"the engine takes its answer, the input says {item.op} {item.reason!r}"
            if taken != item.decision:
                return "the input's decision is not its answer"
            return None
        if item.op == "decide":
            return f"a decision, but the exchange was {exchange.outcome}"
        if exchange.outcome == "unreadable":
            if not (item.code in (Failure.ERROR, Failure.MALFORMED) and (exchange.error or "") in item.reason):
                return f"the input's reason is not the unreadable answer's ({exchange.error})"
            return None
        if exchange.outcome in _TIMED:
            return None if item.code is Failure.TIMEOUT else "a time-out, but the input says otherwise"
        return f"an exchange {exchange.outcome} became an input"

    def at_end(self, game: Game) -> str | None:
        return self.before_input(2**62, game)
