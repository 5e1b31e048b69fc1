"""The `arena` command. Each group of commands lives in its own module of this package and registers itself here.

Start-up is lazy: `COMMANDS` names every command, its module and its short help, so `arena --help` lists them
without importing any of them (no engine, LLM, scenario or renderer module); a command's module is imported only
when that command runs (or shows its own help), so this file imports none of its sibling modules. A new command
is a module here with `register(app)` and one line in `COMMANDS`;
`tests/test_cli_startup.py` checks each line's help against the module's own. Three modules here are not commands
but what the game commands share: `options.py` (the `error:` exit, shared options, the signing key), `seats.py`
(`--seat` specs, the preflight, building the players) and `game.py` (a game played out at the terminal).
The command modules may import anything of `arena`; nothing else in `arena` imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

# fmt: off
COMMANDS: tuple[tuple[str, str, str], ...] = (
    # (command, module in arena/cli/ with `register(app)`, short help as the module's command gives it)
    ("play", "play", "Play one game, live, and save its transcript under --out (default ./transcripts); the path is printed."),  # noqa: E501
    ("verify", "verify", "Check a transcript's hash chain, replay it through the engine and check every event, model call and rewritten prompt."),  # noqa: E501
    ("resume", "play", "Continue a game whose process died, from its transcript, appending to the same file."),
    ("show", "review", "Print a game by day and night: speeches, nominations, vote tables, night results and the end."),
    ("export", "review", "Write one self-contained HTML page of a game (god view and every seat's view), or its judge's score sheet."),  # noqa: E501
    ("prompt", "prompt", "Print the messages seat N was sent (or would be sent) at one of its decisions."),
    ("scenario", "scenario", "Scripted scenarios with expected outcomes (docs/scenarios.md)."),
    ("agents", "agents", "List the agents a seat can name, with where each was found (the first folder wins)."),
    ("stand-in", "standin", "Serve the local OpenAI-compatible stand-in on 127.0.0.1 until interrupted (Ctrl-C)."),
    ("local-model", "local_model", "Serve a real local model (llama.cpp's llama-server) on 127.0.0.1 until interrupted (Ctrl-C)."),  # noqa: E501
    ("serve", "serve", "Serve tables in the browser: each human seat gets a secret link; bots and models play the other seats."),  # noqa: E501
    ("tournament", "tournament", "Play a tournament of configurations, balanced by side, role and seat; resumable; with a cost cap."),  # noqa: E501
    ("cluster-certs", "cluster", "Make a Dask cluster's TLS certificate and key for `arena tournament --executor dask` (mutual TLS)."),  # noqa: E501
    ("report", "report", "Write report.md, report.html (self-contained) and games/seats/days/decisions CSVs for a folder."),  # noqa: E501
    ("field", "field", "Frozen reference fields: list them, show one, check its opponents' behaviour, freeze a new version."),  # noqa: E501
    ("site", "site", "Build a static leaderboard site from runs (or --check one): replays, every number linked to its games."),  # noqa: E501
    ("persuasion", "persuasion", "Measure what sampled speeches did to their listeners' beliefs and votes, by re-asking them without it."),  # noqa: E501
)
# fmt: on

_LOADED: dict[str, Any] = {}  # command name -> its click command, once its module has been imported


def load_command(name: str) -> Any:
    """Import the module of command `name`, let it register on a scratch app, and return the click command."""
    if name not in _LOADED:
        module_name = next(module for command, module, _ in COMMANDS if command == name)
        # __import__, not importlib.import_module: only the former shows in `python -X importtime` (the test reads it)
        module = __import__(f"arena.cli.{module_name}", fromlist=["register"])
        scratch = typer.Typer(add_completion=False)  # completion is the top command's (`arena --install-completion`)
        module.register(scratch)
        built = typer.main.get_command(scratch)
        commands = getattr(built, "commands", None)
        for command, found in commands.items() if commands is not None else [(name, built)]:
            _LOADED.setdefault(command, found)
    return _LOADED[name]


class LazyGroup(TyperGroup):
    """Lists the commands from `COMMANDS`; imports a command's module only to run it."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(name for name, _, _ in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name) or _LOADED.get(cmd_name)
        if found is not None:
            return found
        short = next((text for name, _, text in COMMANDS if name == cmd_name), None)
        return None if short is None else TyperCommand(name=cmd_name, help=short)  # a listing stand-in

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and any(args[0] == name for name, _, _ in COMMANDS):
            load_command(args[0])
        return super().resolve_command(ctx, args)


# Help without Python types. typer 0.29's rich help prints `<bool>` after a flag such as `--quiet`, which reads as if
# it took a value (`--quiet true`), and a repeatable option's annotation as `<list[str]>` or `<list[Path]>`; here a
# flag shows no type and a value its kind (`<text>`, `<path>`, `<en|ru>`). Parsing is unchanged.
_original: Callable[[TyperOption, Any], str | None] | None = getattr(TyperOption, "display_type_rich", None)
_original_argument: Callable[[TyperArgument, Any], str | None] | None = getattr(
    TyperArgument, "display_type_rich", None
)
_PLAIN = {"str": "text", "Path": "path", "int": "integer", "float": "number", "int range": "integer range",
          "float range": "number range"}  # fmt: skip


def plain_type(label: str | None) -> str | None:
    """A help label without Python's spelling: `list[str]` is `text`, `list[Path]` `path` (the option's help says
    it repeats), `str` is `text`; a choice (`en|ru`), a range or a metavar stays as it is."""
    if label is None:
        return None
    bracketed = label.startswith("<") and label.endswith(">")
    inner = label[1:-1] if bracketed else label
    while inner.startswith("list[") and inner.endswith("]"):
        inner = inner[len("list[") : -1]
    inner = "|".join(_PLAIN.get(part, part) for part in inner.split("|"))
    return f"<{inner}>" if bracketed else inner


def _display_type_rich(self: TyperOption, ctx: Any) -> str | None:
    if self.is_flag and self.metavar is None:
        return None
    shown = _original(self, ctx) if _original is not None else None
    return shown if self.metavar is not None else plain_type(shown)


def _argument_type_rich(self: TyperArgument, ctx: Any) -> str | None:
    shown = _original_argument(self, ctx) if _original_argument is not None else None
    return shown if self.metavar is not None else plain_type(shown)


def show_flags_as_flags() -> None:
    """Patch typer's help once (idempotent): flags show no `<bool>` type, values no Python type. A typer without
    the hooks is left alone."""
    if _original is not None:
        TyperOption.display_type_rich = _display_type_rich  # type: ignore[method-assign]
    if _original_argument is not None:
        TyperArgument.display_type_rich = _argument_type_rich  # type: ignore[method-assign,assignment]


show_flags_as_flags()

app = typer.Typer(
    name="arena",
    help="Mafia Arena: LLM agents, bots and humans play Mafia under real club rules.",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=True,  # `arena --install-completion`; the commands themselves carry no completion options
    pretty_exceptions_enable=False,
)


def _version(shown: bool) -> None:
    if shown:
        from arena.version import __version__

        typer.echo(f"arena (mafia-arena) {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Mafia Arena: LLM agents, bots and humans play Mafia under real club rules."""


def main() -> None:
    app()
