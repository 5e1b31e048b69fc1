"""The LLM seat against the real `llama-server` (Gemma 3 270M): every structured mode in both schema modes gives
a usable answer, the server's own figures land in the call record, a 400 is sent once and reported as refused, a
context overflow is compacted and answered, and runaway output (reasoning loops, whitespace) is bounded.

Gemma 3 270M is a small base model: what is asserted is what the arena guarantees whatever the model writes (the
request is accepted, the answer is read or refused with a reason, nothing runs past its bound), and that
grammar-constrained modes give answers of the schema's shape.
"""

from __future__ import annotations

import json

import httpx
import pytest
from realkit import drive_to, local_spec

from arena.engine import Kind, load_rules, view
from arena.llm.budget import max_tokens_for
from arena.llm.seat import NoUsableAnswer
from arena.llm.server_info import ServerInfo, server_info_now
from arena.local.server import LocalServer
from arena.players.llm import build_llm_player

VOTE_LIKE = {Kind.VOTE, Kind.SHOOT, Kind.SHERIFF, Kind.DON_CHECK}


@pytest.mark.parametrize("schema", ["per_request", "stable"])
@pytest.mark.parametrize("mode", ["json_schema", "tools", "json_object", "prompt"])
async def test_every_structured_mode_works_on_the_real_server(
    real_server: LocalServer, mode: str, schema: str
) -> None:
    rules = load_rules("fiim")
    game, request = drive_to(rules, 7, VOTE_LIKE)
    spec = local_spec(real_server.base_url, mode, schema=schema, context_tokens=4096)
    player = build_llm_player(spec, request.seat, rules=rules)
    try:
        try:
            answer = await player.decide(view(game, request.seat), request)
            calls = answer.calls
        except NoUsableAnswer as exc:  # a weak model's unusable answer: read and refused with its reason
            calls = exc.calls
            assert not str(exc).startswith(("the server refused", "the model could not be reached")), str(exc)
    finally:
        await player.close()
    assert calls
    call = calls[-1]
    assert call.error is None or call.error.startswith("unusable"), call.error
    assert call.prompt_tokens > 0 and call.completion_tokens > 0  # the server's own figures
    assert call.timings is not None and call.timings["prompt_n"] + call.timings["cache_n"] == call.prompt_tokens
    assert call.completion_tokens <= max_tokens_for(request, spec.max_tokens, "en")
    if mode == "json_schema":  # grammar-constrained: an object of the schema's shape unless the token limit cut it
        if call.finish_reason == "stop":
            assert call.parsed is not None, call.raw
        else:  # a weak model at temperature 0.7 may fill its reasoning to max_tokens
            assert call.finish_reason == "length" and "cut off at the token limit" in (call.error or ""), call.error


async def test_a_bad_request_is_sent_once_and_said_to_be_refused(real_server: LocalServer) -> None:
    rules = load_rules("fiim")
    game, request = drive_to(rules, 7, VOTE_LIKE)
    # llama.cpp refuses an unknown response_format type with a 400 (std::invalid_argument): no retry can change it
    spec = local_spec(real_server.base_url, extra_body={"response_format": {"type": "xml"}})
    player = build_llm_player(spec, request.seat, rules=rules)
    try:
        with pytest.raises(NoUsableAnswer) as caught:
            await player.decide(view(game, request.seat), request)
    finally:
        await player.close()
    assert caught.value.final  # no re-ask: the orchestrator applies the default at once
    assert str(caught.value).startswith("the server refused the request: HTTP 400")
    assert [c.attempt for c in caught.value.calls] == [1]  # not retried


async def test_an_overflow_on_the_real_server_is_compacted_and_answered(real_server: LocalServer) -> None:
    rules = load_rules("fiim")
    game, request = drive_to(rules, 11, VOTE_LIKE)
    seat = request.seat
    # no budget: only the server's 400 (`exceed_context_size_error`) can trigger the compaction
    spec = local_spec(real_server.base_url, context_tokens=None)
    player = build_llm_player(spec, seat, rules=rules)
    conversation = player.conversation
    # a long history, as a seat has late in a game, past the server's 4,096 tokens per slot
    first = conversation.turn(view(game, seat), request)
    filler = " ".join(f"Seat {n % 10 + 1} spoke." for n in range(1500))
    conversation.commit(first, [{"role": "assistant", "content": json.dumps({"reasoning": filler, "vote": None})}])
    try:
        answer = await player.decide(view(game, seat), request)
    finally:
        await player.close()
    errors = [c.error or "" for c in answer.calls]
    assert errors[0].startswith("transport: context overflow"), errors
    assert "exceeds the available context size" in errors[0]
    assert answer.calls[-1].compaction == "overflow" and answer.calls[-1].parsed is not None


