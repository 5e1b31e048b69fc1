"""Finding the JSON object in an answer takes linear time (issue 16, item 5).

The attack: `extract_object` tried a decode at every `{`, each over the rest of the text, so an answer of 250,000
braces (under the 256 KiB cap) blocked `arena serve`'s event loop for 40 s, and a 1.3 MB crafted transcript kept
verify, show and export busy for more than 90 s. The measure here is the work handed to the JSON decoder (characters
it may read, and how many decodes), counted at `JSONDecoder.raw_decode`, which every decode goes through: it must
grow linearly with the text, from a bounded number of start positions. Timings are in bench/extract.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from arena.engine import Game, load_rules, view
from arena.llm import seat as seat_module
from arena.llm.extract import NoJSON, extract_object
from arena.llm.modes import Completion
from arena.llm.usage import Usage

CRAFTED: dict[str, Callable[[int], str]] = {
    "braces": lambda n: "{" * n,
    "nested keys": lambda n: '{"a":' * (n // 5),
    "prose braces then an object": lambda n: "{x} " * (n // 4) + '{"vote": true}',
    "fences": lambda n: "```" * (n // 3),
    "think": lambda n: "<think>" * (n // 7),
    "an open array": lambda n: '{"a": [' + "0," * (n // 2),
}


def _work(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(characters the decoder was handed from its start index, decodes) for one extraction, truncated or not."""
    seen = [0, 0]
    original = json.JSONDecoder.raw_decode

    def counting(self: json.JSONDecoder, s: str, idx: int = 0) -> tuple[Any, int]:
        seen[0] += len(s) - idx
        seen[1] += 1
        return original(self, s, idx)

    with monkeypatch.context() as patch:
        patch.setattr(json.JSONDecoder, "raw_decode", counting)
        for truncated in (False, True):
            with contextlib.suppress(NoJSON):
                extract_object(text, truncated=truncated)
    return seen[0], seen[1]


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_the_decoder_reads_each_character_a_bounded_number_of_times(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    small, large = (_work(CRAFTED[name](n), monkeypatch) for n in (20_000, 80_000))
    for (chars, decodes), n in ((small, 20_000), (large, 80_000)):
        assert chars <= 80 * n, f"{name}: {chars:,} characters decoded for a {n:,}-character answer"
        assert decodes <= 80, f"{name}: {decodes} decodes"
    assert large[1] <= small[1] + 2, "the number of start positions does not grow with the answer"


def test_what_models_write_is_still_found() -> None:
    text = "{x} " * 10 + '{"vote": true}'  # a few stray braces before the object: still read
    assert extract_object(text).value == {"vote": True}
    assert extract_object('<think>{"vote": false}</think>```json\n{"vote": true}\n```').how == "fenced"


def test_a_long_answer_is_read_off_the_event_loop() -> None:
    """A seat reads an answer over OFF_LOOP_CHARS in a worker thread, so `arena serve`'s loop keeps serving."""
    from arena.players.llm import LLMPlayer

    rules = load_rules("fiim")
    game = Game(rules, 1)
    request = game.pending()[0]
    threads: list[str] = []
    original = seat_module.read_completion

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return original(*args, **kwargs)

    async def ask(raw: str) -> None:
        from arena.llm.client import ClientSettings, LLMClient
        from arena.llm.conversation import Conversation
        from arena.llm.modes import Mode
        from arena.prompts import load_prompt_set

        conversation = Conversation(load_prompt_set("default", "en"), rules, request.seat, Mode.JSON_SCHEMA)
        settings = ClientSettings(model="m", base_url="http://127.0.0.1:9/v1", api_key="no-key")
        player = LLMPlayer(request.seat, LLMClient(settings), conversation)
        turn = conversation.turn(view(game, request.seat), request)
        with pytest.raises(seat_module.NoUsableAnswer):
            await player.conclude(turn, [], request, Completion(raw, "stop", None, "m", Usage(), 1.0), 1, 600)
        await player.close()

    seat_module.read_completion = spy  # type: ignore[assignment]
    try:
        asyncio.run(ask("{" * (seat_module.OFF_LOOP_CHARS + 1)))
        asyncio.run(ask("{ not json }"))
    finally:
        seat_module.read_completion = original  # type: ignore[assignment]
    assert threads[0] != threading.main_thread().name and threads[1] == threading.main_thread().name
