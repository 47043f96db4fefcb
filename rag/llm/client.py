"""The LLM layer: one OpenAI-compatible interface for OpenAI, vLLM, Ollama, llama.cpp's server.

``llm = auto`` picks, in order: the server in ``CITELINE_LLM_BASE_URL``; OpenAI when
``OPENAI_API_KEY`` is set; the embedded model when its extra is installed; else ``none`` (the
extractive answerer). The embedded model is served by llama.cpp's server (``llama_cpp.server``
or the prebuilt ``xllamacpp``; see ``rag.llm.models.SERVERS``) on a free loopback port, so that it
is reached exactly like every other backend and the chain has one code path. That server is the
resident one (:mod:`rag.llm.resident`): shared by every citeline process of the user and data dir,
and stopped after ``llm_idle_minutes`` without use; with ``llm_idle_minutes = 0`` each process
starts its own (:class:`LocalServer`) and stops it at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rag.errors import BackendUnavailable, BadInput, CitelineError, NotFound
from rag.llm.models import (
    INSTALL_HINT,
    ensure_weights,
    interrupt_held,
    lookup,
    parts_installed,
    server_command,
    server_module,
    stop_process,
)
from rag.llm.ports import free_port
from rag.llm.prefix import prepare_server
from rag.settings import Settings
from rag.text import loop_start

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable

OPENAI_DEFAULT_MODEL = "gpt-4o-mini"


@dataclass
class LLMHandle:
    """A chat model and how to name it in answers and reports; ``model`` None means no LLM.

    Every call goes through :meth:`invoke` or :meth:`stream`, so a failing server is one
    one-line :class:`CitelineError` (naming the server, never a credential) on every path.
    """

    kind: str  # "openai" (any compatible server), "local", or "none"
    model: BaseChatModel | None
    name: str
    base_url: str | None = None
    # Held around every request (the resident server counts it as use: no idle shutdown meanwhile).
    in_use: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext

    def invoke(self, prompt: str | list[BaseMessage], max_tokens: int | None = None) -> str:
        """The model's whole reply to a prompt or a message list, stripped; ``max_tokens`` caps a
        short call's reply below the answer length (every reply token costs ~85 ms on 2 cores).
        Streamed and read by :func:`read_reply`, so a reply that falls into a loop stops there."""
        model = self.model.bind(max_tokens=max_tokens) if max_tokens else self.model
        return read_reply(self._pieces(model, prompt))

    def stream(self, messages: list[BaseMessage]) -> Iterator[str]:
        """The reply piece by piece, as the server sends it; closing the iterator early ends the
        request (the server stops writing)."""
        return self._pieces(self.model, messages)

    def _pieces(self, model: Runnable, prompt: str | list[BaseMessage]) -> Iterator[str]:
        """The non-empty pieces of one streamed request, held in use, failures as one-line errors."""
        try:
            with self.in_use():
                for chunk in model.stream(prompt):
                    if chunk.content:
                        yield str(chunk.content)
        except CitelineError:
            raise
        except Exception as exc:
            raise describe_llm_error(exc, self) from None


def read_reply(pieces: Iterator[str], on_piece: Callable[[str], None] | None = None) -> str:
    """A streamed reply, stripped, each piece passed to ``on_piece`` as it comes. A reply that
    falls into a loop (:func:`rag.text.loop_start`) is cut where the loop starts and the stream
    closed, which ends the request: the server stops writing a loop to the length limit."""
    text = ""
    try:
        for piece in pieces:
            text += piece
            if on_piece:
                on_piece(piece)
            if (start := loop_start(text)) is not None:
                text = text[:start]
                break
    finally:
        close = getattr(pieces, "close", None)
        if close:
            close()
    return text.strip()


def local_available(settings: Settings) -> bool:
    """The embedded model can run: a llama.cpp server and every weight part are installed."""
    return server_module() is not None and parts_installed(lookup(settings.local_model))


def resolve_kind(settings: Settings) -> str:
    """What ``llm = auto`` means on this machine (see the module docstring for the order)."""
    if settings.llm != "auto":
        return settings.llm
    if settings.llm_base_url or settings.api_key:
        return "openai"
    return "local" if local_available(settings) else "none"


class LocalServer:
    """llama.cpp's server (``rag.llm.models.server_command``) on 127.0.0.1, started on demand and
    stopped at exit."""

    _running: ClassVar[dict[str, LocalServer]] = {}

    def __init__(self, settings: Settings) -> None:
        if server_module() is None:
            raise BackendUnavailable(f"no llama.cpp server is installed; {INSTALL_HINT}")
        self.model = lookup(settings.local_model)
        self.weights = ensure_weights(self.model, settings.models_dir)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        log = settings.data_dir / "llama-server.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = log.open("ab")
        command = server_command(self.model, self.weights, self.port, settings.context_tokens)
        atexit.register(self.stop)
        for _ in range(2):  # a server that died on a state file is started again (the file is gone)
            with interrupt_held():  # a Ctrl-C in Popen would lose the server ``stop`` must end
                self.process = subprocess.Popen(
                    command, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            self._wait_ready(timeout=180, log=log)
            prepared = prepare_server(command, self.port, self.weights, log, timeout=settings.llm_timeout)
            if not prepared or self.process.poll() is None:
                break

    def _wait_ready(self, timeout: float, log) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BackendUnavailable(
                    f"the embedded LLM server exited (code {self.process.returncode}); see {log}"
                )
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise BackendUnavailable(f"the embedded LLM server did not start within {timeout:.0f}s; see {log}")

    def stop(self) -> None:
        """Terminate the server (at exit): it holds ~1 GB and a port."""
        process = getattr(self, "process", None)  # None: interrupted before it was started
        if process is not None:
            stop_process(process)
        self._log.close()

    @classmethod
    def shared(cls, settings: Settings) -> LocalServer:
        """One server per model per process: starting one costs seconds and a gigabyte."""
        key = settings.local_model
        if key not in cls._running or cls._running[key].process.poll() is not None:
            cls._running[key] = cls(settings)
        return cls._running[key]


def chat_model(settings: Settings, base_url: str | None, model: str, api_key: str | None) -> BaseChatModel:
    """One LangChain chat model for every backend: deterministic (temperature 0) and bounded."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=api_key or "not-needed",
        temperature=0,
        max_completion_tokens=settings.llm_max_tokens,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_retries,
        streaming=True,
    )


