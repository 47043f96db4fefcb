"""The library's entry point: :class:`Library`, an index opened for questions.

Like paper-qa's ``Docs``, one object carries what a session needs (the settings, the retriever,
the LLM) and builds each part once, on first use, so a chat session of fifty questions starts
the embedded model once and a ``papers show`` never loads an LLM at all.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rag.errors import BadInput, CitelineError, NotFound
from rag.records import Answer, CollectionCount, Hit, Paper, Progress, StoreContents, Turn
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.answer.check import CheckReport
    from rag.answer.pipeline import AnswerChain
    from rag.answer.summary import Summary
    from rag.index.stamp import FreshIndex
    from rag.llm.client import LLMHandle
    from rag.log.store import AnswerLog
    from rag.retrieval import PaperSearch


class Library:
    """Search, ask, summarize and look up papers in the collections the settings name.

    ``retriever`` and ``llm`` may be passed in (a fake retriever or a scripted model in tests, a
    shared retriever in the eval); otherwise they are built from the settings when first needed.
    """

    def __init__(
        self, settings: Settings, retriever: PaperSearch | None = None, llm: LLMHandle | None = None
    ) -> None:
        self.settings = settings
        self._given = retriever
        self._llm = llm
        self._chain: AnswerChain | None = None
        self._log: AnswerLog | None = None
        self._index: FreshIndex[PaperSearch] | None = None  # the retriever this library opens itself
        if retriever is None:
            from rag.index.stamp import FreshIndex

            self._index = FreshIndex(settings.data_dir, self._open_retriever)
        self._chaining = threading.Lock()  # parallel MCP calls build one chain, not one each

    def _open_retriever(self) -> PaperSearch:
        from rag.retrieval.retriever import Retriever

        return Retriever(self.settings)

    @property
    def retriever(self) -> PaperSearch:
        """Hybrid retrieval over the collections (built on first use, and again after another
        process changed the index: a session outlives many ingests)."""
        return self._index.get() if self._index is not None else self._given  # type: ignore[return-value]

    @property
    def llm(self) -> LLMHandle:
        """The configured LLM (the embedded server starts on first use)."""
        if self._llm is None:
            from rag.llm.client import make_llm

            self._llm = make_llm(self.settings)
        return self._llm

    def share_llm(self, llm: LLMHandle) -> None:
        """Answer with ``llm`` (one model for several libraries, as the MCP server's scopes share it)."""
        self._llm = llm

    @property
    def chain(self) -> AnswerChain:
        """The answer pipeline over :attr:`retriever` and :attr:`llm`."""
        retriever = self.retriever  # reopened first if the index changed
        with self._chaining:
            if self._chain is None or self._chain.retriever is not retriever:
                from rag.answer.pipeline import AnswerChain

                self._chain = AnswerChain(self.settings, retriever, lambda: self.llm)
            return self._chain

    @property
    def log(self) -> AnswerLog:
        """The answer log in the data dir (written only when ``settings.log``)."""
        if self._log is None:
            from rag.log.store import AnswerLog

            self._log = AnswerLog(
                self.settings.log_file,
                secrets=(self.settings.api_key or "",),
                busy_timeout=self.settings.log_busy_seconds,
            )
        return self._log

    def last_conversation(self) -> tuple[str, list[Turn]]:
        """The latest logged conversation's id and answered turns, to continue it (``ask --continue``)."""
        return self.log.last_conversation()

    def conversation(self, conversation: str) -> tuple[str, list[Turn]]:
        """A logged conversation's id and answered turns, to continue it (``--cid``)."""
        return self.log.conversation(conversation)

    def search(self, query: str, k: int | None = None, mode: str = "hybrid", floor: bool = True) -> list[Hit]:
        """Papers for ``query``, best first (``floor=False`` keeps papers judged not relevant)."""
        return self.retriever.search(query, k=k, mode=mode, floor=floor)

    def filter_problem(self) -> str | None:
        """Why the venue or year filter leaves nothing to search, or None: "no paper in collection
        'default' records the venue 'NeurIPS' (its papers record: ICML)". An empty result then
        says so instead of reading as "nothing relevant"."""
        venue, year = self.settings.venue, self.settings.year
        where = f"no paper in collection {self.settings.collection!r} records the"
        retriever = self.retriever
        venues = getattr(retriever, "venues", None)
        if venue and venues is not None and not retriever.venue_spellings(venue):  # type: ignore[attr-defined]
            return f"{where} venue {venue!r} ({_recorded(venues(), 'venue')})"
        years = getattr(retriever, "years", None)
        if year is not None and years is not None and year not in years():
            return f"{where} year {year} ({_recorded(years(), 'year')})"
        return None

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        mode: str = "hybrid",
        on_token: Callable[[str], None] | None = None,
        conversation: str | None = None,
        kind: str = "ask",
        max_papers: int | None = None,
    ) -> Answer:
        """A cited answer; ``history`` makes it a follow-up, ``on_token`` streams it.

        The answer is logged (``kind`` ask or chat, in ``conversation``, a new one if None) unless
        the settings turn the log off. ``max_papers``: most papers a listing answer shows
        (default: ``settings.listing_max_papers``).
        """
        answer = self.chain.ask(question, history, k=k, mode=mode, on_token=on_token, max_papers=max_papers)
        if self.settings.log:
            from rag.log.store import new_conversation

            self.log.record(
                kind, question, answer, self.settings.collection, conversation or new_conversation()
            )
        return answer

    def summarize(self, topic: str, max_papers: int = 30, progress: Progress | None = None) -> Summary:
        """A cited overview of every indexed paper on ``topic`` (logged unless the log is off)."""
        from rag.answer.summarize import Summarizer

        summarizer = Summarizer(self.settings, self.retriever, self.llm)
        if progress is not None:
            summarizer.progress = progress
        summary = summarizer.summarize(topic, max_papers=max_papers)
        if not summary.found and (problem := self.filter_problem()):
            # The document says why it is empty, not "No indexed paper is on X." (a file written
            # with --out keeps no stderr warning).
            summary = dataclasses.replace(summary, lead=f"{problem[:1].upper()}{problem[1:]}.")
        if self.settings.log:
            citations = summary.to_dict()["citations"]
            self.log.record_summary(
                topic,
                summary.to_markdown(),
                citations,
                summary.model,
                self.settings.collection,
                summary.timings,
            )
        return summary

    def check(self, draft: str, bib: str | None = None) -> CheckReport:
        """Every cited claim of the draft at ``draft`` (a path, or ``-`` for stdin) judged against
        the papers it cites (``bib``: a .bib file resolving ``\\cite`` keys); see :mod:`rag.answer.check`."""
        from pathlib import Path

        from rag.answer.check import read_draft

        text, kind = read_draft(draft)
        bib_text = None
        if bib is not None:
            try:
                bib_text = Path(bib).read_text(encoding="utf-8-sig")
            except UnicodeDecodeError as exc:
                raise BadInput(f"{bib} is not UTF-8 text (byte {exc.start})") from None
            except OSError as exc:
                raise BadInput(f"cannot read {bib}: {exc.strerror or exc}") from None
        return self.check_text(text, kind, bib_text, source="stdin" if draft == "-" else draft, bib_name=bib)

    def check_text(
        self,
        text: str,
        kind: str = "txt",
        bib: str | None = None,
        source: str = "draft",
        bib_name: str | None = None,
    ) -> CheckReport:
        """:meth:`check` for a draft already in memory (an MCP client sends text, not a path):
        ``kind`` is tex, md or txt, ``bib`` the text of a .bib. With a model configured, claims
        whose lexical verdict is borderline also get its yes/no."""
        from rag.answer.check import Checker, draft_kind, parse_bib
        from rag.llm.client import resolve_kind

        references = parse_bib(bib, bib_name or "refs.bib") if bib is not None else None
        model = (lambda: self.llm) if resolve_kind(self.settings) != "none" else None
        checker = Checker(self.retriever, self.papers, self.settings.answer, model)
        return checker.check(text, draft_kind(text, kind), references, source=source)

    def paper(self, paper_id: str) -> Paper:
        """One paper by ID, from any of the collections; an unknown ID is a :class:`CitelineError`."""
        return self.papers_by_id([paper_id])[0]

    def papers_by_id(self, paper_ids: list[str]) -> list[Paper]:
        """Papers by ID, each once, in the order given; one :class:`NotFound` names every unknown ID
        (so nothing is shown of a list with a typo in it)."""
        from rag.index.store import find_paper

        found: list[Paper] = []
        unknown: list[str] = []
        missing: list[str] = []
        # The open retriever's paper table when there is one (reopened if the index changed).
        is_open = self._index.opened if self._index is not None else True
        opened = self.retriever if is_open else None
        stores = None if opened else self._stores()
        for paper_id in dict.fromkeys(paper_ids):
            paper = opened.paper(paper_id) if opened else find_paper(stores, paper_id)
            if paper is None:  # echoed up to 80 characters, never a megabyte
                unknown.append(repr(paper_id if len(paper_id) <= 80 else paper_id[:80] + "…"))
                missing.append(paper_id)
            else:
                found.append(paper)
        if unknown:
            ids = f"id {unknown[0]}" if len(unknown) == 1 else f"ids {', '.join(unknown)}"
            one = len(missing) == 1 and len(missing[0]) <= 200  # "it": of one ID only
            elsewhere = self._held_elsewhere(missing[0]) if one else None
            hint = f"; it is in collection {elsewhere!r} (-c {elsewhere})" if elsewhere else ""
            raise NotFound(f"no paper with {ids} in collection {self.settings.collection!r}{hint}")
        return found

    def _held_elsewhere(self, paper_id: str) -> str | None:
        """The first other collection on the store holding ``paper_id``: an ID from ``papers list
        -c iclr2020`` looked up without ``-c`` is not unknown, only not searched."""
        try:
            searched = set(self.settings.collection_names or [self.settings.collection])
            for name, store in self._every_collection():
                if name not in searched and store is not None and store.paper(paper_id) is not None:
                    return name
        except CitelineError:  # the store cannot be read now: the error stays as it was
            return None
        return None

    def papers(self, source: str | None = None) -> list[Paper]:
        """Every indexed paper (of one source file, if given), in source order."""
        where = {"source": source} if source else None
        stores = self._stores()
        found = [paper for store in stores for paper in store.papers(where=where)]
        if source and not found:  # a typo in the file name is no empty list
            sources = sorted({paper.source for store in stores for paper in store.papers()})
            held = ", ".join(sources[:8]) + (", …" if len(sources) > 8 else "")
            shown = source if len(source) <= 80 else source[:80] + "…"
            raise NotFound(
                f"no paper comes from source {shown!r} in collection {self.settings.collection!r}"
                + (f"; its sources are {held}" if held else "")
            )
        return found

    def collections(self) -> StoreContents:
        """Every collection on the configured store with its chunk count, whatever ``collection``
        the settings name (one built with another embedding model is listed with no count)."""
        from rag.index.store import Store

        found = [
            CollectionCount(name, None if store is None else store.count())
            for name, store in self._every_collection()
        ]
        return StoreContents(Store(self.settings).location, found)

    def _every_collection(self):
        """Each collection on the configured store, by name, opened; None for one built with
        another embedding model (listed, not usable)."""
        from rag.index.embeddings import make_embedder
        from rag.index.store import Store

        store = Store(self.settings)
        model = make_embedder(self.settings).name
        for name in store.collections():
            scoped = Store(self.settings.replace(collection=name), client=store.client)
            try:
                scoped.open(model)
            except CitelineError:
                yield name, None
                continue
            yield name, scoped

    def model_status(self) -> dict:
        """The resident embedded model server: whether it runs, where, since when and how long idle
        (what ``citeline llm status`` shows); it is not started to find out."""
        from rag.llm.resident import llm_status

        return llm_status(self.settings)

    def model_start(self) -> dict:
        """Start the resident embedded model server now, or find the running one (what ``citeline
        llm start`` does): :meth:`model_status` of it, ``started`` saying whether it was started."""
        from rag.llm.resident import llm_start

        return llm_start(self.settings)

    def _stores(self):
        from rag.index.embeddings import make_embedder
        from rag.index.store import open_stores

        return open_stores(self.settings, make_embedder(self.settings).name)


def _recorded(values: Sequence[object], what: str) -> str:
    """What a filter could have matched, for its error: the first ten values the papers record."""
    if not values:
        return f"its papers record no {what}"
    return f"its papers record: {', '.join(map(str, values[:10]))}"
