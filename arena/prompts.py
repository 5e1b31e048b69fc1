"""Prompt sets: the Jinja2 templates in `prompts/<lang>/` that turn rules, roles, events and requests into text.

A prompt set is a folder of templates (`system.j2`, one `role_<role>.j2` per role, one `<kind>.j2` per decision
kind, `events.j2`, `turn.j2`, `repair.j2`). Its hash (over every file's name and bytes) goes into the transcript
header, so a result can be tied to the exact wording that produced it. Player text enters a template only through
the `quote` filter (see `arena/llm/injection.py`). Templates get `rules` (the RuleSet) and the word limits derived
from it, so a custom rules file is described as it is, not as a preset would be.

What a prompt folder is trusted with (docs/security.md, "Prompt sets"): its templates become the text of requests
sent with the user's key, so a set loads only from a folder the user vouched for (`arena.resources`): a set shipped
in `prompts/`, a folder named on the command line, or one an agent definition in a vouched-for agents folder names.
A set is read once, whole, when it loads: only the `*.j2` files inside its language folder, each a regular file
opened without following a link (a template that is a link to `/proc/self/environ` or `~/.netrc`, a folder that is
a link, a FIFO) is refused, with bounds on size and count; Jinja's `include` and `import` then find only those
texts (never a path outside the folder, nor a file that changed since). Templates render in `arena.sandbox`: they
read the data of the records they are given and call none of their methods (pydantic's `parse_file` read files).
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import re
import stat
from collections import defaultdict
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from types import BuiltinMethodType
from typing import Any

import jinja2
from jinja2 import Template, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Context, LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from pydantic import BaseModel

from arena.agents import AgentSpec
from arena.engine import Role, RuleSet
from arena.llm.injection import flags, quote
from arena.llm.schema import ranges
from arena.resources import prompts_root, vouched_prompt_folder
from arena.resources import shipped_set_dir as _shipped
from arena.sandbox import PLAIN, DataSandbox
from arena.template_speed import SYNC_FILTERS, Loop

PROMPTS_DIR = prompts_root()
LANGUAGES = ("en", "ru")
MAX_TEMPLATE_BYTES = 1024 * 1024  # one template: the shipped ones are a few kilobytes
MAX_SET_BYTES = 8 * 1024 * 1024  # one language of a set, all templates
MAX_TEMPLATES = 500
MAX_DEPTH = 8  # folders inside a language folder
_BLANK_RUNS = re.compile(r"\n(?:[ \t]*\n){2,}")
REQUIRED = ("system.j2", "turn.j2", "events.j2", "repair.j2", *(f"role_{r.value}.j2" for r in Role))


_FORMATS = frozenset({"format", "format_map"})


def _always_has(kind: type, attr: str) -> bool:
    """Whether every instance of `kind` has `attr` where plain attribute access finds it, so reading it never
    raises AttributeError: a method of a plain value or a loop's property (on the class itself), a loop's counters,
    an enum member's value or name, a field that a dataclass's `__init__` always sets, a pydantic model's field
    (every model here is validated, so it holds each of them)."""
    if kind in PLAIN:
        return any(attr in base.__dict__ for base in kind.__mro__)
    if issubclass(kind, LoopContext):
        return attr in ("index0", "depth0") or any(isinstance(k.__dict__.get(attr), property) for k in kind.__mro__)
    if issubclass(kind, Enum):
        return attr in ("value", "name")
    if dataclasses.is_dataclass(kind):
        return any(f.name == attr and f.init for f in dataclasses.fields(kind))
    if issubclass(kind, BaseModel):
        return attr in kind.model_fields
    return False


class _CodeGenerator(CodeGenerator):
    """Jinja's code generator, with `x.attr` read inline where the sandbox's verdict is already known: the generated
    code is `(t.attr if type(t := x) in S else environment.getattr(t, "attr"))`, where S is the live set of the
    types whose `attr` the sandbox judged safe and every instance has (`_Sandbox.fast`). The same value as
    `environment.getattr` gives for them (the attribute), without a Python call per read; every other read, and
    the first of each type, takes the sandbox's path. Never `format`/`format_map` (the sandbox wraps str.format)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fast_names: dict[str, str] = {}  # attribute -> the module global holding its set of types

    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        if self.environment.is_async or node.attr in _FORMATS or not node.attr.isidentifier():
            super().visit_Getattr(node, frame)
            return
        fast = self._fast_names.setdefault(node.attr, f"t_fa_{len(self._fast_names)}")
        self.write(f"(t_fa.{node.attr} if type(t_fa := ")  # the condition runs first: `x` evaluated once
        self.visit(node.node, frame)
        self.write(f") in {fast} else environment.getattr(t_fa, {node.attr!r}))")

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        super().visit_Template(node, frame)
        for attr, fast in self._fast_names.items():  # module globals, read when a render runs
            self.writeline(f"{fast} = environment.fast({attr!r})")
        if not self.environment.is_async:  # the module's `for` loops make their `loop` of the environment's class
            self.writeline("LoopContext = environment.loop_class")


