"""Nothing a model is shown names a configuration, so shuffling the names shown to models (issue #8, Build 2) has
nothing to shuffle: seats are numbers, labels and agent names live in transcript headers and the manifest only. A
configuration's persona is the one per-configuration text in a prompt, and it reaches only that configuration's own
seats (it is the seat's own playing style, never said about another seat)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.standin import FakeServer
from arena.transcript import load

LABELS = ("cfgZulu", "cfgYankee", "cfgXray", "cfgWhiskey")
AGENTS = ("agentquebec", "agentromeo")
MODELS = ("model-victor", "model-tango")
PERSONA = "a retired lighthouse keeper who distrusts quiet people"


def test_no_label_agent_or_model_name_reaches_a_prompt(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    with FakeServer() as server:
        for agent, model in zip(AGENTS, MODELS, strict=True):
            (agents / f"{agent}.toml").write_text(f'kind = "llm"\nmodel = "{model}"\nbase_url = "{server.base_url}"\n')
        spec = tmp_path / "t.toml"
        spec.write_text(
            # one seat per configuration, so every label sits at every table (whole sides seat one or two)
            f'name = "names"\ngames = 3\nseed = 11\nfiller = "{AGENTS[1]}"\nschedule = "seats"\n'
            f'[[pool]]\nlabel = "{LABELS[0]}"\nagent = "{AGENTS[0]}"\ntemperature = 0.3\npersona = "{PERSONA}"\n'
            f'[[pool]]\nlabel = "{LABELS[1]}"\nagent = "{AGENTS[1]}"\n'
            f'[[pool]]\nlabel = "{LABELS[2]}"\nagent = "bot:heuristic"\n'
        )
        out = tmp_path / "out"
        result = CliRunner().invoke(
            app, ["tournament", str(spec), "--agents-dir", str(agents), "--out", str(out), "--no-progress",
                  "--processes", "0", "--jobs", "3"],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("game-*.jsonl"))
    assert len(files) == 3
    persona_seats = shown_persona = 0
    for path in files:
        transcript = load(path)
        header_names = {entry.agent.name for entry in transcript.header.seats}
        assert set(LABELS[:3]) <= header_names  # the labels are in the header: there is something that could leak
        by_seat = {entry.seat: entry.agent.name for entry in transcript.header.seats}
        assert transcript.calls
        for call in transcript.calls:
            text = "\n".join(str(m.get("content") or "") for m in call.messages)
            for name in (*LABELS, *AGENTS, *MODELS, "filler"):
                assert name not in text, f"{path.name}: seat {call.seat} was shown {name!r}"
            if PERSONA in text:
                shown_persona += 1
                assert by_seat[call.seat] == LABELS[0]  # only the configuration's own seats read its persona
        persona_seats += sum(1 for label in by_seat.values() if label == LABELS[0])
    assert persona_seats == 3 and shown_persona == 3  # each of its seats was told once, in its first turn
