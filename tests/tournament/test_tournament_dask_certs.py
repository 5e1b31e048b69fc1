"""`arena cluster-certs DIR`: the one certificate and key every member of a tournament's Dask cluster holds. The key
is private (0600) and never replaced (a new key would lock out every machine holding the old one), no file is
written through a link, the printed commands listen on the address given and keep the status pages on loopback,
and `--tls` refuses a key other users can read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.tournament.tls import ClusterError, security_from


def certs(folder: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["cluster-certs", str(folder)])
    return result.exit_code, result.output


def test_the_credentials_are_private_and_the_commands_keep_to_the_given_address(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    code, output = certs(folder)
    assert code == 0, output
    key, cert = folder / "cluster.key", folder / "cluster.pem"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and b"PRIVATE KEY" in key.read_bytes()
    assert b"BEGIN CERTIFICATE" in cert.read_bytes()
    commands = [line.strip() for line in output.splitlines() if line.startswith("  ")]
    assert [c.split()[:2] for c in commands] == [["dask", "scheduler"], ["dask", "worker"], ["arena", "tournament"]]
    for command in commands[:2]:  # both listen where told, with both sides' certificates, status pages on loopback
        assert f"--tls-ca-file {cert} --tls-cert {cert} --tls-key {key}" in command
        assert "--host " in command and "--dashboard-address 127.0.0.1:" in command, command
    assert "--scheduler tls://" in commands[2] and f"--tls {folder}" in commands[2]
    pytest.importorskip("distributed")
    assert security_from(folder).require_encryption


def test_existing_credentials_are_never_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    assert certs(folder)[0] == 0
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, output = certs(folder)
    assert code == 2 and output.startswith("error: ") and "exists already" in output, output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_no_credential_is_written_through_a_link(tmp_path: Path) -> None:
    folder, elsewhere = tmp_path / "certs", tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "cluster.key").symlink_to(elsewhere)  # a dangling link: exists() is False, the link is still refused
    code, output = certs(folder)
    assert code == 2 and "exists already" in output, output
    assert not elsewhere.exists() and not (folder / "cluster.pem").exists()


def test_a_key_other_users_can_read_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    assert certs(folder)[0] == 0
    os.chmod(folder / "cluster.key", 0o644)
    with pytest.raises(ClusterError, match="can be read by other users"):
        security_from(folder)
    (folder / "cluster.key").unlink()
    with pytest.raises(ClusterError, match="not found"):
        security_from(folder)
