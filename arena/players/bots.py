"""The built-in bots: the offline default seats and the baseline every LLM configuration is rated against.

`RandomBot` answers every request with a random legal decision. `HeuristicBot` plays sensibly: the sheriff checks
and reveals the blacks he finds; the blacks shoot in the don's order (the don names the night's target as his "main
suspect" in his day speech, so a blind shot can still be unanimous), hunt a sheriff who shows himself or whom the don
found, and one of them sometimes claims sheriff falsely; the town nominates and votes on checked blacks and on
suspicious voting. Speeches come from the templates in `prompts/bots/<lang>/`.

Both bots see only their Observation. Every random draw comes from a generator seeded by (game seed, seat, the
number of events the seat has seen, the request), so a bot's decisions depend on the seed and on what it has seen,
never on a stream position or on events hidden from it: a game resumed from its transcript plays on exactly as the
uninterrupted one.
"""

from __future__ import annotations

import random
from functools import cached_property

from arena.engine import Claim, Decision, Kind, Observation, Request, Role, RuleSet, SpeechKind, Team
from arena.players.base import Answer, Player
from arena.players.bot_lines import Lines, reader
from arena.players.bot_memory import Memory, ProbeOffset, Reads, beliefs, black_threat, town_reads
from arena.players.random_policy import random_decision

FAKE_CLAIM_TEAM = 0.5  # how often the don designates a black to claim sheriff falsely
FAKE_CLAIM_EARLY = 0.3  # how often that black claims on Day 2+ before any sheriff has shown himself
RANDOM_NOMINATION = 0.3  # a red seat with no read nominates someone at random this often (Day 1 talk)
BLACK_NOMINATION = 0.6
CRITICAL_ALIVE = 5  # at this many living players a red seat with no read nominates anyway


def decision_rng(
    salt: str, seed: int, seat: int, obs: Observation, request: Request, problem: str | None, probes: int = 0
) -> random.Random:
    """A generator for one decision: a function of the seed, the seat, what it has seen and what it is asked.
    `probes` (the events belief probes added) is discounted, so probes on or off the bot plays the same."""
    key = (
        f"{salt}:{seed}:{seat}:{obs.next_number - probes}:{request.kind}:{request.speech}:{request.subject}:"
        f"{request.candidate}:{len(request.options)}:{problem or ''}"
    )
    return random.Random(key)


class RandomBot(Player):
    """Legal decisions drawn at random from what each request allows."""

    def __init__(self, seat: int, seed: int) -> None:
        self.seat = seat
        self.seed = seed
        self.probes = ProbeOffset()

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        probes = self.probes.update(observation.events)
        rng = decision_rng("random", self.seed, self.seat, observation, request, problem, probes)
        return Answer(decision=random_decision(rng, request))


class HeuristicBot(Player):
    """A sensible rule-based player; see the module docstring."""

    def __init__(self, seat: int, seed: int, rules: RuleSet, lang: str = "en") -> None:
        self.seat = seat
        self.seed = seed
        self.rules = rules
        self.lines = Lines(lang)
        self.memory = Memory(seat, sheriff_answer=rules.night.sheriff_answer)
        self.probes = ProbeOffset()

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        self.memory.update(observation.events)
        probes = self.probes.update(observation.events)
        if request.kind is Kind.PROBE:  # answered from memory alone, with no random draw
            blacks = self.rules.count(Role.MAFIA) + self.rules.count(Role.DON)
            return Answer(decision=Decision(beliefs=beliefs(self.memory, observation, request.options, blacks)))
        rng = decision_rng("heuristic", self.seed, self.seat, observation, request, problem, probes)
        if problem is not None:  # the engine refused a heuristic answer: fall back to a surely legal one
            return Answer(decision=random_decision(rng, request))
        return Answer(decision=_Turn(self, observation, request, rng).decide())


