"""`arena persuasion DIR --sample N`: the causal effect of sampled speeches on their listeners' beliefs and votes.

The work is in `arena/research/persuasion.py` (what is measured, and how) and `arena/research/reask.py` (asking a
model seat again); this module parses options, prints the estimate before anything is spent, keeps the budget, and
writes the records. Bad input is one `error:` line and exit 2.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.options import need_transcripts, no_research

if TYPE_CHECKING:
    from arena.research.persuasion import Asker, Item, Outcome, Plan

BAD_INPUT = 2


def _estimate_lines(p: Plan, factual: str) -> list[str]:
    arms = "both arms" if factual == "reask" else "the counterfactual arm (factual answers as recorded)"
    pairs = sum(len(i.targets) for i in p.items)
    return [
        f"{len(p.items)} speeches, {pairs} (listener, decision) pairs, re-asked on {arms}",
        f"model calls: {p.asks} (about {p.prompt_tokens:,} prompt + {p.completion_tokens:,} completion tokens), "
        f"estimated cost ${p.cost_usd:.4f}; bot re-asks (no calls): {p.bot_asks}",
    ]


def persuasion(
    folder: Annotated[Path, typer.Argument(help="a folder of transcripts (searched recursively)")],
    sample_n: Annotated[int, typer.Option("--sample", min=1, help="speeches to sample (spread over the speakers' configurations)")] = 20,  # noqa: E501
    seed: Annotated[int, typer.Option("--seed", help="the sample's seed")] = 0,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the calls and cost it would take, and stop")] = False,  # noqa: E501
    budget: Annotated[float | None, typer.Option("--budget", min=0, help="stop before spending more than this (USD)")] = None,  # noqa: E501
    factual: Annotated[str, typer.Option("--factual", help="reask: ask the factual arm again too; recorded: read it from the transcript (half the calls)")] = "reask",  # noqa: E501
    out: Annotated[Path | None, typer.Option("--out", help="where to write the records (default: FOLDER/persuasion)")] = None,  # noqa: E501
    agents_dir: Annotated[Path | None, typer.Option("--agents-dir", help="the local agent definitions of the model seats")] = None,  # noqa: E501
    agents_from_header: Annotated[bool, typer.Option("--agents-from-header", help="use the header's agent where no local definition matches (as `arena resume`)")] = False,  # noqa: E501
) -> None:
    """Measure what sampled speeches did to their listeners' beliefs and votes, by re-asking them without it."""
    if factual not in ("reask", "recorded"):
        typer.echo("error: --factual is reask or recorded", err=True)
        raise typer.Exit(BAD_INPUT)
    need_transcripts(folder)
    try:
        from arena.research.persuasion import PersuasionError, load_items, plan, sample
    except ImportError as exc:
        no_research("arena persuasion", exc)
    try:
        items = sample(load_items(folder), sample_n, seed)
    except PersuasionError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(BAD_INPUT) from None
    if not items:
        typer.echo(f"error: {folder}: no speech with a listener to re-ask (a later probe or vote)", err=True)
        raise typer.Exit(BAD_INPUT)
    p = plan(items, factual)
    for line in _estimate_lines(p, factual):
        typer.echo(line)
    if dry_run:
        return
    if budget is not None and p.cost_usd > budget:
        typer.echo(f"note: the estimate (${p.cost_usd:.4f}) is over --budget ${budget:.4f}: the run stops there")
    from arena.trust import TrustError

    try:
        outcome, made = asyncio.run(_run(items, p, factual, budget, agents_dir, agents_from_header))
    except TrustError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(BAD_INPUT) from None
    _report(outcome, made, p, out or folder / "persuasion", factual)


async def _run(
    items: list[Item], p: Plan, factual: str, budget: float | None, agents_dir: Path | None, from_header: bool
) -> tuple[Outcome, list[str]]:
    from arena.players.factory import build_player
    from arena.research.persuasion import BotAsker, model_seat, run
    from arena.research.reask import Budget, ModelAsker
    from arena.trust import resume_seats

    lines: list[str] = []
    models: dict[str, ModelAsker] = {}  # game id -> its asker (one client per seat and game)
    shared = Budget(budget)
    # what the budget expects of a seat's next call: the dearest call it made in the game (so a call that could pass
    # the budget is never made)
    from arena.research.persuasion import dearest_call

    def asker_for(item: Item, seat: int) -> Asker:
        t = item.game.transcript
        if not model_seat(item, seat):
            spec = next(e.agent for e in t.header.seats if e.seat == seat)
            return BotAsker(lambda s: build_player(spec, s, seed=t.header.seed, rules=t.rules, lang=t.header.lang))
        asker = models.get(item.game.game_id)
        if asker is None:
            recorded = {e.seat: e.agent for e in t.header.seats if e.agent.kind in ("llm", "langchain")}
            local = resume_seats(recorded, agents_dir, from_header=from_header)
            asker = ModelAsker(local, shared, {seat: dearest_call(t, seat) for seat in local})
            models[item.game.game_id] = asker
        return asker

    try:
        outcome = await run(items, asker_for, factual=factual, write=lines.append, stop=lambda: shared.stopped)
    finally:
        for asker in models.values():
            await asker.close()
    outcome.calls = max(outcome.calls, shared.calls)  # transport retries count as calls made
    return outcome, lines


def _report(outcome: Outcome, lines: list[str], p: Plan, out: Path, factual: str) -> None:
    from arena.research.persuasion import effect_rows_text, ranking, shown, summarise
    from arena.safe_write import Folder, UnsafePath

    rows = summarise(outcome.effects, "speaker") + summarise(outcome.effects, "listener")
    table = effect_rows_text(rows)
    off = (outcome.calls - p.asks) / p.asks if p.asks else 0.0
    summary = [
        "# Persuasion: what sampled speeches did to their listeners",
        "",
        f"{len(p.items)} speeches; {outcome.pairs} (listener, decision) pairs re-asked, {len(outcome.effects)} "
        f"answered on both arms; left out: "
        + (", ".join(f"{n} ({why})" for why, n in outcome.unanswered.items()) or "none") + ".",
        f"Model calls made: {outcome.calls} (estimated {p.asks}, {off:+.1%}); cost ${outcome.cost_usd:.4f} "
        f"(estimated ${p.cost_usd:.4f}); bot re-asks: {outcome.bot_asks}. Factual arm: {factual}.",
        "",
        "Effects: factual minus counterfactual (the speech replaced by neutral words of the same length). "
        "`p_accused`: P(black) given the seats the speech accuses; `p_speaker`: P(black) given the speaker; "
        "`vote_accused`: the listener's chosen vote on an accused seat. Means over pairs, 95 % intervals clustered "
        "by game.",
        "",
        *table,
    ]
    ranked = ranking(rows)
    if ranked:
        summary += ["", "Speakers ranked by `p_accused`: " + "; ".join(
            f"{r.config} {shown(r.interval)}" for r in ranked)]
    try:
        with Folder(out) as folder:
            records = folder.write("persuasion.jsonl", "".join(line + "\n" for line in lines))
            written = folder.write("persuasion.md", "\n".join(summary) + "\n")
    except (UnsafePath, OSError) as exc:
        typer.echo(f"error: {out}: {exc}", err=True)
        raise typer.Exit(BAD_INPUT) from None
    for line in summary[2:]:
        typer.echo(line)
    typer.echo(f"records: {records}\nsummary: {written}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("persuasion")(persuasion)
