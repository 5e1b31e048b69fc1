"""Nights: Night 0 (the black meeting, the maniac's side, aurora's checks) and Night k's resolution for every preset.

docs/rules.md §1.2, §1.8 and §3: the lover's visit first (edge), then the blacks' shot, then the checks, the maniac and
the blind heal at once, then the club doctor who sees the stretchers, then the best move. Deaths take effect together
at the end of the night; the morning announcement is the next day's first event (`flow._morning`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.engine.decisions import Decision, Kind, Request, request_record
from arena.engine.events import EventType, Phase, Vis
from arena.engine.roles import Role
from arena.engine.text import accept_text

if TYPE_CHECKING:
    from arena.engine.state import Flow
    from arena.engine.state import GameState as Game  # the Protocol the phase machine needs, not game.Game

_NONE = Decision()
# Enum members read every night, bound once as globals: on Python 3.11 reading `Role.DON` goes through
# `EnumType.__getattr__`'s slow path, about ten times the cost of a global (3.12 dropped that hook).
_DON, _SHERIFF, _MANIAC, _DOCTOR, _LOVER = Role.DON, Role.SHERIFF, Role.MANIAC, Role.DOCTOR, Role.LOVER
_SEATS, _BLACK, _MODERATOR = Vis.SEATS, Vis.BLACK, Vis.MODERATOR
_NIGHT, _SHOOT, _SHOT = Phase.NIGHT, Kind.SHOOT, EventType.SHOT
_PHASE_STARTED, _MAFIA_RESULT = EventType.PHASE_STARTED, EventType.MAFIA_RESULT
_K_SHERIFF, _K_DON_CHECK, _K_BLACK_MESSAGE = Kind.SHERIFF, Kind.DON_CHECK, Kind.BLACK_MESSAGE
_E_SHERIFF_CHECK, _E_DON_CHECK, _E_BLACK_MESSAGE = EventType.SHERIFF_CHECK, EventType.DON_CHECK, EventType.BLACK_MESSAGE
_KILL_ORDER, _WOKE_TO_BE_SEEN = EventType.KILL_ORDER, EventType.WOKE_TO_BE_SEEN


_request = request_record  # Request(seat=..., kind=..., ...) by slot writes


def _living(g: Game, role: Role) -> int:
    s = g.seat_of(role)  # 0 when the rules deal no such role
    return s if s and g.alive[s] else 0


def _living_target(g: Game, target: int | None) -> int | None:
    """R7.3: a seat removed after the request was made has left; an action aimed at him does nothing."""
    return target if target is not None and g.alive[target] else None


def _senior_black(g: Game) -> int:
    don = _living(g, _DON)
    if don:
        return don
    return next((s for s in g.black if g.alive[s]), 0)


def _checks_tonight(from_night: int | str, night: int) -> bool:
    return isinstance(from_night, int) and night >= from_night


def black_chat(g: Game, rounds: int, set_order: bool) -> Flow:
    """R2.2 / P23: a bounded exchange of black-only messages, the don first; on Night 0 he sets the kill order."""
    senior = _senior_black(g)
    order = [senior] + [s for s in g.black if s != senior]
    words, chars = g.budget(g.night0_rules.message_s)
    for rnd in range(max(rounds, 1 if set_order else 0)):
        for s in order:
            if not g.alive[s] or (rounds == 0 and s != senior):
                continue
            may_order = set_order and rnd == 0 and s == senior and g.night0_rules.kill_order_length > 0
            request = _request(
                s,
                _K_BLACK_MESSAGE,
                max_words=words,
                max_chars=chars,
                may_set_order=may_order,
                max_targets=g.night0_rules.kill_order_length if may_order else 0,
                options=tuple(x for x in g.living() if x != s) if may_order else (),
            )
            answers = yield {s: request}
            decision = answers.get(s)
            if decision is None:
                continue
            text, _ = accept_text(g, s, decision.text, words, chars, _BLACK)
            g.emit(_E_BLACK_MESSAGE, _BLACK, seat=s, text=text)
            if may_order and decision.targets:
                g.kill_order = tuple(decision.targets)
                g.emit(_KILL_ORDER, _BLACK, seat=s, seats=g.kill_order)


def night0(g: Game) -> Flow:
    r = g.rules
    g.day = 0
    g.phase = _NIGHT
    g.emit(_PHASE_STARTED, value="night")
    maniac = _living(g, _MANIAC)
    if maniac and r.maniac_side == "chosen_at_night0":
        choices = ("independent", "mafia_ally")
        answers = yield {
            maniac: _request(maniac, Kind.CHOOSE_SIDE, choices=choices, default=Decision(action=choices[0]))
        }
        chosen = answers.get(maniac)
        if chosen is not None:  # a maniac removed while choosing has left (R7.3)
            g.maniac_ally = chosen.action == "mafia_ally"
            g.emit(EventType.SIDE_CHOSEN, _SEATS, (maniac,), seat=maniac, value=choices[g.maniac_ally])
    if g.night0_rules.black_meeting:
        yield from black_chat(g, g.night0_rules.black_meeting_rounds, g.night0_rules.don_sets_order)
    for role in g.night0_rules.wake_to_be_seen:
        seat = _living(g, role)
        if seat:
            g.emit(_WOKE_TO_BE_SEEN, _MODERATOR, seat=seat, value=role._value_)
    yield from _abilities(g, 0, set(), None)


def _shot_request(g: Game, seat: int, may_miss: bool) -> Request:
    living = g.alive_seats
    options = living if g.night_rules.mafia_targets != "non_mafia" else tuple(s for s in living if not g.is_black(s))
    default = _NONE
    if not may_miss:
        planned = [s for s in g.kill_order if s in options]
        default = Decision(target=planned[0] if planned else options[0])
    return _request(seat, _SHOOT, options=options, allow_none=may_miss, default=default)


def _mafia_shot(g: Game) -> Flow:
    """R8.2 / P22: unanimous and blind, unanimous with eyes open, the don decides, or consensus with his tiebreak."""
    mode = g.night_rules.mafia_kill
    senior = _senior_black(g)
    shooters = [senior] if mode == "don_decides" else [s for s in g.black if g.alive[s]]
    if not shooters:
        return
    # P22: the don's pick decides (don_decides) or breaks the tie (consensus), so he cannot pass: no miss there
    # except by the lover
    answers = yield {
        s: _shot_request(g, s, mode not in ("don_decides", "consensus_don_tiebreak") or s != senior) for s in shooters
    }
    # R7.3: a shooter removed during the shot has left, and a shot at a seat removed meanwhile is no shot
    shots = {s: (_living_target(g, answers[s].target) if s in answers else None) for s in shooters if g.alive[s]}
    senior = _senior_black(g)  # the don may have left during the shot: the next senior black decides
    for s in sorted(shots):
        if mode == "unanimous_blind":
            g.emit(_SHOT, _SEATS, (s,), seat=s, target=shots[s])
        else:
            g.emit(_SHOT, _BLACK, seat=s, target=shots[s])
    picks = set(shots.values())
    if mode in ("unanimous_blind", "unanimous_point"):
        target = next(iter(picks)) if len(picks) == 1 else None
    elif mode == "don_decides":
        target = shots.get(senior)
    else:
        target = next(iter(picks)) if len(picks) == 1 else shots.get(senior)
    g.night_mafia_target = target


def _sheriff_answer(g: Game, target: int) -> str:
    role = g.roles[target]
    night = g.night_rules
    if night.sheriff_answer == "is_don":
        return "yes" if role is _DON else "no"
    black = g.is_black(target) or (role is _MANIAC and night.maniac_reads_black)
    if night.sheriff_answer == "colour":
        return "black" if black else "red"
    return "yes" if black else "no"


def _heal_options(g: Game, doctor: int) -> tuple[int, ...]:
    night = g.night_rules
    out = []
    for s in g.living():
        if night.doctor_no_repeat_target and s == g.doctor_last_heal:
            continue
        cap = night.doctor_self_heal_max
        if s == doctor and cap != "unlimited" and g.doctor_self_heals >= cap:
            continue
        out.append(s)
    return tuple(out)


def _abilities(g: Game, night: int, blocked: set[int], shot_target: int | None) -> Flow:
    """R8.3–R8.6 and §3: the don's and sheriff's checks, the maniac's kill and the blind heal, all at once."""
    r = g.night_rules
    batch: dict[int, Request] = {}

    living = g.alive_seats

    def others(seat: int) -> tuple[int, ...]:
        """The living seats but `seat`: the living tuple with him cut out (it is sorted)."""
        i = living.index(seat)
        return living[:i] + living[i + 1 :]

    don = _living(g, _DON)
    sheriff = _living(g, _SHERIFF)
    maniac = _living(g, _MANIAC) if night > 0 and r.maniac_kills else 0
    doctor = _living(g, _DOCTOR) if night > 0 and r.doctor == "blind_heal" else 0
    if don and _checks_tonight(r.don_check_from_night, night):
        if r.shot_checker_still_checks or shot_target != don:
            batch[don] = _request(don, _K_DON_CHECK, options=others(don), allow_none=True)
    if sheriff and _checks_tonight(r.sheriff_check_from_night, night):
        if r.shot_checker_still_checks or shot_target != sheriff:
            shots_left = r.sheriff_max_shots == "unlimited" or g.sheriff_shots < r.sheriff_max_shots
            actions = ("check", "shoot") if r.sheriff_can_shoot and shots_left and night > 0 else ("check",)
            batch[sheriff] = _request(sheriff, _K_SHERIFF, options=others(sheriff), allow_none=True, actions=actions)
    if maniac:
        batch[maniac] = _request(maniac, Kind.MANIAC_KILL, options=others(maniac), allow_none=True)
    if doctor:
        batch[doctor] = _request(doctor, Kind.HEAL, options=_heal_options(g, doctor), allow_none=True)
    for seat in sorted(blocked):
        if seat in batch:
            del batch[seat]
            g.emit(EventType.BLOCKED, _SEATS, (seat,), seat=seat)
    if not batch:
        return
    if don in batch:
        # R8.1: the don checks before the sheriff. Everyone is asked at once (when a seat is asked must tell it
        # nothing), but the don's answer is taken the moment he gives it, so no later removal can undo his check.
        g.at_once(don, lambda decision: _don_check(g, don, decision))
    answers = yield batch
    for seat in (sheriff, maniac, doctor):  # R8.1 order, after the don's check
        decision = answers.get(seat)
        if seat not in batch or decision is None:
            continue
        target = _living_target(g, decision.target)
        if seat == sheriff and target is not None:
            if (decision.action or "check") == "shoot":
                g.sheriff_shots += 1
                g.night_sheriff_target = target
                g.emit(EventType.SHERIFF_SHOT, _SEATS, (seat,), seat=seat, target=target)
            else:
                value = _sheriff_answer(g, target)
                g.emit(_E_SHERIFF_CHECK, _SEATS, (seat,), seat=seat, target=target, value=value)
        elif seat == maniac:
            g.night_maniac_target = target
            g.emit(EventType.MANIAC_KILL, _SEATS, (seat,), seat=seat, target=target)
        elif seat == doctor:
            g.night_heal = target
            g.emit(EventType.HEAL, _SEATS, (seat,), seat=seat, target=target, value="healed" if target else "none")