class _Turn:
    """One decision of a HeuristicBot: its memory, the request, and the reads computed on demand."""

    def __init__(self, bot: HeuristicBot, obs: Observation, request: Request, rng: random.Random) -> None:
        self.bot = bot
        self.m = bot.memory
        self.obs = obs
        self.req = request
        self.rng = rng
        self.me = bot.seat
        self.lines = bot.lines
        self.black = obs.team is Team.BLACK
        self.alive = set(obs.alive)
        day_rng = random.Random(f"noise:{bot.seed}:{self.me}:{obs.day}")
        self.noise = [day_rng.random() for _ in range(obs.players + 1)]  # stable tie-breaks for the whole day

    # ----- reads ----------------------------------------------------------------------------------------------
    @cached_property
    def reads(self) -> Reads:
        return town_reads(self.m, self.obs)

    def score(self, seat: int) -> float:
        return self.reads.score.get(seat, 0.0)

    def reds(self, options: tuple[int, ...] | list[int]) -> list[int]:
        return [s for s in options if s not in self.m.black]

    def town_pick(self, options: tuple[int, ...] | list[int], *, lowest: bool = False) -> int | None:
        """The most suspicious of `options` (or the least, to protect), never me or my sheriff if avoidable."""
        keep = [s for s in options if s != self.me and s != self.reads.sheriff] or list(options)
        if not keep:
            return None
        sign = -1.0 if lowest else 1.0
        return max(keep, key=lambda s: sign * self.score(s) + self.noise[s])

    def team_pick(self, options: tuple[int, ...] | list[int], *, follow_don: bool = True) -> int | None:
        """The black team's shared choice, from what every black saw: a red sheriff claimant, then the don's named
        suspect of today, then the kill order, then the most dangerous red."""
        reds = self.reds(options)
        if not reds:
            return None
        m = self.m
        claimants = sorted((c for c in m.claims if c in reds), key=lambda c: m.claims[c].seq)
        if claimants:
            return claimants[0]
        named = m.named.get((self.obs.day, m.don)) if follow_don and m.don in self.alive else None
        if named in reds:
            return named
        for seat in m.kill_order:
            if seat in reds:
                return seat
        threat = black_threat(m)
        return max(reds, key=lambda s: (threat.get(s, 0.0), -s))

    def don_target(self) -> int | None:
        """What the don names in his speech (and so what the team shoots tonight): a claimant, the sheriff he
        found, or the team's usual choice."""
        reds = self.reds([s for s in self.obs.alive if s != self.me])
        m = self.m
        if not any(c in reds for c in m.claims):
            found = [s for s, hit in m.don_checks.items() if hit and s in reds]
            if found:
                return found[0]
        return self.team_pick(reds, follow_don=False)  # my own earlier speech today must not steer me

    def preferred(self, options: tuple[int, ...] | list[int]) -> int | None:
        """Whom this seat wants out of `options` (a vote, a ballot)."""
        if self.black:
            return self.team_pick(options) or (options[0] if options else None)
        return self.town_pick(options)

    # ----- dispatch -------------------------------------------------------------------------------------------
    def decide(self) -> Decision:
        kind = self.req.kind
        if kind is Kind.SPEECH:
            return self.speech()
        if kind is Kind.VOTE:
            return Decision(vote=self.vote())
        if kind is Kind.BALLOT:
            return Decision(target=self.preferred(self.req.options))
        if kind is Kind.SHOOT:
            return Decision(target=self.shoot())
        if kind is Kind.DON_CHECK:
            return Decision(target=self.don_check())
        if kind is Kind.SHERIFF:
            return self.sheriff()
        if kind is Kind.MANIAC_KILL:
            return Decision(target=self.maniac_kill())
        if kind is Kind.HEAL:
            return Decision(target=self.heal())
        if kind is Kind.VISIT:
            return Decision(target=self.town_pick(self.req.options))
        if kind is Kind.BEST_MOVE:
            return Decision(targets=self.best_move())
        if kind is Kind.BLACK_MESSAGE:
            return self.black_message()
        if kind is Kind.CHOOSE_SIDE:
            choices = self.req.choices
            return Decision(action=choices[self.rng.randrange(len(choices))]) if choices else self.req.default
        return self.req.default

    # ----- votes ----------------------------------------------------------------------------------------------
    def vote(self) -> bool:
        req = self.req
        if req.subject == "lift":
            tied = set(req.candidates)
            if self.me in tied:
                return False
            if self.black:
                return not (tied & set(self.m.black))
            return self.reads.sheriff not in tied and any(self.score(s) >= 5 for s in tied)
        candidate = req.candidate
        if candidate is None:
            return False
        if req.subject in ("acquittal", "threshold"):
            if candidate == self.me:
                return False
            if self.black:
                return candidate not in self.m.black
            return candidate != self.reads.sheriff and self.score(candidate) >= 0
        return candidate == self.preferred(req.candidates or (candidate,))

    # ----- nights ---------------------------------------------------------------------------------------------
    def shoot(self) -> int | None:
        pick = self.team_pick(self.req.options)
        if pick is None and not self.req.allow_none and self.req.options:
            return self.req.options[0]
        return pick

    def don_check(self) -> int | None:
        m = self.m
        unchecked = [s for s in self.reds(self.req.options) if s not in m.don_checks and s not in m.claims]
        if not unchecked:
            return None
        threat = black_threat(m)
        return max(unchecked, key=lambda s: threat.get(s, 0.0) + self.noise[s])

    def sheriff(self) -> Decision:
        m, req = self.m, self.req
        blacks = [s for s, v in m.my_checks.items() if v == "black" and s in req.options]
        if "shoot" in req.actions and blacks:
            return Decision(action="shoot", target=blacks[0])
        unchecked = [s for s in req.options if s not in m.my_checks and s not in m.claims]
        if not unchecked:
            unchecked = [s for s in req.options if s not in m.my_checks]
        if not unchecked:
            return Decision(action="check", target=None)
        return Decision(action="check", target=max(unchecked, key=lambda s: self.score(s) + self.noise[s]))

    def maniac_kill(self) -> int | None:
        options = self.req.options
        sheriff = self.reads.sheriff
        if sheriff in options:
            return sheriff
        if self.m.side == "mafia_ally":
            return self.town_pick(options, lowest=True)
        return self.town_pick(options)

    def heal(self) -> int | None:
        options = self.req.options
        if not options:
            return None
        sheriff = self.reads.sheriff
        if sheriff in options and sheriff != self.me:
            return sheriff
        if self.me in options and (len(options) <= 3 or self.rng.random() < 0.3):
            return self.me
        others = [s for s in options if s != self.me] or list(options)
        return max(others, key=lambda s: -self.score(s) + self.noise[s])

    def best_move(self) -> tuple[int, ...]:
        options = self.req.options
        ranked = sorted((s for s in options if self.score(s) > 0), key=lambda s: -self.score(s) - self.noise[s] / 10)
        return tuple(ranked[: self.req.max_targets])

    def black_message(self) -> Decision:
        req, rng, lines = self.req, self.rng, self.lines
        if self.obs.role is not Role.DON or self.obs.day > 0:
            return Decision(text=lines.say("black_ack", rng))
        mates = [s for s in self.m.black if s != self.me] or [self.me]
        fake = rng.choice(mates) if rng.random() < FAKE_CLAIM_TEAM else 0
        if req.may_set_order:
            reds = self.reds(req.options)
            order = rng.sample(reds, min(req.max_targets, len(reds)))
            text = lines.say("black_order", rng, order=", ".join(map(str, order)), fake=fake)
            return Decision(text=_trim(text, req.max_words), targets=tuple(order))
        return Decision(text=_trim(lines.say("black_no_order", rng, fake=fake), req.max_words))

    # ----- speeches -------------------------------------------------------------------------------------------
    def speech(self) -> Decision:
        req = self.req
        kind = req.speech or SpeechKind.REGULAR
        if kind is SpeechKind.INTRO:
            return Decision(text=_trim(self.lines.say("intro", self.rng, me=self.me), req.max_words))
        if self.black:
            body, target = self.black_speech(kind)
        elif self.obs.role is Role.SHERIFF:
            body, target = self.sheriff_speech(kind)
        else:
            body, target = self.town_speech(kind)
        answer = self.reply() if kind in (SpeechKind.REGULAR, SpeechKind.SHORT, SpeechKind.TIE) else None
        if answer is not None:
            body.insert(0, answer)
        nominate: tuple[int, ...] = ()
        fresh = target is not None and target in req.nominate_options and target not in self.obs.nominees
        if req.may_nominate and fresh and target is not None:
            chance = BLACK_NOMINATION if self.black and target not in self.m.claims else 1.0
            if self.rng.random() < chance:
                nominate = (target,)
                body.append(("nominate", self.lines.say("nominate", self.rng, seat=target)))
        extra = req.may_request_extra and target is not None and self.rng.random() < 0.2
        text = self.compose(kind, body, req.max_words)
        return Decision(text=text, nominate=nominate, extra=extra, claim=_claim(text))

    def compose(self, kind: SpeechKind, body: list[tuple[str, str]], max_words: int) -> str:
        """Opening, body and closing lines; optional lines are dropped first when the budget is tight."""
        say, rng = self.lines.say, self.rng
        parts: list[tuple[str, str]] = []
        if kind is SpeechKind.LAST_WORD:
            parts.append(("must", say("last_word", rng)))
        elif kind in (SpeechKind.REGULAR, SpeechKind.SHORT):
            parts.append(("optional", say("open", rng)))
        parts.extend(body)
        if kind is not SpeechKind.NOMINATE_ONLY:
            parts.append(("optional", say("close", rng)))
        order = ["optional", "trust", "plan", "reply", "suspect", "claim", "nominate", "must"]
        while len(" ".join(t for _, t in parts).split()) > max_words and len(parts) > 1:
            drop = min(range(len(parts)), key=lambda i: (order.index(parts[i][0]) if parts[i][0] in order else 0, -i))
            parts.pop(drop)
        return _trim(" ".join(t for _, t in parts if t), max_words)

    def suspect_line(self, seat: int, code: str, by: int = 0) -> tuple[str, str]:
        if by == self.me or (self.black and by in self.m.black):  # never cite myself (or my team) in the third person
            code, by = "votes", 0
        reason = self.lines.reason(code, by, self.rng)
        return ("suspect", self.lines.say("suspect", self.rng, seat=seat, reason=reason))

    def reply(self) -> tuple[str, str] | None:
        """A reply to the latest seat that accused me (named me its suspect) or nominated me, today or yesterday:
        what was said about me, answered in the first person."""
        m, day = self.m, self.obs.day
        nominated = [by for d, by, target in m.nominations if target == self.me and d == day and by != self.me]
        if nominated:
            return ("reply", self.lines.say("reply_nominated", self.rng, by=nominated[-1]))
        accusers = [s for (d, s), named in m.named.items() if named == self.me and s != self.me and d >= day - 1]
        if accusers:
            return ("reply", self.lines.say("reply", self.rng, by=accusers[-1]))
        return None

    def top_suspect(self) -> tuple[int | None, str, int]:
        others = [s for s in self.obs.alive if s != self.me]
        pick = self.town_pick(others)
        if pick is None or self.score(pick) < 2:
            return None, "", 0
        code, by, _ = self.reads.reason.get(pick, ("votes", 0, 0.0))
        return pick, code, by

    def town_speech(self, kind: SpeechKind) -> tuple[list[tuple[str, str]], int | None]:
        say, rng = self.lines.say, self.rng
        body: list[tuple[str, str]] = []
        target, code, by = self.top_suspect()
        critical = len(self.obs.alive) <= CRITICAL_ALIVE  # a day without a vote now hands the game to the mafia
        if target is None and self.req.may_nominate and (critical or rng.random() < RANDOM_NOMINATION):
            target, code = self.town_pick([s for s in self.obs.alive if s != self.me]), "gut"
        if kind is SpeechKind.TIE:
            line = say("defence", rng, seat=target) if target else say("defence_plain", rng)
            return [("must", line)], None
        if target is None:
            body.append(("suspect", say("no_read", rng)))
        else:
            body.append(self.suspect_line(target, code, by))
            if self.score(target) >= 5:
                body.append(("plan", say("vote_plan", rng, seat=target)))
        sheriff = self.reads.sheriff
        if sheriff and sheriff != self.me and sheriff in self.alive:
            body.append(("trust", say("trust", rng, seat=sheriff)))
        return body, target

    def sheriff_speech(self, kind: SpeechKind) -> tuple[list[tuple[str, str]], int | None]:
        m, say, rng = self.m, self.lines.say, self.rng
        blacks = [s for s, v in m.my_checks.items() if v == "black" and s in self.alive]
        fakes = [c for c in m.claims if c != self.me and c in self.alive]
        reveal = (
            blacks
            or fakes
            or self.me in m.claims
            or kind in (SpeechKind.LAST_WORD, SpeechKind.TIE)
            or len(self.obs.alive) <= 5
        )
        if not reveal:
            return self.town_speech(kind)
        body: list[tuple[str, str]] = []
        checks = list(m.my_checks.items())
        if checks:
            body.append(("claim", say("sheriff_claim", rng, checks=self.lines.checks(checks))))
        else:
            body.append(("claim", say("sheriff_claim_nothing", rng)))
        for fake in fakes:
            body.append(("claim", say("counter_claim", rng, seat=fake)))
        target = blacks[0] if blacks else (fakes[0] if fakes else None)
        if target is not None:
            body.append(self.suspect_line(target, "my_check" if blacks else "counter_claim", self.me))
            body.append(("plan", say("vote_plan", rng, seat=target)))
        return body, target

    def black_speech(self, kind: SpeechKind) -> tuple[list[tuple[str, str]], int | None]:
        m, say, rng = self.m, self.lines.say, self.rng
        others = [s for s in self.obs.alive if s != self.me]
        target = self.don_target() if self.obs.role is Role.DON else self.team_pick(others)
        if kind is SpeechKind.TIE:
            line = say("defence", rng, seat=target) if target else say("defence_plain", rng)
            return [("must", line)], None
        body: list[tuple[str, str]] = []
        if self.fake_claim():
            claim = m.claims.get(self.me)
            checks = dict(claim.checks) if claim else {}
            rivals = [c for c in m.claims if c != self.me and c not in m.black]
            for rival in rivals:
                checks.setdefault(rival, "black")
            if not checks:
                accusable = [s for s in self.reds(others) if s != target] or self.reds(others)
                if accusable:
                    checks[max(accusable, key=lambda s: self.noise[s])] = "black"
            body.append(("claim", say("sheriff_claim", rng, checks=self.lines.checks(list(checks.items())))))
            for rival in rivals:
                body.append(("claim", say("counter_claim", rng, seat=rival)))
            accused = [s for s, v in checks.items() if v == "black" and s in self.alive]
            if accused:
                target = accused[0]
        if target is None:
            body.append(("suspect", say("no_read", rng)))
            return body, None
        code, by, _ = self.reads.reason.get(target, ("quiet" if self.obs.day > 1 else "gut", 0, 0.0))
        if code in ("my_check", "fake_claim", "revealed"):
            code, by = "votes", 0
        if code == "counter_claim" and not by:
            code = "votes"
        body.append(self.suspect_line(target, code, by))
        return body, target

    def fake_claim(self) -> bool:
        """The designated black claims sheriff against a red claimant, or now and then before one shows up."""
        m = self.m
        if m.fake_claimer != self.me or self.obs.day < 1:
            return False
        if self.me in m.claims or any(c not in m.black for c in m.claims if c in self.alive):
            return True
        early = random.Random(f"fake:{self.bot.seed}:{self.me}").random() < FAKE_CLAIM_EARLY
        return early and self.obs.day >= 2 and self.req.speech is SpeechKind.REGULAR


def _claim(text: str) -> Claim | None:
    """The structured claim of a composed speech: what the other bots read from the same words."""
    reading = reader().read(text)
    if not reading.claims_sheriff:
        return None
    black = tuple(dict.fromkeys(s for s, v in reading.checks if v == "black"))
    red = tuple(dict.fromkeys(s for s, v in reading.checks if v != "black" and s not in black))
    return Claim(role=Role.SHERIFF.value, black=black, red=red)


def _trim(text: str, max_words: int) -> str:
    words = text.split()
    return text if len(words) <= max_words else " ".join(words[:max_words])