class _Sandbox(DataSandbox):
    """The package's sandbox (`arena.sandbox`: the immutable sandbox, and no method of a record called) with its
    attribute verdicts remembered. Jinja decides whether `obj.attr` is safe from the attribute's name and the
    object's type (private or internal names, mutating methods of lists, dicts and sets, a record's methods), so the
    verdict is cached per (type, name): the same checks, made once per process instead of on each of the hundreds
    of attribute reads of every turn (a third of a tournament client's CPU before)."""

    code_generator_class = _CodeGenerator

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._verdicts: dict[tuple[type, str], bool] = {}
        self._safe: dict[type, set[str]] = {}  # per type, the names judged safe (never `format`/`format_map`)
        self._fast: dict[str, set[type]] = {}  # per name, the types judged safe that always have it (`fast`)
        self._templates: dict[tuple[str, str | None], Template] = {}
        self.loop_class: type[LoopContext] = Loop  # the `loop` of the templates' `for` (`_CodeGenerator`)

    def fast(self, attr: str) -> set[type]:
        """The live set of types whose `attr` generated code reads inline (`_CodeGenerator`)."""
        return self._fast.setdefault(attr, set())

    def getattr(self, obj: Any, attribute: str) -> Any:
        # an attribute already judged safe on this type is read directly; `format`/`format_map` always take the
        # sandbox's path (it wraps str.format), and anything missing falls back to it (item lookup, undefined)
        safe = self._safe.get(type(obj))
        if safe is not None and attribute in safe:
            try:
                return getattr(obj, attribute)
            except AttributeError:
                pass
        return super().getattr(obj, attribute)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        key = (type(obj), attr)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = super().is_safe_attribute(obj, attr, value)
            if verdict and attr not in _FORMATS:
                self._safe.setdefault(type(obj), set()).add(attr)
                if _always_has(type(obj), attr):
                    self.fast(attr).add(type(obj))
        return verdict

    # The three below are Jinja's per-render bookkeeping, made cheaper without changing what a template may do or
    # what it renders: each turn renders a template that imports one, includes two and calls a macro per log line.

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """A template's own macro (the log line of each event) and a built-in method (a name's `dict.get`) are
        called directly. The sandbox's checks and the context's dispatch read attributes (`unsafe_callable`,
        `alters_data`, `jinja_pass_arg`) that a macro never has and a built-in method cannot carry, so they would
        only confirm the call; which method a template may reach at all was decided when it read the attribute."""
        kind = type(__obj)
        if kind is not Macro and kind is not BuiltinMethodType:
            return super().call(__context, __obj, *args, **kwargs)
        kwargs.pop("_block_vars", None)  # the context's bookkeeping, which Context.call drops too
        kwargs.pop("_loop_vars", None)
        try:
            if kind is BuiltinMethodType:
                return __obj(*args, **kwargs)
            if kwargs or len(args) != __obj._argument_count or __obj.caller or __obj.catch_varargs:
                return __obj(*args, **kwargs)
            # every argument given by position, none special: what Macro.__call__ would pass its function
            # (`_invoke`, with the macro's own autoescape: no eval context is handed to it here)
            if __obj._environment.is_async or __obj._default_autoescape:
                return __obj._invoke(list(args), __obj._default_autoescape)
            return __obj._func(*args)
        except StopIteration:  # as Context.call words it
            return __context.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain dict instead of Jinja's ChainMap over the environment's: every render
        copies them into its context, and iterating a ChainMap was a tenth of a turn's rendering. The environment's
        globals are never changed once the set is loaded (`load_prompt_set` adds filters only), so the snapshot
        stays what the ChainMap would show."""
        return {**self.globals, **(d or {})}

    def get_template(
        self, name: str | Template, parent: str | None = None, globals: MutableMapping[str, Any] | None = None
    ) -> Template:
        """Each `include`/`import` of a render looks its template up again; without reloading (`auto_reload` is
        off) the answer never changes, so it is remembered by name without Jinja's locked LRU and weak references."""
        if globals is not None or not isinstance(name, str):
            return super().get_template(name, parent, globals)
        key = (name, parent)
        template = self._templates.get(key)
        if template is None:
            template = self._templates[key] = super().get_template(name, parent)
        return template


