"""Writing files in folders that someone else may have prepared: never through a symbolic link, never half a file.

Why a module of its own: `arena report` writes into a folder inside the one it reads, a tournament rewrites its
manifest in a folder a worker or a colleague may share, and `arena export` writes where the user says. A planted
`report/games.csv -> ~/.bashrc` must not turn a report into a write to the user's shell start-up file. So every
writer of the package goes through here, and the rules are the same everywhere:

- the folder written into is opened once, with `O_NOFOLLOW` on its last component (a folder that is a link is
  refused); a subfolder is created and opened inside it the same way;
- a file that may already exist is written to a fresh temporary file (`O_CREAT | O_EXCL | O_NOFOLLOW`, a random
  name) and renamed over the old one inside the opened folder, so a link planted at the name, even between a check
  and the write, is replaced and never followed, and a crash leaves the old file or the new one, never half of one;
  a name that already holds a link or a folder is refused with one clear message;
- a file continued (a resumed transcript) is opened with `O_NOFOLLOW`; a new transcript is created with
  `O_CREAT | O_EXCL | O_NOFOLLOW` by its writer, in the folder the user names.

POSIX only (the `dir_fd` calls), like the rest of the package's file handling.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, BinaryIO, TextIO

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
PRIVATE = 0o600  # god views (like transcripts): private reasoning, every role
SHARED = 0o666  # an ordinary file: the user's umask decides


class UnsafePath(OSError):
    """A write refused because a link (or a folder) stands where a file or folder is written; `strerror` says why."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(errno.ELOOP, why, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _link_target(path: Path) -> str:
    try:
        return f" -> {os.readlink(path)}"
    except OSError:
        return ""


def _refuse_link(path: Path) -> UnsafePath:
    return UnsafePath(path, f"is a symbolic link{_link_target(path)}; nothing is written through a link")


def _open_dir(path: Path, *, dir_fd: int | None = None, create: bool = True) -> int:
    """A descriptor of folder `path` (relative to `dir_fd` if given), created if missing; its last component must
    not be a link (the folders above it are the user's choice)."""
    name: str | Path = path.name if dir_fd is not None else path
    if create:
        try:
            if dir_fd is None:
                path.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(name, 0o777, dir_fd=dir_fd)
        except FileExistsError:
            pass
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and path.is_symlink():
            raise _refuse_link(path) from None
        raise


class Folder:
    """A folder opened once, without following a link at its last component; files are written inside it by name.

    Use it as a context manager (the descriptor is closed at exit)."""

    def __init__(self, path: Path, *, create: bool = True, _fd: int | None = None) -> None:
        self.path = Path(path)
        self.fd = _fd if _fd is not None else _open_dir(self.path, create=create)

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def folder(self, name: str) -> Folder:
        """The subfolder `name`, created if missing, refused if it is a link."""
        _plain_name(name)
        return Folder(self.path / name, _fd=_open_dir(self.path / name, dir_fd=self.fd))

    def _kind(self, name: str) -> int | None:
        """The file type standing at `name` (lstat: a link is a link), or None."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None

    def _check_target(self, name: str) -> None:
        mode = self._kind(name)
        if mode is None or stat.S_ISREG(mode):
            return
        if stat.S_ISLNK(mode):
            raise _refuse_link(self.path / name)
        raise UnsafePath(self.path / name, "is not a regular file; it is not replaced")

    @contextlib.contextmanager
    def replace(self, name: str, *, mode: int = SHARED) -> Iterator[BinaryIO]:
        """A binary stream whose content replaces file `name` when the block ends without an error. The old file,
        if any, stays untouched until then; a link (or a folder) at `name` is refused."""
        _plain_name(name)
        self._check_target(name)
        temporary = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                yield handle
            # a link planted at `name` since the check is replaced by the rename, never followed
            os.replace(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self.fd)
            raise

    @contextlib.contextmanager
    def replace_text(self, name: str, *, mode: int = SHARED) -> Iterator[TextIO]:
        """`replace` as a UTF-8 text stream (no newline translation: csv writes its own line ends)."""
        with self.replace(name, mode=mode) as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            yield text
            text.flush()
            text.detach()

    def write(self, name: str, data: str | bytes, *, mode: int = SHARED) -> Path:
        """Replace (or create) file `name` with `data` (text is written as UTF-8), atomically; returns its path."""
        with self.replace(name, mode=mode) as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        return self.path / name


def _plain_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise ValueError(f"not a plain file name: {name!r}")


def write_file(path: Path, data: str | bytes, *, mode: int = SHARED) -> Path:
    """Replace (or create) one file atomically, never through a link (see `Folder.replace`); the folder is created."""
    path = Path(path)
    with Folder(path.parent) as folder:
        return folder.write(path.name, data, mode=mode)


def open_append(path: Path, *, truncate_at: int | None = None) -> IO[str]:
    """An existing regular file opened to append text (a resumed transcript), refused if `path` is a link; with
    `truncate_at`, cut to that many bytes first (a torn last line)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDWR | _NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse_link(path) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePath(path, "is not a regular file; it is not appended to")
        if truncate_at is not None:
            os.ftruncate(fd, truncate_at)
        os.lseek(fd, 0, os.SEEK_END)
        return os.fdopen(fd, "a", encoding="utf-8", newline="\n")
    except BaseException:
        os.close(fd)
        raise


def links_in(path: Path, *, depth: int = 2) -> list[Path]:
    """The symbolic links in folder `path` and its subfolders down to `depth` levels (links are not descended)."""
    found: list[Path] = []
    if path.is_symlink():
        return [path]
    if not path.is_dir():
        return found
    stack = [(Path(path), 0)]
    while stack:
        folder, level = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_symlink():
                found.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False) and level + 1 < depth:
                stack.append((Path(entry.path), level + 1))
    return sorted(found)
