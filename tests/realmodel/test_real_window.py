"""The window check against the real server (issue #31): `arena local-model --ctx 512`, then
`arena play --seat all=local`, is refused before the first call, with the size needed."""

from __future__ import annotations

import re
from pathlib import Path

from realkit import agents_folder
from typer.testing import CliRunner

from arena.cli import app
from arena.local.server import LocalServer

SMALL = (512, 1)  # the window per slot and the slots of this module's `small_server`


def test_a_512_token_window_is_refused_before_the_first_call(tmp_path: Path, small_server: LocalServer) -> None:
    agents = agents_folder(tmp_path, small_server.base_url)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["play", "--agents-dir", str(agents), "--seat", "all=local", "--out", str(out),
                                      "--quiet", "--seed", "1"])  # fmt: skip
    assert result.exit_code == 2, result.output
    found = re.search(r"window per slot is 512 tokens, but seat \d+'s first turn \(\w+\) needs at least (\d+)",
                      result.output)  # fmt: skip
    assert found and int(found.group(1)) > 512, result.output
    assert "arena local-model --ctx" in result.output
    assert not out.exists() or not list(out.glob("*.jsonl"))  # no transcript: no game call was made
    assert small_server.log is not None
    log = small_server.log.read_text("utf-8", "replace")
    assert "listening on" in log and "processing task" not in log  # no completion at all, not even the probe
