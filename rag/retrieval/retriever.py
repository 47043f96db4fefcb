"""Find the papers relevant to a question: dense, BM25, or both fused by reciprocal rank.

Retrieval works on chunks and returns papers: each paper appears once, represented by its best
chunk (a per-paper cap of one, which is what keeps four sources from being four pieces of one
abstract). With the floor on, each candidate is judged on its own (rag/retrieval/relevance.py):
a name from the question found in it, a strong dense match, or most of the question's
IDF-weighted terms plus a fair dense match; so a question the corpus cannot answer retrieves
nothing and the pipeline abstains without calling the LLM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from rag.errors import BadInput
from rag.index.embeddings import Embedder, make_embedder
from rag.index.lexical import LexicalIndex, PaperRows, PaperTable, query_lexical_index
from rag.index.metadata import first_chunk_id, paper_from_metadata
from rag.index.store import Store, find_paper, open_stores
from rag.records import Hit, Paper
from rag.retrieval import MODES
from rag.retrieval.relevance import Phrases, TermWeights, judge, with_coined
from rag.retrieval.topics import TopicSelection, rank_topic
from rag.settings import RetrievalSettings, Settings
from rag.text import checked_query, lexical_terms

__all__ = ["MODES", "Retriever"]


def metadata_filter(venue: str | list[str] | None, year: int | None) -> dict | None:
    """A Chroma ``where`` clause for the venue/year filters (exact match on the stored values;
    ``venue`` may be the list of a venue's stored spellings, see :meth:`Retriever.venue_spellings`)."""
    clauses: list[dict] = []
    if isinstance(venue, list):
        clauses.append({"venue": venue[0]} if len(venue) == 1 else {"venue": {"$in": venue}})
    elif venue is not None:
        clauses.append({"venue": venue})
    if year is not None:
        clauses.append({"year": year})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _matches(meta: dict, where: dict | None) -> bool:
    """The same filter applied to BM25 candidates, which Chroma did not select."""
    if where is None:
        return True
    clauses = where.get("$and", [where])
    return all(
        meta.get(key) in value["$in"] if isinstance(value, dict) else meta.get(key) == value
        for clause in clauses
        for key, value in clause.items()
    )


@dataclass(eq=False)  # hashed by identity: results are grouped by the collection they came from
class _Collection:
    """One collection searched: its Chroma store and its BM25 index."""

    store: Store
    lexical: LexicalIndex


@dataclass
class _Candidate:
    """One paper found by a search, represented by its best chunk, with what each ranking said."""

    chunk_id: str
    meta: dict
    source: _Collection
    similarity: float | None = None
    bm25: float | None = None
    dense_rank: int | None = None
    bm25_rank: int | None = None


Row = tuple[float, str, _Collection]  # score, chunk id, the collection it was found in
_S = TypeVar("_S")
_T = TypeVar("_T")


def _by_source(
    items: Iterable[_T], source_of: Callable[[_T], _Collection]
) -> list[tuple[_Collection, list[_T]]]:
    """``items`` grouped by collection, in first-seen order: one Chroma request per group."""
    groups: dict[_Collection, list[_T]] = {}
    for item in items:
        groups.setdefault(source_of(item), []).append(item)
    return list(groups.items())


def _search_part(
    source: _Collection, query: str, vector: list[float], mode: str, n: int, where: dict | None
) -> tuple[list[Row], list[Row]]:
    """One collection's best ``n`` dense and ``n`` BM25 chunks, without their metadata."""
    dense: list[Row] = []
    if mode in ("dense", "hybrid"):
        dense = [(sim, cid, source) for cid, sim in source.store.nearest(vector, n, where=where)]
    lexical: list[Row] = []
    if mode in ("bm25", "hybrid"):
        lexical = [(score, cid, source) for cid, score in source.lexical.search(query, n)]
    return dense, lexical


def merge_parts(found: Sequence[tuple[list[Row], list[Row]]], n: int) -> tuple[list[Row], list[Row]]:
    """The best ``n`` dense and the best ``n`` BM25 chunks over all the collections searched.

    Each collection gave its best n; the best n overall are among them (exact for dense, whose
    cosines one embedding model makes comparable; BM25 scores are each collection's own).
    """
    dense = sorted((row for rows, _ in found for row in rows), key=lambda row: -row[0])[:n]
    lexical = sorted((row for _, rows in found for row in rows), key=lambda row: -row[0])[:n]
    return dense, lexical


def paper_candidates(
    dense: list[Row], lexical: list[Row], metas: dict[tuple[_Collection, str], dict], where: dict | None
) -> list[_Candidate]:
    """One candidate per paper, in first-found order, each with its rank in each ranking.

    A paper is represented by its best dense chunk, and ranked by the first of its chunks in each
    ranking (ranks count papers, not chunks). A paper only BM25 found is added after the dense
    ones when it passes the venue/year filter (Chroma applied ``where`` to dense results only).
    Only the rankings the mode asked for were searched, so every candidate has a rank in them.
    """
    papers: dict[str, _Candidate] = {}
    rank = 0
    for similarity, chunk_id, source in dense:
        meta = metas.get((source, chunk_id))
        if meta is None:
            continue  # deleted between the two requests by an ingest
        pid = str(meta["paper_id"])
        if pid not in papers:
            rank += 1
            papers[pid] = _Candidate(chunk_id, meta, source, similarity=similarity, dense_rank=rank)
    rank = 0
    for score, chunk_id, source in lexical:
        pid = chunk_id.rsplit("#", 1)[0]
        candidate = papers.get(pid)
        if candidate is None:
            meta = metas.get((source, chunk_id))
            if meta is None or not _matches(meta, where):
                continue  # filtered out, or the lexical index is ahead of a store being rewritten
            candidate = papers[pid] = _Candidate(chunk_id, meta, source)
        if candidate.bm25_rank is None:
            rank += 1
            candidate.bm25, candidate.bm25_rank = score, rank
    return list(papers.values())


def is_relevant(
    candidate: _Candidate,
    query: str,
    terms: list[str],
    weights: TermWeights,
    best: float,
    tuning: RetrievalSettings,
) -> bool:
    """Per-paper relevance (:mod:`rag.retrieval.relevance`): a name of the question found in the
    paper keeps it; otherwise it must be within ``similarity_margin`` of the ``best`` match and
    pass the relevance decision (a strong dense match, or a fair one with shared weighted terms)."""
    relevance = judge(query, terms, paper_from_metadata(candidate.meta), candidate.similarity, weights)
    if relevance.names:
        return True
    margin_ok = (candidate.similarity or 0.0) >= best - tuning.similarity_margin
    return margin_ok and relevance.is_relevant(tuning)


def fused_score(candidate: _Candidate, mode: str, rrf_k: int) -> float:
    """The candidate's score: reciprocal rank fusion of its dense and BM25 ranks (``hybrid``:
    1/(rrf_k + rank) per ranking that found it), or the one ranking's own score."""
    if mode == "dense":
        return candidate.similarity or 0.0
    if mode == "bm25":
        return candidate.bm25 or 0.0
    return sum(1.0 / (rrf_k + r) for r in (candidate.dense_rank, candidate.bm25_rank) if r is not None)


def ranked_hits(candidates: Iterable[_Candidate], mode: str, rrf_k: int) -> list[Hit]:
    """The candidates as hits, best score first (ties by paper ID, so the order is stable)."""
    hits = [
        Hit(
            paper=paper_from_metadata(candidate.meta),
            score=fused_score(candidate, mode, rrf_k),
            similarity=candidate.similarity,
            bm25=candidate.bm25,
            text=str(candidate.meta.get("abstract", "")),
            collection=candidate.source.store.name,
        )
        for candidate in candidates
    ]
    hits.sort(key=lambda h: (-h.score, h.paper.id))
    return hits


def _in_scope(table: PaperTable, venue: str | None, year: int | None, seen: set[str]) -> list[int]:
    """Rows of ``table`` with this venue (casefolded) and year, if given, whose paper is not in
    ``seen`` yet (a paper in two collections counts once); ``seen`` gets them."""
    keep = [
        i for i, pid in enumerate(table.ids)
        if pid not in seen
        and (venue is None or table.venues[i].casefold() == venue)
        and (year is None or table.years[i] == year)
    ]  # fmt: skip
    seen.update(table.ids[i] for i in keep)
    return keep


class Retriever:
    """Hybrid retrieval over one collection or several; build once per session and reuse.

    Several collections (``--collection icml2024,iclr2024`` or ``'icml*'``) are searched as one:
    dense results merge by cosine similarity, which one embedding model makes comparable across
    collections; BM25 results merge by score (each collection keeps its own term statistics, so
    this is an approximation, and the fusion only uses ranks). A paper found in two collections
    counts once.
    """

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or make_embedder(settings)
        stores = open_stores(settings, self.embedder.name)
        self._pool = ThreadPoolExecutor(max_workers=min(8, len(stores))) if len(stores) > 1 else None
        lexical = self._map(
            lambda store: query_lexical_index(settings.replace(collection=store.name), store), stores
        )
        self._parts = [_Collection(store, index) for store, index in zip(stores, lexical, strict=True)]
        self._venues: list[str] | None = None
        self._years: list[int] | None = None
        self._phrases: Phrases | None = None

    @property
    def collections(self) -> list[str]:
        """Names of the collections searched."""
        return [s.store.name for s in self._parts]

    def count(self) -> int:
        """Chunks in all the collections searched."""
        return sum(s.store.count() for s in self._parts)

    def paper(self, paper_id: str) -> Paper | None:
        """The paper with this ID in any of the collections searched."""
        return find_paper([part.store for part in self._parts], paper_id)

    def venues(self) -> list[str]:
        """The venues the papers of the collections searched record, as stored (read once)."""
        if self._venues is None:
            self._venues = sorted({v for table in self._tables() for v in table.venues if v})
        return self._venues

    def years(self) -> list[int]:
        """The years the papers of the collections searched record (read once)."""
        if self._years is None:
            recorded = (y for table in self._tables() for y in table.years)
            self._years = sorted({int(y) for y in recorded if y not in (None, "")})
        return self._years

    def _tables(self) -> list:
        """The paper table of every collection searched."""
        return self._map(self._paper_table, self._parts)

    def uses_expansions(self) -> bool:
        """Whether topic selection here reads a model's subfield terms: only over a conference
        (``topic_small_list`` papers or more; see :func:`rag.retrieval.topics.score_papers`), so
        a shorter list need not ask the model for them."""
        return sum(len(table) for table in self._tables()) >= self.settings.topics.small_list

    def venue_spellings(self, venue: str) -> list[str]:
        """The stored spellings of ``venue`` in any case ("icml" → ["ICML"]); empty when no paper
        records it. Chroma matches metadata exactly, so a filter asks for these spellings."""
        wanted = venue.strip().casefold()
        return [v for v in self.venues() if v.casefold() == wanted]

    def phrases(self) -> Phrases:
        """Word and word-pair counts over the papers searched (built once, on first need): which
        two words are a term of the field, for ``check``'s swapped-method test."""
        if self._phrases is None:
            seen: set[str] = set()  # a paper in two collections counts once, as in a listing
            rows = ((table, _in_scope(table, None, None, seen)) for table in self._tables())
            self._phrases = Phrases.from_sequences(table.terms[i] for table, keep in rows for i in keep)
        return self._phrases

    def term_weights(self, terms: list[str]) -> TermWeights:
        """IDF of each term over all the collections searched (chunk counts add up)."""
        df: dict[str, int] = {}
        total = 0
        for counts, n in self._map(lambda part: part.lexical.document_frequencies(terms), self._parts):
            total += n
            for term, count in counts.items():
                df[term] = df.get(term, 0) + count
        return TermWeights.from_counts(terms, df, total, self.settings.retrieval)

    def select_topic(
        self, topic: str, venue: str | None = None, year: int | None = None, expansions: Sequence[str] = ()
    ) -> TopicSelection:
        """Every paper on ``topic`` in the collections searched (venue/year filters apply, the venue
        in any case), judged over the whole paper table rather than a retrieved pool.
        ``expansions``: the subfield's terms as a model named them (they add core papers)."""
        import numpy as np

        topic = checked_query(topic, "topic")
        venue = (venue or self.settings.venue or "").casefold() or None
        year = year or self.settings.year
        rows: list[tuple[_Collection, str]] = []
        vectors, terms = [], []
        acronyms: dict[str, tuple[str, int]] = {}
        seen: set[str] = set()
        for part, table in zip(self._parts, self._tables(), strict=True):
            for key, (expansion, count) in table.acronyms.items():
                if count > acronyms.get(key, ("", 0))[1]:
                    acronyms[key] = (expansion, count)
            keep = _in_scope(table, venue, year, seen)
            rows += [(part, table.ids[i]) for i in keep]
            if keep:
                vectors.append(table.vectors[keep])
                terms += [table.terms[i] for i in keep]
        matrix = np.concatenate(vectors) if vectors else np.zeros((0, 1), dtype=np.float32)
        tuning = self.settings.topics
        ranking = rank_topic(self.embedder, topic, matrix, terms, acronyms, expansions, tuning=tuning)
        chosen = [rows[i] for i in ranking.order]
        metas = self._metadata([(0.0, first_chunk_id(pid), part) for part, pid in chosen])
        hits, vectors = [], {}
        likely, limit = 0, len(chosen) if ranking.likely is None else ranking.likely
        for n, (i, (part, pid)) in enumerate(zip(ranking.order, chosen, strict=True)):
            meta = metas.get((part, first_chunk_id(pid)))
            if meta is None:
                continue  # deleted by an ingest since the table was built
            likely += n < limit
            vectors[pid] = matrix[i]
            hits.append(
                Hit(
                    paper=paper_from_metadata(meta),
                    score=float(ranking.score[i]),
                    similarity=float(ranking.similarity[i]),
                    text=str(meta.get("abstract", "")),
                    collection=part.store.name,
                )
            )
        return TopicSelection(
            hits, core=ranking.core, candidates=len(rows), vectors=vectors, likely=likely or None
        )

    def catalogue(
        self, venue: str | None = None, year: int | None = None, limit: int = 30
    ) -> tuple[list[Hit], int]:
        """The papers of the collections searched, no topic asked (venue/year filters apply, the
        venue in any case): the first ``limit`` in the order of their lists (file, then line, as
        ``papers list``), and how many there are. Reads every paper's metadata to order them
        (~0.3 s for 2,700 papers here)."""
        venue = (venue or self.settings.venue or "").casefold() or None
        year = year or self.settings.year
        rows: list[tuple[float, str, _Collection]] = []
        seen: set[str] = set()
        for part, table in zip(self._parts, self._tables(), strict=True):
            rows += [(0.0, first_chunk_id(table.ids[i]), part) for i in _in_scope(table, venue, year, seen)]
        metas = self._metadata(rows)  # a paper deleted since the table was built has none
        papers = sorted(
            ((paper_from_metadata(meta), meta, part) for (part, _), meta in metas.items()),
            key=lambda found: (found[0].source, found[0].line),
        )
        hits = [
            Hit(paper=paper, score=0.0, text=str(meta.get("abstract", "")), collection=part.store.name)
            for paper, meta, part in papers[:limit]
        ]
        return hits, len(papers)

    @staticmethod
    def _paper_table(part: _Collection) -> PaperTable:
        """The collection's paper table; built from the store in memory if its saved index predates it."""
        table = part.lexical.papers()
        if len(table) or not part.store.count():
            return table
        rows = PaperRows()
        for _, _, vector, meta in part.store.all_chunks_with_vectors():
            rows.add(meta, vector)
        return rows.table()

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        floor: bool = True,
        pool: int | None = None,
        venue: str | None = None,
        year: int | None = None,
    ) -> list[Hit]:
        """Papers for ``query``, best first; ``venue`` (any case) and ``year`` keep matching entries only.

        The steps: check the request; search every collection for its best chunks in each ranking
        (dense and BM25) and merge them (:func:`merge_parts`); make one candidate per paper
        (:func:`paper_candidates`) and give each its dense similarity; with the ``floor``, keep
        the relevant ones (:meth:`_relevant`); score and rank them (:func:`ranked_hits`).
        """
        query = checked_query(query, "query")
        if mode not in MODES:
            raise BadInput(f"unknown retrieval mode {mode!r} (use {', '.join(MODES)})")
        k = k or self.settings.top_k
        pool = pool or max(4 * k, 20)
        query_vector = self.embedder.embed_query(query)
        venue = venue or self.settings.venue
        spellings = self.venue_spellings(venue) if venue else None
        if spellings == []:
            return []  # no paper records this venue in any case (the caller can say so: venues())
        where = metadata_filter(spellings, year or self.settings.year)

        n = pool * 2
        found = self._map(
            lambda source: _search_part(source, query, query_vector, mode, n, where), self._parts
        )
        dense, lexical = merge_parts(found, n)
        candidates = paper_candidates(dense, lexical, self._metadata(dense + lexical), where)
        self._fill_similarity(candidates, query_vector)
        if floor:
            candidates = self._relevant(query, candidates)
        return ranked_hits(candidates, mode, self.settings.rrf_k)[:k]

    def _map(self, work: Callable[[_S], _T], items: list[_S]) -> list[_T]:
        """``work`` on each collection's part; several run in threads (Chroma releases the GIL)."""
        return list(self._pool.map(work, items)) if self._pool else [work(item) for item in items]

    def _metadata(self, rows: list[Row]) -> dict[tuple[_Collection, str], dict]:
        """Metadata of the chosen chunks, one request per collection they come from."""
        groups = _by_source(rows, lambda row: row[2])
        found = self._map(lambda group: group[0].store.chunks_by_id(sorted({r[1] for r in group[1]})), groups)
        pairs = zip(groups, found, strict=True)
        return {(source, cid): meta for (source, _), got in pairs for cid, meta in got.items()}

    def _relevant(self, query: str, candidates: list[_Candidate]) -> list[_Candidate]:
        """The candidates relevant to ``query`` (:func:`is_relevant`), judged with the terms'
        weights over the collections searched; which coined names of the query are rare is
        judged on the candidates themselves (:func:`rag.retrieval.relevance.with_coined`)."""
        tuning = self.settings.retrieval
        terms = lexical_terms(query)
        shown = (paper_from_metadata(c.meta) for c in candidates)
        texts = (f"{p.title} {p.label} {p.abstract}" for p in shown)
        weights = with_coined(self.term_weights(terms), query, texts, tuning)
        best = max((c.similarity or 0.0 for c in candidates), default=0.0)
        return [c for c in candidates if is_relevant(c, query, terms, weights, best, tuning)]

    def _fill_similarity(self, candidates: list[_Candidate], query_vector: list[float]) -> None:
        """Dense similarity for candidates that only BM25 found, so one floor applies to all."""
        import numpy as np

        groups = _by_source((c for c in candidates if c.similarity is None), lambda c: c.source)
        found = self._map(lambda group: group[0].store.vectors([c.chunk_id for c in group[1]]), groups)
        for (_, members), vectors in zip(groups, found, strict=True):
            for candidate in members:
                vector = vectors.get(candidate.chunk_id)
                if vector is not None:
                    candidate.similarity = float(np.dot(vector, query_vector))
