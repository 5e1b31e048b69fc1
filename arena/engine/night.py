"""Nights: Night 0 (the black meeting, the maniac's side, aurora's checks) and Night k's resolution for every preset.

docs/rules.md §1.2, §1.8 and §3: the lover's visit first (edge), then the blacks' shot, then the checks, the maniac and
the blind heal at once, then the club doctor who sees the stretchers, then the best move. Deaths take effect together
at the end of the night; the morning announcement is the next day's first event (`flow._morning`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from arena.engine.decisions import Decision, Kind, Request, request_record
from arena.engine.events import EventType, Phase, Vis
from arena.engine.outcome import Outcome, Termination
from arena.engine.roles import Role
from arena.engine.text import accept_text

if TYPE_CHECKING:
    from arena.engine.state import Answers, Batch, Flow, GameState

_NONE = Decision()


def _living(g: GameState, role: Role) -> int:
    s = g.seat_of(role)  # 0 when the rules deal no such role
    return s if s and g.alive[s] else 0


def _living_target(g: GameState, target: int | None) -> int | None:
    """R7.3: a seat removed after the request was made has left; an action aimed at him does nothing."""
    return target if target is not None and g.alive[target] else None


def _senior_black(g: GameState) -> int:
    don = _living(g, Role.DON)
    if don:
        return don
    return next((s for s in g.black if g.alive[s]), 0)


def _checks_tonight(from_night: int | str, night: int) -> bool:
    return isinstance(from_night, int) and night >= from_night


def black_chat(g: GameState, rounds: int, set_order: bool) -> Flow:
    """R2.2 / P23: a bounded exchange of black-only messages, the don first; on Night 0 he sets the kill order."""
    senior = _senior_black(g)
    order = [senior] + [s for s in g.black if s != senior]
    words, chars = g.budget(g.rules.night0.message_s)
    for rnd in range(max(rounds, 1 if set_order else 0)):
        for s in order:
            if not g.alive[s] or (rounds == 0 and s != senior):
                continue
            may_order = set_order and rnd == 0 and s == senior and g.rules.night0.kill_order_length > 0
            request = request_record(
                s,
                Kind.BLACK_MESSAGE,
                max_words=words,
                max_chars=chars,
                may_set_order=may_order,
                max_targets=g.rules.night0.kill_order_length if may_order else 0,
                options=tuple(x for x in g.living() if x != s) if may_order else (),
            )
            answers = yield {s: request}
            decision = answers.get(s)
            if decision is None:
                continue
            text, _ = accept_text(g, s, decision.text, words, chars, Vis.BLACK)
            g.emit(EventType.BLACK_MESSAGE, Vis.BLACK, seat=s, text=text)
            if may_order and decision.targets:
                g.kill_order = tuple(decision.targets)
                g.emit(EventType.KILL_ORDER, Vis.BLACK, seat=s, seats=g.kill_order)


def night0(g: GameState) -> Flow:
    r = g.rules
    g.day = 0
    g.phase = Phase.NIGHT
    g.emit(EventType.PHASE_STARTED, value="night")
    maniac = _living(g, Role.MANIAC)
    if maniac and r.maniac_side == "chosen_at_night0":
        choices = ("independent", "mafia_ally")
        answers = yield {
            maniac: request_record(maniac, Kind.CHOOSE_SIDE, choices=choices, default=Decision(action=choices[0]))
        }
        chosen = answers.get(maniac)
        if chosen is not None:  # a maniac removed while choosing has left (R7.3)
            g.maniac_ally = chosen.action == "mafia_ally"
            g.emit(EventType.SIDE_CHOSEN, Vis.SEATS, (maniac,), seat=maniac, value=choices[g.maniac_ally])
    if g.rules.night0.black_meeting:
        yield from black_chat(g, g.rules.night0.black_meeting_rounds, g.rules.night0.don_sets_order)
    for role in g.rules.night0.wake_to_be_seen:
        seat = _living(g, role)
        if seat:
            g.emit(EventType.WOKE_TO_BE_SEEN, Vis.MODERATOR, seat=seat, value=role.value)
    yield from _abilities(g, 0, set(), None)


def _shot_request(g: GameState, seat: int, may_miss: bool) -> Request:
    """R8.2, P22, P24: a black's shot at any living player (a teammate too) or, where the rules say so, at a non-black
    one; one who may not miss (P22) defaults to the first living seat of the Night-0 kill order (R2.2)."""
    living = g.alive_seats
    options = living if g.rules.night.mafia_targets != "non_mafia" else tuple(s for s in living if not g.is_black(s))
    default = _NONE
    if not may_miss:
        planned = [s for s in g.kill_order if s in options]
        default = Decision(target=planned[0] if planned else options[0])
    return request_record(seat, Kind.SHOOT, options=options, allow_none=may_miss, default=default)


def _mafia_shot(g: GameState) -> Flow:
    """R8.2 / P22: unanimous and blind, unanimous with eyes open, the don decides, or consensus with his tiebreak."""
    mode = g.rules.night.mafia_kill
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
            g.emit(EventType.SHOT, Vis.SEATS, (s,), seat=s, target=shots[s])
        else:
            g.emit(EventType.SHOT, Vis.BLACK, seat=s, target=shots[s])
    picks = set(shots.values())
    if mode in ("unanimous_blind", "unanimous_point"):
        target = next(iter(picks)) if len(picks) == 1 else None
    elif mode == "don_decides":
        target = shots.get(senior)
    else:
        target = next(iter(picks)) if len(picks) == 1 else shots.get(senior)
    g.night_mafia_target = target


def _sheriff_answer(g: GameState, target: int) -> str:
    """R1.3, R8.4, P26: the colour (black for a mafioso or the don; the maniac reads black only where the rules say),
    or the classic and edge questions' yes or no: is this the don, is this black."""
    role = g.roles[target]
    night = g.rules.night
    if night.sheriff_answer == "is_don":
        return "yes" if role is Role.DON else "no"
    black = g.is_black(target) or (role is Role.MANIAC and night.maniac_reads_black)
    if night.sheriff_answer == "colour":
        return "black" if black else "red"
    return "yes" if black else "no"