def _don_check(g: Game, don: int, decision: Decision) -> None:
    """R8.3: the don is told privately whether the player he names is the sheriff."""
    target = _living_target(g, decision.target)
    if target is not None:
        value = "sheriff" if g.roles[target] is _SHERIFF else "not_sheriff"
        g.emit(_E_DON_CHECK, _SEATS, (don,), seat=don, target=target, value=value)


def doomed(g: Game) -> list[int]:
    """R8.9, §3: the living seats the night's attacks decided so far kill at its end, in seat order: the blacks'
    shot, the maniac's kill and the sheriff's shot, less the player a heal already made saves (one heal stops every
    attacker on him unless the preset says otherwise, §5.5 ⚠)."""
    attacks = [t for t in (g.night_mafia_target, g.night_maniac_target, g.night_sheriff_target) if t is not None]
    heal = g.night_heal
    overwhelmed = not g.night_rules.heal_stops_all_attackers and attacks.count(heal or 0) > 1
    return sorted(v for v in dict.fromkeys(attacks) if g.alive[v] and (v != heal or overwhelmed))


def _stretchers(g: Game, victims: list[int]) -> Flow:
    """§3.1 step 5 (club): the doctor sees the victims and saves one; an ineligible pick passes to the next."""
    doctor = _living(g, _DOCTOR)
    if not doctor or not victims:
        return
    options = tuple(victims)
    attackers: tuple[str, ...] = ()
    if g.night_rules.doctor_sees_attackers:  # §5.5: who put each victim on the stretchers
        named = (
            ("mafia", g.night_mafia_target),
            ("maniac", g.night_maniac_target),
            ("sheriff", g.night_sheriff_target),
        )
        attackers = tuple("+".join(name for name, t in named if t == v) for v in options)
    g.emit(EventType.STRETCHERS, _SEATS, (doctor,), seats=options, roles=attackers)
    request = _request(doctor, Kind.HEAL, options=options, default=Decision(target=options[0]))
    answers = yield {doctor: request}
    decision = answers.get(doctor)
    if decision is None:  # removed at the stretchers: nobody is saved (R7.3)
        return
    victims = [v for v in victims if g.alive[v]]  # R7.3: a victim the judge removed meanwhile has left
    if not victims:  # the only victim was removed while the doctor chose: there is nobody left to save
        g.emit(EventType.HEAL, _SEATS, (doctor,), seat=doctor, target=None, value="none")
        g.emit(EventType.SAVE_RESULT, _MODERATOR, target=None)
        return
    pick = decision.target if decision.target is not None else victims[0]
    once = g.night_rules.doctor_once_per_player
    eligible = [v for v in victims if not (once and v in g.doctor_saved)]
    if g.night_rules.doctor_transfer_order == "ascending_seat":
        eligible.sort()
    saved = pick if pick in eligible else next((v for v in eligible if v != pick), None)
    g.emit(
        EventType.HEAL,
        _SEATS,
        (doctor,),
        seat=doctor,
        target=pick,
        value="saved" if saved == pick else "arms_crossed",
    )
    if saved is not None:
        g.doctor_saved.add(saved)
        if saved == doctor:
            g.doctor_self_heals += 1
    g.emit(EventType.SAVE_RESULT, _MODERATOR, target=saved)
    g.night_heal = saved