class PromptError(ValueError):
    """A prompt set that cannot be used: missing folder or template, or a template error (named)."""


def shipped_set_dir(prompt_set: str) -> Path | None:
    """The folder of a set shipped in `prompts/` (`default` is `prompts/` itself), or None. Only a plain name counts,
    never a path, and neither a language folder (`en`, `ru`) nor `bots`: they are parts of sets, not sets."""
    return _shipped(prompt_set, PROMPTS_DIR)


def prompt_dir(prompt_set: str, lang: str) -> Path:
    """`default` is `prompts/<lang>`; a shipped set's name is `prompts/<name>/<lang>`; anything else is a folder
    path, `<path>/<lang>`. A shipped name is resolved first, so a folder of that name in the working directory
    never stands in for the shipped set."""
    shipped = shipped_set_dir(prompt_set)
    if shipped is not None:
        return shipped / lang
    return Path(prompt_set) / lang


def set_folder(prompt_set: str) -> Path:
    """The folder of a set the arena may load: shipped, or vouched for by the user (`arena.resources`); else a
    PromptError that says how to vouch for it."""
    folder = shipped_set_dir(prompt_set) or vouched_prompt_folder(prompt_set)
    if folder is None:
        raise PromptError(
            f"prompt set {prompt_set!r} is neither shipped in prompts/ nor a folder you vouched for, so its templates "
            "are not read (a folder from someone else could read your files or send your key's requests). Vouch "
            "for a folder by naming it: --prompt-folder DIR, or prompt_set in an agent definition of a folder you "
            "vouch for (--agents-dir, the user folder); see docs/security.md"
        )
    return folder


def _open_dir(name: str, dir_fd: int | None, where: str) -> int:
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and dir_fd is not None:
            kind = "a symbolic link" if exc.errno == errno.ELOOP else "not a folder"
            raise PromptError(f"{where} is {kind}; a prompt set reads only its own folders and files") from None
        raise PromptError(f"{where}: cannot open the folder ({exc.strerror})") from None


def _read_template(name: str, dir_fd: int, where: str) -> bytes:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        why = "a symbolic link" if exc.errno == errno.ELOOP else f"unreadable ({exc.strerror})"
        raise PromptError(f"{where} is {why}; a prompt set reads only its own regular files") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PromptError(f"{where} is not a regular file; a prompt set reads only its own regular files")
        data = handle.read(MAX_TEMPLATE_BYTES + 1)
    if len(data) > MAX_TEMPLATE_BYTES:
        raise PromptError(f"{where} is larger than {MAX_TEMPLATE_BYTES:,} bytes")
    return data