def _heal_options(g: GameState, doctor: int) -> tuple[int, ...]:
    """P27, §3.2 step 5: the blind heal's choices: any living player, but not the one healed the night before where
    the rules forbid a repeat, nor the doctor himself past his self-heals."""
    night = g.rules.night
    out = []
    for s in g.living():
        if night.doctor_no_repeat_target and s == g.doctor_last_heal:
            continue
        cap = night.doctor_self_heal_max
        if s == doctor and cap != "unlimited" and g.doctor_self_heals >= cap:
            continue
        out.append(s)
    return tuple(out)


def _abilities(g: GameState, night: int, blocked: set[int], shot_target: int | None) -> Flow:
    """R8.3–R8.6 and §3: the don's and sheriff's checks, the maniac's kill and the blind heal, all at once; a seat the
    lover visited is blocked (§3.2). Each is taken in R8.1's order: the don's check the moment he answers."""
    r = g.rules.night
    don, sheriff = _living(g, Role.DON), _living(g, Role.SHERIFF)
    maniac = _living(g, Role.MANIAC) if night > 0 and r.maniac_kills else 0  # P29
    doctor = _living(g, Role.DOCTOR) if night > 0 and r.doctor == "blind_heal" else 0  # P27 (edge)
    batch: dict[int, Request] = {}
    if don and _checks(g, r.don_check_from_night, night, don, shot_target):
        batch[don] = request_record(don, Kind.DON_CHECK, options=_others(g, don), allow_none=True)
    if sheriff and _checks(g, r.sheriff_check_from_night, night, sheriff, shot_target):
        batch[sheriff] = _sheriff_request(g, sheriff, night)
    if maniac:
        batch[maniac] = request_record(maniac, Kind.MANIAC_KILL, options=_others(g, maniac), allow_none=True)
    if doctor:
        batch[doctor] = request_record(doctor, Kind.HEAL, options=_heal_options(g, doctor), allow_none=True)
    for seat in sorted(blocked):  # §3.2: arms crossed
        if seat in batch:
            del batch[seat]
            g.emit(EventType.BLOCKED, Vis.SEATS, (seat,), seat=seat)
    if not batch:
        return
    if don in batch:
        # R8.1: the don checks before the sheriff. Everyone is asked at once (when a seat is asked must tell it
        # nothing), but the don's answer is taken the moment he gives it, so no later removal can undo his check.
        g.at_once(don, lambda decision: _don_check(g, don, decision))
    answers = yield batch
    for seat, act in ((sheriff, _sheriff_acts), (maniac, _maniac_kills), (doctor, _blind_heal)):  # R8.1 order
        decision = answers.get(seat)
        if seat in batch and decision is not None:  # `batch` lost a seat the judge removed meanwhile (R7.3)
            act(g, seat, decision)


