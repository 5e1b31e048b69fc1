"""The local model server's per-run key: made when `arena local-model` starts the server, known only to the arena.

`llama-server` started with no key answers anyone who can reach 127.0.0.1, a web page in the user's browser included
(a page the operator had open held a seat's slot for 22 s, issue #30). So each start makes a random key, hands it to
the server in its environment (`LLAMA_API_KEY`, never on its command line, which other users can read), and writes
it to a file only this user can read, named by the port: `$XDG_RUNTIME_DIR/mafia-arena/local-model-PORT.key`, else
`~/.cache/mafia-arena/run/`. An agent of its own server on 127.0.0.1 without `api_key_env` (`agents/local.toml`)
sends the key of its port (`arena.agents.api_key_for`); the server refuses every request without it (401) but
`/health` and `/v1/models`. The file goes when the server stops. No transcript, log or header ever holds the key.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_MAX_KEY_BYTES = 256


def key_dir() -> Path:
    """Where the keys live: the user's runtime folder (tmpfs, private), else a private folder in the cache."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "mafia-arena"
    return Path.home() / ".cache" / "mafia-arena" / "run"


def key_path(port: int) -> Path:
    return key_dir() / f"local-model-{port}.key"


def new_key(port: int) -> str:
    """A fresh random key for the server on `port`, written to its file (mode 0600 in a 0700 folder), replacing a
    stale one."""
    key = secrets.token_urlsafe(32)
    folder = key_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = key_path(port)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key)
    return key


def drop_key(port: int, key: str) -> None:
    """Remove the key file of `port` if it still holds `key` (a newer server on that port keeps its own)."""
    if read_key(port) == key:
        with contextlib.suppress(FileNotFoundError):
            key_path(port).unlink()


def read_key(port: int) -> str | None:
    """The key of the server on `port`, or None: no file, or one that is a link, not ours, or readable by others."""
    try:
        fd = os.open(key_path(port), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if info.st_mode & 0o077 or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            return None
        text = file.read(_MAX_KEY_BYTES).decode("ascii", "replace").strip()
    return text or None


def local_key(base_url: str | None) -> str | None:
    """The key to send to `base_url` when it is a local model server this user started, else None."""
    if not base_url:
        return None
    url = urlsplit(base_url)
    if url.hostname not in LOOPBACK or url.port is None:
        return None
    return read_key(url.port)