async def test_runaway_output_is_bounded(real_server: LocalServer) -> None:
    """With a reasoning field the model may fill forever and nothing to stop it but the bounds: the answer stops at
    the kind's max_tokens, and whitespace inside the object stays within llama.cpp's grammar's bound per position."""
    rules = load_rules("fiim")
    game, request = drive_to(rules, 7, VOTE_LIKE)
    spec = local_spec(real_server.base_url, max_tokens=64, temperature=1.5)
    player = build_llm_player(spec, request.seat, rules=rules)
    try:
        try:
            calls = (await player.decide(view(game, request.seat), request)).calls
        except NoUsableAnswer as exc:
            calls = exc.calls
    finally:
        await player.close()
    call = calls[-1]
    assert call.completion_tokens <= 64
    longest_space = max((len(run) for run in "".join(c if c.isspace() else "|" for c in call.raw).split("|")),
                        default=0)  # fmt: skip
    assert longest_space <= 22  # llama.cpp's `space` rule: "" | " " | "\n"{1,2} [ \t]{0,20}


def test_the_server_reports_its_window_per_slot(real_server: LocalServer) -> None:
    props = httpx.get(real_server.base_url.removesuffix("/v1") + "/props", timeout=10,
                      headers={"Authorization": f"Bearer {real_server.api_key}"}).json()  # fmt: skip
    assert props["default_generation_settings"]["n_ctx"] == 4096 and props["total_slots"] == 4
    assert server_info_now(real_server.base_url) == ServerInfo(4096, 4)  # what preflight reads


def test_the_server_answers_only_the_arena(real_server: LocalServer) -> None:
    """Issue #30: `arena local-model`'s server holds a per-run key only the arena knows, so a request without it (a
    web page the operator has open, another local program) is refused before it can hold a slot, and no page of
    another origin may read even the public routes (llama.cpp reflects any Origin by default)."""
    root = real_server.base_url.removesuffix("/v1")
    chat = {"model": "m", "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 4}
    assert httpx.post(f"{root}/v1/chat/completions", json=chat, timeout=60).status_code == 401
    assert httpx.get(f"{root}/props", timeout=10).status_code == 401
    page = {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
    preflight = httpx.options(f"{root}/v1/chat/completions", headers=page, timeout=10)
    health = httpx.get(f"{root}/health", headers={"Origin": "http://evil.example"}, timeout=10)
    for answer in (preflight, health):  # a browser lets a page read an answer only for its own origin, or `*`
        assert answer.headers.get("access-control-allow-origin") not in ("http://evil.example", "*"), answer.headers
    assert health.status_code == 200  # the arena's own readiness check needs no key
    keyed = httpx.post(f"{root}/v1/chat/completions", json=chat, timeout=300,
                       headers={"Authorization": f"Bearer {real_server.api_key}"})  # fmt: skip
    assert keyed.status_code == 200


def whitespace_outside_strings(raw: str) -> int:
    """How many whitespace characters `raw` (a JSON text, or the head of one cut off) has outside its strings."""
    count, in_string, escaped = 0, False, False
    for c in raw:
        if in_string:
            in_string, escaped = (True, False) if escaped else (c != '"', c == "\\")
        elif c == '"':
            in_string = True
        else:
            count += c.isspace()
    return count


def test_whitespace_outside_strings_reads_strings_and_escapes() -> None:
    assert whitespace_outside_strings('{"a b":"c \\" d","e":[1,2]}') == 0
    assert whitespace_outside_strings('{"a":\n "b c"}') == 2
    assert whitespace_outside_strings('{"reasoning":"cut off \\') == 0  # the head of an answer the limit cut


@pytest.mark.parametrize("schema", ["per_request", "stable"])
async def test_the_compact_grammar_gives_compact_json(real_server: LocalServer, schema: str) -> None:
    """`grammar = true`: llama.cpp takes our GBNF instead of its own schema grammar, and the answer has no
    whitespace outside its strings (nothing for a weak model to loop on). Gemma 270M at temperature 0.7 sometimes
    fills its reasoning to `max_tokens` (the attempt is then refused as cut off, and the seat re-asks): up to three
    attempts, every one compact, and one that the model ended itself is compact JSON of the schema's shape."""
    rules = load_rules("fiim")
    game, request = drive_to(rules, 7, VOTE_LIKE)
    spec = local_spec(real_server.base_url, schema=schema, grammar=True)
    player = build_llm_player(spec, request.seat, rules=rules)
    calls = []
    try:
        for _ in range(3):
            try:
                calls += (await player.decide(view(game, request.seat), request)).calls
                break
            except NoUsableAnswer as exc:
                calls += exc.calls
    finally:
        await player.close()
    assert all(whitespace_outside_strings(c.raw) == 0 for c in calls), [c.raw for c in calls]
    for c in calls:
        if c.finish_reason != "stop":
            assert c.finish_reason == "length" and "cut off at the token limit" in (c.error or ""), c.error
    ended = [c for c in calls if c.finish_reason == "stop"]
    assert ended, [c.raw[-80:] for c in calls]
    assert ended[-1].parsed is not None and ended[-1].error is None
    assert ended[-1].raw == json.dumps(json.loads(ended[-1].raw), ensure_ascii=False, separators=(",", ":"))