def read_templates(directory: Path) -> dict[str, str]:
    """Every `*.j2` template under `directory` (one language of a set) by its name relative to it (`a/b.j2`), read
    once: the folder itself opened as given (its path is the user's), everything inside it without following a
    link (a link anywhere inside is refused), regular files only, UTF-8, within MAX_TEMPLATE_BYTES each,
    MAX_SET_BYTES and MAX_TEMPLATES in all. Any other file (`notes.txt`) is never read, so no template includes it."""
    root = _open_dir(str(directory), None, str(directory))
    out: dict[str, str] = {}
    total = 0
    stack: list[tuple[int, str, int]] = [(root, "", 0)]
    try:
        while stack:
            fd, prefix, depth = stack.pop()
            try:
                with os.scandir(fd) as entries:
                    listed = sorted((e.name, e.is_symlink(), e.is_dir(follow_symlinks=False)) for e in entries)
                for name, link, folder in listed:
                    rel = f"{prefix}{name}"
                    where = f"{directory / rel}"
                    if link:  # whatever it points at: a prompt set holds no link
                        raise PromptError(f"{where} is a symbolic link; a prompt set reads only its own regular files")
                    if folder and depth < MAX_DEPTH:
                        stack.append((_open_dir(name, fd, where), f"{rel}/", depth + 1))
                    elif name.endswith(".j2") and not folder:
                        data = _read_template(name, fd, where)
                        total += len(data)
                        if total > MAX_SET_BYTES or len(out) >= MAX_TEMPLATES:
                            raise PromptError(
                                f"{directory}: more than {MAX_TEMPLATES} templates or {MAX_SET_BYTES:,} bytes"
                            )
                        try:
                            out[rel] = data.decode("utf-8")
                        except UnicodeDecodeError as exc:
                            raise PromptError(f"{where} is not UTF-8 text (byte {exc.start})") from None
            finally:
                os.close(fd)
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    return out


def hash_templates(sources: dict[str, str]) -> str:
    """sha256 over the sorted relative names and bytes of every template; the first 16 hex digits (the same digest
    as the folder's files read one by one, in path order)."""
    digest = hashlib.sha256()
    for name in sorted(sources, key=lambda n: tuple(n.split("/"))):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(sources[name].encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def hash_dir(directory: Path) -> str:
    """The hash of the set in `directory` (`hash_templates` of what `read_templates` reads)."""
    return hash_templates(read_templates(directory))


def _seats(value: Any) -> str:
    return ", ".join(str(v) for v in value)


def _brief(text: str) -> str:
    """A decision's situation without its field lines (`- "field": ...`): the stable request shape explains the
    fields once, in the system prompt, and gives the legal values in the turn's last line."""
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith('- "'))


@dataclass(frozen=True, slots=True)
class VoteRun:
    """Consecutive public votes of one kind for one target, shown as one line of the game log (`events.j2`): a
    vote round takes one line per candidate instead of one per voter, with the same facts. `seq` is the first
    vote's, so every log line still starts with a seq the seat may see."""

    seq: int
    target: int | None
    value: str
    seats: tuple[int, ...]
    type: str = "vote_run"
    seat: None = None


def _vote_runs(events: list[Any]) -> list[Any]:
    """The events with each run of `vote_cast` events sharing a target and a value merged into one `VoteRun`.
    Only the events of one turn are merged, so the log stays append-only."""
    out: list[Any] = []
    run: list[Any] = []

    def close() -> None:
        if run:
            first = run[0]
            out.append(VoteRun(first.seq, first.target, first.value, tuple(e.seat for e in run)))
            run.clear()

    for event in events:
        if event.type == "vote_cast":
            if run and (run[0].target, run[0].value) != (event.target, event.value):
                close()
            run.append(event)
            continue
        close()
        out.append(event)
    close()
    return out


@dataclass(frozen=True)
class PromptSet:
    """One language of one prompt set, ready to render: its templates were read once, when it loaded."""

    name: str
    lang: str
    directory: Path
    hash: str
    env: ImmutableSandboxedEnvironment
    templates: frozenset[str] = frozenset()

    def render(self, template: str, **context: Any) -> str:
        try:
            text = self.env.get_template(template).render(**context)
        except jinja2.TemplateNotFound as exc:
            raise PromptError(f"prompt set {self.name!r} ({self.lang}) has no template {exc.name}") from None
        except jinja2.TemplateError as exc:  # e.g. the sandbox refusing an unsafe attribute: a named error
            raise PromptError(f"prompt set {self.name!r} ({self.lang}): {template}: {exc}") from None
        return _BLANK_RUNS.sub("\n\n", text).strip()  # optional blocks leave blank lines; player text has none

    def has(self, template: str) -> bool:
        return template in self.templates