def _others(g: GameState, seat: int) -> tuple[int, ...]:
    return tuple(s for s in g.alive_seats if s != seat)


def _checks(g: GameState, from_night: int | str, night: int, seat: int, shot_target: int | None) -> bool:
    """R8.3–R8.6, P25: a living checker checks from his rules' first night, once a night, even if shot this very
    night (R8.5 ⚠) unless the rules say otherwise."""
    return _checks_tonight(from_night, night) and (g.rules.night.shot_checker_still_checks or shot_target != seat)


def _sheriff_request(g: GameState, sheriff: int, night: int) -> Request:
    """R8.4, P26: a check of one other player or, where the rules let him (club), a shot while he has shots left."""
    r = g.rules.night
    shots_left = r.sheriff_max_shots == "unlimited" or g.sheriff_shots < r.sheriff_max_shots
    actions = ("check", "shoot") if r.sheriff_can_shoot and shots_left and night > 0 else ("check",)
    return request_record(sheriff, Kind.SHERIFF, options=_others(g, sheriff), allow_none=True, actions=actions)


def _sheriff_acts(g: GameState, sheriff: int, decision: Decision) -> None:
    """R8.4, R1.3: he is told his check's answer privately; a shot (club, §3.1 step 3) is one more attack."""
    target = _living_target(g, decision.target)
    if target is None:
        return
    if (decision.action or "check") == "shoot":
        g.sheriff_shots += 1
        g.night_sheriff_target = target
        g.emit(EventType.SHERIFF_SHOT, Vis.SEATS, (sheriff,), seat=sheriff, target=target)
    else:
        value = _sheriff_answer(g, target)
        g.emit(EventType.SHERIFF_CHECK, Vis.SEATS, (sheriff,), seat=sheriff, target=target, value=value)


def _maniac_kills(g: GameState, maniac: int, decision: Decision) -> None:
    """P29, §3.1 step 4, §3.2 step 4: the maniac's attack tonight (or none)."""
    target = _living_target(g, decision.target)
    g.night_maniac_target = target
    g.emit(EventType.MANIAC_KILL, Vis.SEATS, (maniac,), seat=maniac, target=target)


def _blind_heal(g: GameState, doctor: int, decision: Decision) -> None:
    """P27, §3.2 step 5: the edge doctor heals one player blind (or nobody)."""
    target = _living_target(g, decision.target)
    g.night_heal = target
    g.emit(EventType.HEAL, Vis.SEATS, (doctor,), seat=doctor, target=target, value="healed" if target else "none")


def _don_check(g: GameState, don: int, decision: Decision) -> None:
    """R8.3: the don is told privately whether the player he names is the sheriff."""
    target = _living_target(g, decision.target)
    if target is not None:
        value = "sheriff" if g.roles[target] is Role.SHERIFF else "not_sheriff"
        g.emit(EventType.DON_CHECK, Vis.SEATS, (don,), seat=don, target=target, value=value)


def doomed(g: GameState) -> list[int]:
    """R8.9, §3: the living seats the night's attacks decided so far kill at its end, in seat order: the blacks'
    shot, the maniac's kill and the sheriff's shot, less the player a heal already made saves (one heal stops every
    attacker on him unless the preset says otherwise, §5.5 ⚠)."""
    attacks = [t for t in (g.night_mafia_target, g.night_maniac_target, g.night_sheriff_target) if t is not None]
    heal = g.night_heal
    overwhelmed = not g.rules.night.heal_stops_all_attackers and attacks.count(heal or 0) > 1
    return sorted(v for v in dict.fromkeys(attacks) if g.alive[v] and (v != heal or overwhelmed))


