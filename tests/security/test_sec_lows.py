"""The low-severity findings of issue 16, item 11 (each: the attack, then what must hold).

- report.md copied Markdown links and images from agent names; a CSV cell starting `;=` was written raw;
- a tournament `name` reached the terminal raw (OSC 52, clear-screen, Rich markup);
- a tournament's rules file could be any file, and its lines were echoed (`/etc/shadow`);
- slowloris: half-sent requests held `arena serve`'s connections with no timeout;
- the table cap counted finished tables, so a server could only ever create 50.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import http.client
import io
import socket
import time
from pathlib import Path

import pytest
from seckit import cli
from servekit import serve

from arena.agents import BUILTIN
from arena.engine import load_rules
from arena.research.selfplay import play_balanced
from arena.web import server as server_module
from arena.web.server import ServeConfig, Server, TableError

ROOT = Path(__file__).resolve().parents[2]


def test_agent_names_make_no_links_images_or_formulas_in_a_report(tmp_path: Path) -> None:
    games = tmp_path / "games"
    image = "![pixel](https://evil.example/track.png)"
    link = "[open me](http://evil.example/x) ;=HYPERLINK(1) www.evil.example"
    play_balanced(games, 4, a=BUILTIN["bot:heuristic"].model_copy(update={"name": image}),
                  b=BUILTIN["bot:random"].model_copy(update={"name": link}))  # fmt: skip
    code, _, err = cli("report", str(games), "--out", str(tmp_path / "r"), "--boot", "5")
    assert code == 0, err
    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    for planted in ("![pixel](", "[open me](", "https://evil", "http://evil", "www.evil"):
        assert planted not in report, planted
    # the page shows the names as they are, as text
    page = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "![pixel](https://evil.example/track.png)" in page and "<img alt='pixel'" not in page
    for name in ("games.csv", "seats.csv", "decisions.csv"):
        text = (tmp_path / "r" / name).read_text(encoding="utf-8")
        # opened with `;` as the separator (many locales), no cell may start a formula
        for row in csv.reader(io.StringIO(text), delimiter=";"):
            assert not any(cell.lstrip(" ").startswith(("=", "+", "@")) for cell in row), (name, row)


def _tournament(folder: Path, **fields: str) -> Path:
    folder.mkdir(exist_ok=True)
    lines = [f"{k} = {v}" for k, v in fields.items() if k != "rules_file"]
    lines += ["games = 4", "[rules]"]
    if "rules_file" in fields:
        lines.append(f"file = {fields['rules_file']}")
    lines += ["[[pool]]", 'label = "a"', 'agent = "bot:heuristic"']
    path = folder / "t.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name", ["\x1b]52;c;ZWNobyBwd25lZA==\x07", "\x1b[2J\x1b[Hall clear", "[bold red]PAID[/] [link=x]y[/link]"]
)
def test_a_tournament_name_never_reaches_the_terminal_raw(tmp_path: Path, name: str) -> None:
    escaped = name.replace("\\", "\\\\").replace("\x1b", "\\u001b").replace("\x07", "\\u0007")
    path = _tournament(tmp_path / "t", name=f'"{escaped}"')
    code, out, err = cli("tournament", str(path), "--dry-run")
    assert code == 2 and "name: must be 1-80 letters" in err
    assert "\x1b" not in out + err and "[bold red]" not in out + err


def test_a_tournament_reads_rules_only_from_its_own_folder(tmp_path: Path) -> None:
    secret = tmp_path / "shadow.yaml"
    secret.write_text("root: $6$s3cr3t-hash$abcdef:19000:0:99999:7:::\n", encoding="utf-8")
    for ref in (f'"{secret}"', f'"../{secret.name}"'):  # absolute, and out of the folder
        path = _tournament(tmp_path / "t", name='"x"', rules_file=ref)
        code, out, err = cli("tournament", str(path), "--dry-run")
        assert code == 2 and "rules.file" in err and "inside the tournament file's folder" in err
        assert "s3cr3t" not in out + err
    (tmp_path / "t" / "mine.toml").write_text('base = "fiim"\n', encoding="utf-8")
    path = _tournament(tmp_path / "t", name='"x"', rules_file='"mine.toml"')
    code, out, err = cli("tournament", str(path), "--dry-run")
    assert code == 0, err


# ----- arena serve ----------------------------------------------------------------------------------------------
def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


def test_half_sent_requests_are_dropped_at_the_deadline(tmp_path: Path) -> None:
    with serve("--out", str(tmp_path / "games"), "--request-timeout", "1") as served:
        port = served.port
        slow = []
        for _ in range(50):  # slowloris: a request line and one header, then a byte now and then
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            slow.append(sock)
        started = time.monotonic()
        for _ in range(4):
            time.sleep(0.3)
            for sock in slow:
                with contextlib.suppress(OSError):  # closed already
                    sock.sendall(b"X")
        # the deadline closes them (a slowloris would hold them for ever): a bound far above it, for a loaded machine
        assert all(_closed_by_server(sock, 60) for sock in slow), "a half-sent request held its connection"
        assert time.monotonic() - started < 60
        # a whole request is served, and a kept-alive connection serves a second one
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(2):
            connection.request("GET", "/no-such-page")
            response = connection.getresponse()
            assert response.status == 404 and response.read()
        connection.close()
        for sock in slow:
            sock.close()


def test_finished_tables_do_not_count_against_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "MAX_TABLES", 2)
    rules = load_rules("fiim")
    bots = dict.fromkeys(range(1, 11), BUILTIN["bot:random"])
    humans = {**bots, 1: BUILTIN["human"]}

    async def scenario() -> None:
        server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0, human_timeout=None))
        for _ in range(4):  # four bot games, one after the other: each ends before the next starts
            table = server.add(*server.build(rules, bots, seed=1))
            assert table.task is not None
            await table.task
        playing = [server.add(*server.build(rules, humans, seed=1)) for _ in range(2)]  # wait for their humans
        with pytest.raises(TableError, match="already plays 2 games"):
            server.add(*server.build(rules, humans, seed=2))
        for table in playing:
            assert table.task is not None
            table.task.cancel()
        await asyncio.gather(*(t.task for t in playing if t.task is not None), return_exceptions=True)

    asyncio.run(scenario())
