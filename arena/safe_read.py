"""Reading a user's file (rules, scenarios) as data that may be hostile: bounded size, UTF-8, bounded nesting, and
(`open_regular`) no symbolic link or device where a folder someone else prepared is read.

Why a module of its own: every command that reads a small text file must turn a bad one (too big, a device, not
UTF-8, nested thousands deep, a YAML alias bomb) into one clear message instead of a traceback or an exhausted
machine. The callers wrap `UnsafeFile` in their own error type and name the file; the message says only what is wrong.
Data that reads but does not validate is worded one line a field (`field_errors`), the rules' and agents' alike.
"""

from __future__ import annotations

import errno
import os
import stat
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import yaml

if TYPE_CHECKING:
    from pydantic import ValidationError

MAX_TEXT_BYTES = 4 * 1024 * 1024  # a rules or scenario file is a few kilobytes


class UnsafeFile(ValueError):
    """A file that cannot be read as the data asked for; the message says why (never holds its content)."""


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """The file's text, refusing a directory, a FIFO or device (which could block or never end), a file over
    `limit` bytes (read no further) and non-UTF-8 bytes. A link is followed: the caller named the file."""
    if path.is_dir():
        raise UnsafeFile("is a directory")
    with open_regular(path, follow_links=True) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UnsafeFile(f"cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise UnsafeFile(f"larger than {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnsafeFile(f"not UTF-8 text (byte {exc.start})") from None


def open_regular(path: Path | str, *, follow_links: bool = False) -> BinaryIO:
    """A regular file opened for reading, never a FIFO or device, which could block or never end: the open itself
    does not wait (`O_NONBLOCK`: a FIFO with no writer would hold `open` forever, and a signal cannot end that
    wait), and anything but a regular file is refused before a byte is read. Without `follow_links` (a reader of a
    folder someone else prepared) no symbolic link is followed either: a planted `game.jsonl -> ~/secret` is not
    read. With it (a file the user named) a link to a regular file is read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise UnsafeFile("is a symbolic link; links are not followed here") from None
        raise UnsafeFile(f"cannot read: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else "a device or socket"
        raise UnsafeFile(f"is {kind}, not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


MAX_NODES = 200_000  # values in a file once aliases are expanded (a rules file has a few hundred)


def _check_size(data: Any, budget: int = MAX_NODES) -> None:
    """Walk the data as its users will, aliases expanded, and stop at `budget` values (a YAML alias bomb)."""
    stack = [data]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > budget:
            raise UnsafeFile(f"expands to more than {budget:,} values (aliases that multiply)")
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def load_yaml(text: str) -> Any:
    """YAML data, or UnsafeFile for invalid YAML, nesting too deep to read, or aliases that multiply it."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UnsafeFile(f"not valid YAML: {exc}") from None
    except RecursionError:
        raise UnsafeFile("nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise UnsafeFile(f"not valid YAML: {exc}") from None
    _check_size(data)
    return data


def load_toml(text: str) -> dict[str, Any]:
    """TOML data, or UnsafeFile for invalid TOML or nesting too deep to read."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UnsafeFile(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise UnsafeFile("nested too deeply") from None


def _never(where: str, error_type: str) -> bool:
    return False


def field_errors(
    exc: ValidationError,
    heading: str,
    allowed_at: Callable[[tuple[int | str, ...]], Sequence[str]],
    secret: Callable[[str, str], bool] = _never,
) -> str:
    """A file's data that did not validate, as `heading` and one line per bad field: where, what is wrong, the
    choices (the fields allowed beside an unknown one, from `allowed_at(loc)`) and what was given, unless
    `secret(where, error type)` says it may be a pasted key. The rules' and the agents' errors read alike."""
    lines = [heading]
    for e in exc.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            allowed = allowed_at(tuple(e["loc"]))
            msg = "unknown field" + (f" (allowed here: {', '.join(allowed)})" if allowed else "")
        ctx = e.get("ctx") or {}
        if "expected" in ctx:
            msg = f"{msg} (allowed: {ctx['expected']})"
        got = e.get("input")
        if not secret(loc, e["type"]) and not isinstance(got, (dict, list)):
            msg = f"{msg}; got {got!r}"
        lines.append(f"  {loc}: {msg}")
    return "\n".join(lines)
