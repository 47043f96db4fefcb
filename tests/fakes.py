"""A deterministic chat model for unit tests of the chain logic (the e2e tests use a real server)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedChatModel(BaseChatModel):
    """Answers with the scripted replies in order and records every prompt it was sent."""

    replies: list[str]
    prompts: list[list[BaseMessage]]  # pass [] in; pydantic copies field defaults anyway

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        self.prompts.append(messages)
        if not self.replies:
            raise AssertionError("the chain called the LLM more often than the test scripted")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self.replies.pop(0)))])
