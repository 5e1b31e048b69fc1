"""What the Jinja2 sandbox costs: the bots' lines and the LLM system prompt, rendered plain and sandboxed.

Why this exists: every template now renders in `ImmutableSandboxedEnvironment` (a transcript or a prompt set from
someone else must not run code). The sandbox checks every attribute access; this prints what that costs per render.

    .venv/bin/python bench/sandbox_render.py
"""

from __future__ import annotations

import time

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from arena.engine import load_rules
from arena.players.bot_lines import Lines
from arena.prompts import load_prompt_set, rules_context

CONTEXT = {"seat": 3, "target": 5, "by": 2, "seats": "1, 2", "checks": [], "word": "black", "count": 3, "n": 2}


def _bot_lines(env: jinja2.Environment, rounds: int) -> tuple[float, int]:
    data = Lines("en").data
    texts = [t for v in data.values() if isinstance(v, list) for t in v if isinstance(t, str)]
    templates = []
    for text in texts:
        try:
            template = env.from_string(text)
            template.render(**CONTEXT)
        except jinja2.TemplateError:
            continue  # a line that needs other context: left out of both runs alike
        templates.append(template)
    started = time.perf_counter()
    for _ in range(rounds):
        for template in templates:
            template.render(**CONTEXT)
    return time.perf_counter() - started, rounds * len(templates)


def main() -> None:
    strict = jinja2.StrictUndefined
    for name, env in (
        ("plain", jinja2.Environment(undefined=strict)),
        ("sandbox", ImmutableSandboxedEnvironment(undefined=strict)),
    ):
        spent, count = _bot_lines(env, 200)
        print(f"{name:<8} bot line: {spent / count * 1e6:6.1f} µs per render ({count} renders)")
    prompts = load_prompt_set("default", "en")
    plain = jinja2.Environment(loader=prompts.env.loader, trim_blocks=True, lstrip_blocks=True, undefined=strict)
    plain.filters.update(prompts.env.filters)
    context = {**rules_context(load_rules("fiim")), "stable": False, "kinds": []}  # as `Conversation` renders it
    for name, env in (("plain", plain), ("sandbox", prompts.env)):
        template = env.get_template("system.j2")
        started = time.perf_counter()
        for _ in range(200):
            template.render(**context)
        print(f"{name:<8} system.j2: {(time.perf_counter() - started) / 200 * 1e3:6.2f} ms per render")


if __name__ == "__main__":
    main()
