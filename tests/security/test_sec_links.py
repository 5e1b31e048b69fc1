"""No writer follows a symbolic link, and readers stay inside their folders (issue 16, item 3).

The attack: a shared tournament folder ships `report/games.csv -> ~/.bashrc`; `arena report FOLDER` writes its
default output into `FOLDER/report`, so it used to overwrite the user's shell start-up file with CSV rows (and a
`game_id` holding a shell command ran at the next shell). The same class: the manifest's `.tournament.json.tmp`,
`arena export --html` onto a link, and replays or reports that read a planted `x.jsonl -> /elsewhere`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from seckit import cli

from arena.research.corpus import load_folder
from arena.research.selfplay import play_balanced
from arena.safe_write import Folder, UnsafePath, write_file
from arena.tournament import manifest
from arena.tournament.model import TournamentError
from arena.web.server import ServeConfig, Server

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fiim.jsonl"
SHELL = "# the user's shell start-up file\nexport PATH=$HOME/bin:$PATH\n"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    play_balanced(folder, 4)
    return folder


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".bashrc"
    path.parent.mkdir()
    path.write_text(SHELL, encoding="utf-8")
    return path


def _shared(games: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    shutil.copytree(games, folder)
    return folder


def test_report_does_not_write_through_a_planted_csv_link(games: Path, tmp_path: Path, victim: Path) -> None:
    folder = _shared(games, tmp_path)
    (folder / "report").mkdir()
    (folder / "report" / "games.csv").symlink_to(victim)
    code, _, err = cli("report", str(folder), "--boot", "5")
    assert code == 2 and err.startswith("error: ") and "symbolic link" in err and str(victim) in err
    assert victim.read_text(encoding="utf-8") == SHELL
    assert not (folder / "report" / "report.md").exists(), "nothing is written into a folder holding links"


@pytest.mark.parametrize("planted", ["report", "report/plots"])
def test_report_does_not_write_into_a_linked_folder(games: Path, tmp_path: Path, planted: str) -> None:
    folder = _shared(games, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / planted).parent.mkdir(parents=True, exist_ok=True)
    (folder / planted).symlink_to(elsewhere, target_is_directory=True)
    code, _, err = cli("report", str(folder), "--boot", "5")
    assert code == 2 and "symbolic link" in err
    assert list(elsewhere.iterdir()) == []


def test_a_clean_report_folder_is_still_written_and_rewritten(games: Path, tmp_path: Path) -> None:
    folder = _shared(games, tmp_path)
    for _ in range(2):  # the second run replaces the first run's files
        code, _, err = cli("report", str(folder), "--boot", "5")
        assert code == 0, err
    names = sorted(p.name for p in (folder / "report").iterdir())
    assert names == ["comparisons.csv", "days.csv", "decisions.csv", "games.csv", "metrics.csv", "plots", "ratings.csv",
                     "report.html", "report.md", "seats.csv"]
    assert not any(p.is_symlink() for p in (folder / "report").rglob("*"))


def test_a_link_planted_between_the_check_and_the_write_is_replaced_not_followed(
    tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()

    def plant(self: Folder, name: str) -> None:  # the attacker wins the race right after the check
        (self.path / name).symlink_to(victim)

    monkeypatch.setattr(Folder, "_check_target", plant)
    write_file(out / "games.csv", "game_id\n")
    assert victim.read_text(encoding="utf-8") == SHELL
    assert not (out / "games.csv").is_symlink() and (out / "games.csv").read_text() == "game_id\n"
    assert [p.name for p in out.iterdir()] == ["games.csv"], "no temporary file is left behind"


def test_the_tournament_manifest_never_follows_its_temporary_file(tmp_path: Path, victim: Path) -> None:
    out = tmp_path / "t"
    out.mkdir()
    (out / ".tournament.json.tmp").symlink_to(victim)
    manifest.write(out, {"name": "t", "status": "running"})
    assert victim.read_text(encoding="utf-8") == SHELL
    assert manifest.read(out)["status"] == "running" and not (out / manifest.NAME).is_symlink()
    # a game file that is a link would be appended to: the folder is refused before any game starts
    (out / ".tournament.json.tmp").unlink()
    (out / "game-0001.jsonl").symlink_to(victim)
    with pytest.raises(TournamentError, match="symbolic links"):
        manifest.check_folder(out, "fingerprint", "t")
    # and the manifest itself as a link is not read
    (out / "game-0001.jsonl").unlink()
    (out / manifest.NAME).unlink()
    (out / manifest.NAME).symlink_to(victim)
    with pytest.raises(TournamentError, match="symbolic links"):
        manifest.check_folder(out, "fingerprint", "t")


def test_export_refuses_a_link_at_its_output(tmp_path: Path, victim: Path) -> None:
    page = tmp_path / "game.html"
    page.symlink_to(victim)
    code, _, err = cli("export", str(GOLDEN), "--html", str(page))
    assert code == 2 and "symbolic link" in err and victim.read_text(encoding="utf-8") == SHELL
    page.unlink()
    page.write_text("an old export", encoding="utf-8")
    os.chmod(page, 0o644)
    code, _, err = cli("export", str(GOLDEN), "--html", str(page))
    assert code == 0, err
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>") and page.stat().st_mode & 0o777 == 0o600


def test_readers_stay_inside_their_folders(games: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(GOLDEN, outside / "private.jsonl")
    folder = _shared(games, tmp_path)
    (folder / "planted.jsonl").symlink_to(outside / "private.jsonl")
    corpus = load_folder(folder)
    assert (str(folder / "planted.jsonl"), "is a symbolic link; links are not followed here") in corpus.skipped
    assert len(corpus.games) == 4
    # arena serve: a link in --out is neither listed nor opened as a replay
    out = tmp_path / "served"
    out.mkdir()
    shutil.copy(GOLDEN, out / "mine.jsonl")
    (out / "planted.jsonl").symlink_to(outside / "private.jsonl")
    server = Server(ServeConfig(out_dir=out))
    assert server.replay_names() == ["mine.jsonl"]
    assert server.replay_path("planted.jsonl") is None and server.replay_path("mine.jsonl") == out / "mine.jsonl"


def test_a_folder_that_is_a_link_is_refused_by_every_writer(tmp_path: Path, victim: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to(victim.parent, target_is_directory=True)
    with pytest.raises(UnsafePath, match="symbolic link"):
        write_file(link / "x.txt", "x")
    with pytest.raises(UnsafePath, match="symbolic link"), Folder(link) as folder:
        folder.write("x.csv", "x")
    assert sorted(p.name for p in victim.parent.iterdir()) == [".bashrc"]


def test_resume_never_appends_through_a_link(tmp_path: Path) -> None:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)[:60]  # a game cut mid-way
    real = tmp_path / "elsewhere" / "game.jsonl"
    real.parent.mkdir()
    real.write_text("".join(lines), encoding="utf-8")
    before = real.read_bytes()
    link = tmp_path / "game.jsonl"
    link.symlink_to(real)
    code, _, err = cli("resume", str(link), "--quiet")
    assert code == 2 and "symbolic link" in err and real.read_bytes() == before
    code, _, err = cli("resume", str(real), "--quiet")  # the file itself, named: continued
    assert code == 0, err