def _silent(g: Game, seat: int) -> bool:
    silent = g.rules.silent_night_exit
    role = g.roles[seat]
    return (
        ("sheriff" in silent and role is _SHERIFF)
        or ("black" in silent and g.is_black(seat))
        or ("maniac_if_ally" in silent and role is _MANIAC and g.maniac_ally)
    )


def night(g: Game, k: int) -> Flow:
    g.day = k
    g.phase = _NIGHT
    g.emit(_PHASE_STARTED, value="night")
    g.reset_night()
    living_at_dusk = len(g.living())
    blocked: set[int] = set()
    void = False
    lover = _living(g, _LOVER)
    if lover:
        nr = g.night_rules
        options = tuple(
            s
            for s in g.living()
            if (s != lover or nr.lover_self_visit) and (nr.lover_repeat_visit or s != g.lover_last_visit)
        )
        answers = yield {lover: _request(lover, Kind.VISIT, options=options, allow_none=True)}
        if lover in answers:  # a lover removed before her visit has left and visits nobody (R7.3)
            visit = _living_target(g, answers[lover].target)
            g.lover_last_visit = visit or 0
            g.emit(EventType.VISIT, _SEATS, (lover,), seat=lover, target=visit)
            if visit is not None:
                blocked.add(visit)
                void = g.is_black(visit) and g.night_rules.lover_voids_mafia_kill
    if g.night_rules.black_channel_every_night:
        yield from black_chat(g, 1, False)
    yield from _mafia_shot(g)
    miss_reason = "lover" if void else ("agreed" if g.night_mafia_target is not None else "disagreed")
    if void:
        g.night_mafia_target = None
    g.emit(_MAFIA_RESULT, _MODERATOR, target=g.night_mafia_target, value=miss_reason)
    if g.night_mafia_target is None and g.night_rules.miss_announced_at_night and not void:
        g.emit(EventType.MAFIA_MISS_ANNOUNCED, value="disagreed")
    yield from _abilities(g, k, blocked, g.night_mafia_target)
    attacks = [t for t in (g.night_mafia_target, g.night_maniac_target, g.night_sheriff_target) if t is not None]
    victims = [v for v in dict.fromkeys(attacks) if g.alive[v]]  # R7.3: a seat removed tonight is not killed too
    if g.night_rules.doctor == "sees_victims":
        yield from _stretchers(g, victims)
    elif g.night_heal is not None:
        heal = g.night_heal
        doctor = _living(g, _DOCTOR)
        g.doctor_last_heal = heal
        if heal == doctor:
            g.doctor_self_heals += 1
    elif g.night_rules.doctor == "blind_heal":
        g.doctor_last_heal = 0  # no heal (or blocked) tonight: it does not count for the limits
    deaths = doomed(g)
    yield from _best_move(g, k, deaths)
    deaths = [s for s in deaths if g.alive[s]]  # R7.3: a victim the judge removed during the best move has left
    for s in deaths:
        g.set_dead(s)
    left = bool(deaths) or len(g.living()) < living_at_dusk  # R10.4: a removal tonight is someone leaving too
    g.idle_nights = 0 if left else g.idle_nights + 1
    g.morning_deaths = deaths
    g.morning_lover_miss = void and g.night_rules.morning == "deaths_plus_lover_miss"
    g.night_last_words = [s for s in deaths if not _silent(g, s)]
    winner = g.check_win() if deaths else None
    if winner is not None:
        g.pending_winner = winner
    elif not left and g.idle_nights >= g.win_rules.draw_after_idle_rounds:
        g.finish("draw", f"{g.idle_nights} nights and the days between passed with nobody leaving")


def _best_move(g: Game, k: int, deaths: list[int]) -> Flow:
    """R8.7: only the Night-1 victim of the mafia names up to three seats, unless two left on Day 1."""
    bm = g.best_move_rules
    victim = g.night_mafia_target
    if not bm.enabled or k != 1 or victim is None or victim not in deaths:
        return
    if g.day1_vote_left >= bm.void_if_day1_left_at_least:
        return
    g.morning_deaths = deaths  # lets the departing victim answer
    options = tuple(s for s in g.living() if s != victim)
    answers = yield {victim: _request(victim, Kind.BEST_MOVE, options=options, max_targets=bm.seats)}
    decision = answers.get(victim)
    if decision is not None:
        g.emit(EventType.BEST_MOVE, seat=victim, seats=tuple(t for t in decision.targets if g.alive[t]))