def _stretchers(g: GameState, victims: list[int]) -> Flow:
    """§3.1 step 5 (club): the doctor sees the victims and saves one; an ineligible pick passes to the next."""
    doctor = _living(g, Role.DOCTOR)
    if not doctor or not victims:
        return
    options = tuple(victims)
    attackers: tuple[str, ...] = ()
    if g.rules.night.doctor_sees_attackers:  # §5.5: who put each victim on the stretchers
        named = (
            ("mafia", g.night_mafia_target),
            ("maniac", g.night_maniac_target),
            ("sheriff", g.night_sheriff_target),
        )
        attackers = tuple("+".join(name for name, t in named if t == v) for v in options)
    g.emit(EventType.STRETCHERS, Vis.SEATS, (doctor,), seats=options, roles=attackers)
    request = request_record(doctor, Kind.HEAL, options=options, default=Decision(target=options[0]))
    answers = yield {doctor: request}
    decision = answers.get(doctor)
    if decision is None:  # removed at the stretchers: nobody is saved (R7.3)
        return
    victims = [v for v in victims if g.alive[v]]  # R7.3: a victim the judge removed meanwhile has left
    if not victims:  # the only victim was removed while the doctor chose: there is nobody left to save
        g.emit(EventType.HEAL, Vis.SEATS, (doctor,), seat=doctor, target=None, value="none")
        g.emit(EventType.SAVE_RESULT, Vis.MODERATOR, target=None)
        return
    pick = decision.target if decision.target is not None else victims[0]
    once = g.rules.night.doctor_once_per_player
    eligible = [v for v in victims if not (once and v in g.doctor_saved)]
    if g.rules.night.doctor_transfer_order == "ascending_seat":
        eligible.sort()
    saved = pick if pick in eligible else next((v for v in eligible if v != pick), None)
    g.emit(
        EventType.HEAL,
        Vis.SEATS,
        (doctor,),
        seat=doctor,
        target=pick,
        value="saved" if saved == pick else "arms_crossed",
    )
    if saved is not None:
        g.doctor_saved.add(saved)
        if saved == doctor:
            g.doctor_self_heals += 1
    g.emit(EventType.SAVE_RESULT, Vis.MODERATOR, target=saved)
    g.night_heal = saved


def _silent(g: GameState, seat: int) -> bool:
    """P04, P20, §3.1 step 8: a night victim who leaves in silence, with no last word (club: the sheriff, the blacks
    and an allied maniac)."""
    silent = g.rules.silent_night_exit
    role = g.roles[seat]
    return (
        ("sheriff" in silent and role is Role.SHERIFF)
        or ("black" in silent and g.is_black(seat))
        or ("maniac_if_ally" in silent and role is Role.MANIAC and g.maniac_ally)
    )


def night(g: GameState, k: int) -> Flow:
    """Night k ≥ 1 in §3's order (R8.1): the lover's visit (edge), the black channel where it runs every night (P23),
    the blacks' shot (R8.2), the checks with the maniac and the blind heal (R8.3–R8.6), the club doctor at the
    stretchers, the best move (R8.7), then dawn: the deaths together and the win check (R8.9)."""
    g.day = k
    g.phase = Phase.NIGHT
    g.emit(EventType.PHASE_STARTED, value="night")
    g.reset_night()
    living_at_dusk = len(g.living())
    visit = yield from _lover_visit(g)
    void = visit is not None and g.is_black(visit) and g.rules.night.lover_voids_mafia_kill  # P28
    if g.rules.night.black_channel_every_night:
        yield from black_chat(g, 1, False)
    yield from _mafia_shot(g)
    _mafia_result(g, void)
    yield from _abilities(g, k, set() if visit is None else {visit}, g.night_mafia_target)
    yield from _doctor(g)
    deaths = doomed(g)
    yield from _best_move(g, k, deaths)
    _dawn(g, deaths, living_at_dusk, void)


