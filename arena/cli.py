"""The `arena` command. Each group of commands lives in its own module and registers itself here."""

from __future__ import annotations

import typer

from arena import cli_llm, cli_play, cli_review, cli_scenario, cli_tournament

app = typer.Typer(
    name="arena",
    help="Mafia Arena: LLM agents, bots and humans play Mafia under real club rules.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (cli_play, cli_review, cli_scenario, cli_llm, cli_tournament):
    module.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