# how a prompt set's templates render (beside its sandbox, loader and filters)
ENV_OPTIONS: dict[str, Any] = {
    "undefined": jinja2.StrictUndefined,
    "autoescape": False,  # plain text for models; player text goes through `quote`
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": False,
    "auto_reload": False,  # templates are read once per process; no stat() per render
}


@lru_cache(maxsize=32)
def load_prompt_set(prompt_set: str = "default", lang: str = "en") -> PromptSet:
    """Load (once per process) and check a prompt set: shipped or vouched for (`set_folder`), its language folder
    read whole and safely (`read_templates`), every required template there, every template compiled."""
    if lang not in LANGUAGES:
        raise PromptError(f"unknown language {lang!r}; prompts exist for {', '.join(LANGUAGES)}")
    folder = set_folder(prompt_set)
    directory = folder / lang
    if not directory.is_dir() or directory.is_symlink():
        raise PromptError(f"prompt set {prompt_set!r}: no folder {directory}")
    sources = read_templates(directory)
    missing = [name for name in REQUIRED if name not in sources]
    if missing:
        raise PromptError(f"prompt set {prompt_set!r} ({lang}) lacks {', '.join(missing)} in {directory}")
    # sandboxed: a prompt set may come from anyone (a shared folder); no attribute walk reaches Python internals,
    # and no method of a record is called (`arena.sandbox`); `include`/`import` find only the texts read above
    env = _Sandbox(loader=jinja2.DictLoader(sources), **ENV_OPTIONS)
    env.filters["quote"] = quote
    env.filters["seats"] = _seats
    env.filters["flagged"] = lambda text: bool(flags(text))
    env.filters["brief"] = _brief
    env.filters["vote_runs"] = _vote_runs
    env.filters["ranges"] = lambda value: ranges(sorted(value))
    env.filters.update(SYNC_FILTERS)  # Jinja's own, with their per-item work done once per use (template_speed.py)
    for name in sorted(sources):  # compile now: a syntax error names its file before a game,
        try:  # and no seat waits for a compile mid-game
            env.get_template(name)
        except jinja2.TemplateSyntaxError as exc:
            raise PromptError(
                f"prompt set {prompt_set!r} ({lang}): {exc.filename or exc.name}:{exc.lineno}: {exc.message}"
            ) from None
    return PromptSet(prompt_set, lang, directory, hash_templates(sources), env, frozenset(sources))


def rules_context(rules: RuleSet) -> dict[str, Any]:
    """What the templates need beyond the RuleSet itself: word limits, the roles dealt, the black count."""
    sp = rules.speech
    words = {
        "regular": sp.words(sp.regular_s),
        "intro": sp.words(sp.intro_s),
        "extra": sp.words(sp.extra_s),
        "tie": sp.words(sp.tie_s),
        "last_word_voted": sp.words(sp.last_word_voted_s),
        "last_word_night": sp.words(sp.last_word_night_s),
        "nominate_only": sp.words(sp.nominate_only_s),
        "short": sp.words(sp.short_speech_s),
        "black_message": sp.words(rules.night0.message_s),
    }
    dealt = [(role, count) for role in Role if (count := rules.count(role)) > 0]
    black = rules.count(Role.MAFIA) + rules.count(Role.DON)
    has = defaultdict(int, {role.value: count for role, count in dealt})  # `has.doctor` is 0 when none is dealt
    return {"rules": rules, "words": words, "dealt": dealt, "has": has, "black_count": black}


def prompt_set_hash_for(seats: Mapping[int, AgentSpec], lang: str) -> str | None:
    """The transcript header's `prompt_set_hash`: the hash of the prompt set the model seats use (None without
    any); `set/lang:hash` entries joined by commas when seats use different sets or languages."""
    used = sorted(
        {(spec.prompt_set, spec.language or lang) for spec in seats.values() if spec.kind in ("llm", "langchain")}
    )
    if not used:
        return None
    if len(used) == 1:
        return load_prompt_set(*used[0]).hash
    return ",".join(f"{name}/{language}:{load_prompt_set(name, language).hash}" for name, language in used)