def _lover_visit(g: GameState) -> Generator[Batch, Answers, int | None]:
    """§3.2 step 1, P28: a living lover visits one living player (herself and last night's only where the rules
    allow), who is blocked tonight. Returns the seat visited, or None."""
    lover = _living(g, Role.LOVER)
    if not lover:
        return None
    nr = g.rules.night
    options = tuple(
        s
        for s in g.living()
        if (s != lover or nr.lover_self_visit) and (nr.lover_repeat_visit or s != g.lover_last_visit)
    )
    answers = yield {lover: request_record(lover, Kind.VISIT, options=options, allow_none=True)}
    if lover not in answers:  # a lover removed before her visit has left and visits nobody (R7.3)
        return None
    visit = _living_target(g, answers[lover].target)
    g.lover_last_visit = visit or 0
    g.emit(EventType.VISIT, Vis.SEATS, (lover,), seat=lover, target=visit)
    return visit


def _mafia_result(g: GameState, void: bool) -> None:
    """R8.2, P22, P28: the shot's result, for the moderator: agreed, a miss by disagreement, or void by the lover's
    visit (§3.2 step 2: told in the morning); a disagreement is announced at once where the rules say so (club)."""
    miss_reason = "lover" if void else ("agreed" if g.night_mafia_target is not None else "disagreed")
    if void:
        g.night_mafia_target = None
    g.emit(EventType.MAFIA_RESULT, Vis.MODERATOR, target=g.night_mafia_target, value=miss_reason)
    if g.night_mafia_target is None and g.rules.night.miss_announced_at_night and not void:
        g.emit(EventType.MAFIA_MISS_ANNOUNCED, value="disagreed")


def _doctor(g: GameState) -> Flow:
    """§3.1 step 5 (club): the doctor saves one of the victims on the stretchers; P27 (edge): the blind heal's limits
    count tonight's heal, and a night with none (or blocked) counts as no heal."""
    night = g.rules.night
    if night.doctor == "sees_victims":
        attacks = [t for t in (g.night_mafia_target, g.night_maniac_target, g.night_sheriff_target) if t is not None]
        victims = [v for v in dict.fromkeys(attacks) if g.alive[v]]  # R7.3: a seat removed tonight is not killed too
        yield from _stretchers(g, victims)
    elif g.night_heal is not None:
        heal = g.night_heal
        g.doctor_last_heal = heal
        if heal == _living(g, Role.DOCTOR):
            g.doctor_self_heals += 1
    elif night.doctor == "blind_heal":
        g.doctor_last_heal = 0


def _dawn(g: GameState, deaths: list[int], living_at_dusk: int, void: bool) -> None:
    """R8.9: the night's deaths take effect together, then the win check (R10.3), announced after the morning's last
    words (R7.4); R10.4: a night with nobody leaving counts toward the draw; the morning's news is kept for the next
    day (R8.8, P30)."""
    deaths = [s for s in deaths if g.alive[s]]  # R7.3: a victim the judge removed during the best move has left
    for s in deaths:
        g.set_dead(s)
    left = bool(deaths) or len(g.living()) < living_at_dusk  # R10.4: a removal tonight is someone leaving too
    g.idle_nights = 0 if left else g.idle_nights + 1
    g.morning_deaths = deaths
    g.morning_lover_miss = void and g.rules.night.morning == "deaths_plus_lover_miss"
    g.night_last_words = [s for s in deaths if not _silent(g, s)]
    winner = g.check_win() if deaths else None
    if winner is not None:
        g.pending_winner = winner
    elif not left and g.idle_nights >= g.rules.win.draw_after_idle_rounds:
        g.finish(Outcome("draw", Termination.IDLE_ROUNDS, nights=g.idle_nights))


def _best_move(g: GameState, k: int, deaths: list[int]) -> Flow:
    """R8.7: only the Night-1 victim of the mafia names up to three seats, unless two left on Day 1."""
    bm = g.rules.best_move
    victim = g.night_mafia_target
    if not bm.enabled or k != 1 or victim is None or victim not in deaths:
        return
    if g.day1_vote_left >= bm.void_if_day1_left_at_least:
        return
    g.morning_deaths = deaths  # lets the departing victim answer
    options = tuple(s for s in g.living() if s != victim)
    answers = yield {victim: request_record(victim, Kind.BEST_MOVE, options=options, max_targets=bm.seats)}
    decision = answers.get(victim)
    if decision is not None:
        g.emit(EventType.BEST_MOVE, seat=victim, seats=tuple(t for t in decision.targets if g.alive[t]))
