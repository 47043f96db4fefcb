"""The interactive chat: follow-ups that use the conversation, slash commands, saved history.

Reads from a TTY with prompt_toolkit (line editing, history across sessions) or, when stdin is a
pipe, line by line, so scripts and tests can drive it. Each question goes through the same
:class:`~rag.api.Library` as ``ask``; the last turns are passed along so follow-ups are rewritten
into standalone questions before retrieval.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator

from rag.api import Library
from rag.errors import CitelineError
from rag.log.store import new_conversation
from rag.records import Answer, Turn
from rag.ui import render

HELP = """Commands:
  /sources      the sources of the last answer
  /show ID      a paper's full abstract and provenance
  /summarize T  a cited overview of the papers on topic T
  /reset        forget the conversation (follow-ups start fresh)
  /help         this help
  /exit         leave (so do "exit", "quit" and Ctrl-D)
Anything else is a question."""


# The most of a piped line a transcript shows before its answer or its error, and the history keeps.
_ECHOED, _KEPT = 500, 10_000


class ChatSession:
    """One conversation: its turns, its last answer, and the library it asks."""

    def __init__(self, library: Library, history_file, k: int | None = None, mode: str = "hybrid") -> None:
        self.library = library
        self.history_file = history_file
        self.k, self.mode = k, mode
        self.turns: list[Turn] = []
        self.last: Answer | None = None
        self.failures = 0
        self.conversation = new_conversation()  # the log groups this session's turns

    def lines(self) -> Iterator[str]:
        """Input lines: prompt_toolkit on a terminal (history kept), else stdin line by line."""
        self.history_file.parent.mkdir(parents=True, exist_ok=True)
        if sys.stdin.isatty():
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import FileHistory

            session = PromptSession(history=FileHistory(str(self.history_file)))
            while True:
                try:
                    yield session.prompt("citeline> ")
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    return
        for line in sys.stdin:
            # A line that is not UTF-8 is kept readable here; the question's own check refuses it.
            with self.history_file.open("a", encoding="utf-8", errors="replace") as fh:
                fh.write(f"\n# {time.strftime('%Y-%m-%d %H:%M:%S')}\n+{line.rstrip()[:_KEPT]}\n")
            yield line

    def handle(self, line: str) -> bool:
        """Process one input line; False means the session is over."""
        line = line.strip()
        if not line:
            return True
        if line.startswith("/"):
            return self.command(line)
        if line.lower() in ("exit", "quit"):  # as a shell or a REPL is left: no question to answer
            return False
        if not sys.stdin.isatty():  # a terminal already shows what was typed; a transcript does not
            # (a line far over any question's length is shown cut: its error says how long it was)
            echo = line if len(line) <= _ECHOED else f"{line[:_ECHOED]}…"
            render.console.print(f"[bold cyan]> {render.shown(echo)}[/]")
        # Streamed on a terminal only: there a draft the check revises is rewritten in place; a
        # transcript gets the checked answer once.
        streaming = sys.stdout.isatty()
        render.stream_reset()
        try:
            answer = self.library.ask(
                line,
                self.turns,
                k=self.k,
                mode=self.mode,
                on_token=render.stream_token if streaming else None,
                conversation=self.conversation,
                kind="chat",
            )
        except CitelineError as exc:
            self._error(exc)
            return True
        render.answer_footer(answer, streamed=streaming)
        self.last = answer
        if not answer.abstained:
            self.turns.append(Turn(line, answer.text, tuple(c.paper.id for c in answer.citations)))
        return True

    def command(self, line: str) -> bool:
        """Run one slash command; False ends the session."""
        name, _, arg = line.partition(" ")
        actions: dict[str, Callable[[str], bool]] = {
            "/exit": lambda _: False,
            "/quit": lambda _: False,
            "/help": self._help,
            "/reset": self._reset,
            "/sources": self._sources,
            "/show": self._show,
            "/summarize": self._summarize,
        }
        action = actions.get(name)
        if action is None:
            render.warn(f"unknown command {name}; /help lists them")
            return True
        return action(arg.strip())

    def _help(self, _: str) -> bool:
        render.console.print(HELP)
        return True

    def _reset(self, _: str) -> bool:
        self.turns.clear()
        self.conversation = new_conversation()
        self.last = None
        render.console.print("[dim]Conversation cleared.[/]")
        return True

    def _sources(self, _: str) -> bool:
        if self.last is None:
            render.console.print("[dim]No answer yet.[/]")
        else:
            render.sources(self.last)
        return True

    def _show(self, paper_id: str) -> bool:
        if not paper_id:
            render.warn("usage: /show ID")
            return True
        try:
            render.paper_detail(self.library.paper(paper_id))
        except CitelineError:
            render.warn(f"no paper with id {paper_id!r}")
        return True

    def _summarize(self, topic: str) -> bool:
        if not topic:
            render.warn("usage: /summarize TOPIC")
            return True
        try:
            with render.summary_progress() as progress:
                result = self.library.summarize(topic, progress=progress)
        except CitelineError as exc:
            self._error(exc)
            return True
        render.summary(result, "md", None)
        return True

    def _error(self, exc: CitelineError) -> None:
        """Show a failed question's error and go on; a script reading the exit code learns of it."""
        self.failures += 1
        render.errors.print(f"[red]error:[/] {render.shown(str(exc))}", soft_wrap=True)

    def run(self) -> int:
        """Read and answer until /exit or end of input; the exit code (1 if a piped question failed)."""
        if sys.stdin.isatty():
            render.console.print(f"citeline chat · {self.library.llm.name} · /help for commands")
        for line in self.lines():
            if not self.handle(line):
                break
        return 1 if self.failures and not sys.stdin.isatty() else 0