def make_llm(settings: Settings) -> LLMHandle:
    """The LLM the settings ask for, started (embedded server) or checked (named model) as needed."""
    kind = resolve_kind(settings)
    if kind == "none":
        return LLMHandle("none", None, "none (extractive)")
    if kind == "local" and settings.llm_idle_minutes > 0:
        from rag.llm import resident

        if not local_available(settings):
            raise BackendUnavailable(f"the embedded model is not installed; {INSTALL_HINT}")
        state = resident.connect(settings)  # checks the directory the use file is in
        served = lookup(settings.local_model).name
        with resident.in_use(settings):  # importing the client library (~1 s) is no idle time
            return LLMHandle(
                "local",
                chat_model(settings, state.base_url, served, state.token),
                f"local:{served}",
                state.base_url,
                in_use=lambda: resident.in_use(settings),
            )
    if kind == "local":
        server = LocalServer.shared(settings)
        name = f"local:{server.model.name}"
        return LLMHandle(
            "local", chat_model(settings, server.base_url, server.model.name, None), name, server.base_url
        )
    if not settings.llm_base_url and not settings.api_key:
        raise BadInput("llm 'openai' needs OPENAI_API_KEY or CITELINE_LLM_BASE_URL")
    model = settings.llm_model or (
        OPENAI_DEFAULT_MODEL if not settings.llm_base_url else _served_model(settings)
    )
    return LLMHandle(
        "openai",
        chat_model(settings, settings.llm_base_url, model, settings.api_key),
        model,
        settings.llm_base_url,
    )


def _served_model(settings: Settings) -> str:
    """The first model an OpenAI-compatible server lists, when the user named none."""
    import httpx

    url = settings.llm_base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    try:
        models = httpx.get(url, headers=headers, timeout=min(settings.llm_timeout, 10)).json()["data"]
        return str(models[0]["id"])
    except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
        raise BackendUnavailable(
            f"cannot reach the LLM server at {settings.llm_base_url} ({exc.__class__.__name__}); "
            "check CITELINE_LLM_BASE_URL or set CITELINE_LLM_MODEL"
        ) from None


def describe_llm_error(exc: Exception, handle: LLMHandle) -> CitelineError:
    """A one-line message for the failures users actually hit, without echoing credentials."""
    import openai

    where = handle.base_url or "the OpenAI API"
    if isinstance(exc, openai.APITimeoutError):
        return BackendUnavailable(f"the LLM at {where} timed out; raise CITELINE_LLM_TIMEOUT or try again")
    if isinstance(exc, openai.APIConnectionError):
        return BackendUnavailable(f"cannot reach the LLM at {where}; is the server running?")
    if isinstance(exc, openai.AuthenticationError):
        return BackendUnavailable(f"the LLM at {where} rejected the API key (check OPENAI_API_KEY)")
    if isinstance(exc, openai.NotFoundError):
        return NotFound(f"model {handle.name!r} not found at {where}; set CITELINE_LLM_MODEL")
    if isinstance(exc, openai.APIStatusError):
        return BackendUnavailable(f"the LLM at {where} answered HTTP {exc.status_code}")
    return CitelineError(f"LLM call failed: {exc.__class__.__name__}")  # unknown: no class to promise
