"""Chat models for the LangChain-seat tests: one that binds tools and answers legally from the bound schema, one
that cannot bind tools. Named by agents as `langchain_factory = "lc_fakes:tool_model"`."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from arena.standin import valid_answer


class ToolModel(BaseChatModel):
    """Binds tools; answers the first bound tool with legal arguments. The first `failing` calls raise (-1: all)."""

    failing: int = 0
    bad_args: bool = False
    _calls: int = PrivateAttr(0)

    @property
    def _llm_type(self) -> str:
        return "tool-fake"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Runnable[Any, BaseMessage]:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self._calls += 1
        if self.failing < 0 or self._calls <= self.failing:
            raise ConnectionError("the provider is down")
        function = kwargs["tools"][0]["function"]
        seed = hashlib.sha256(str(messages[-1].content).encode()).digest()
        args = {"vote": "perhaps"} if self.bad_args else valid_answer(function["parameters"], random.Random(seed))
        message = AIMessage(
            content="",
            tool_calls=[{"name": function["name"], "args": args, "id": "call_1"}],
            usage_metadata={"input_tokens": 900, "output_tokens": 30, "total_tokens": 930,
                            "input_token_details": {"cache_read": 768}},
            response_metadata={"model_name": "tool-fake-1", "finish_reason": "stop"},
        )  # fmt: skip
        return ChatResult(generations=[ChatGeneration(message=message)])


class TextModel(BaseChatModel):
    """No tool binding: reads the schema from the prompt's ```json block and answers in prose with a fenced object."""

    @property
    def _llm_type(self) -> str:
        return "text-fake"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        schema = json.loads(prompt.rsplit("```json", 1)[1].split("```", 1)[0])
        answer = valid_answer(schema, random.Random(len(prompt)))
        text = f"Let me think.\n```json\n{json.dumps(answer)}\n```"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def tool_model() -> ToolModel:
    return ToolModel()


def text_model() -> TextModel:
    return TextModel()
