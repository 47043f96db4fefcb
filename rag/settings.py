"""One settings object, built from defaults, an optional TOML file and environment variables.

Precedence (lowest to highest): built-in defaults, the config file, ``CITELINE_*`` environment
variables, then explicit overrides (CLI flags). The object is passed down explicitly; no module
reads a setting from the environment on its own, which keeps tests hermetic. The environment is
read elsewhere only for what is not a citeline setting: tiktoken's cache directory
(``TIKTOKEN_CACHE_DIR``, :mod:`rag.index.tokens`), the ``*_KEY``/``*_TOKEN`` values an error line
must not echo (:mod:`rag.ui.render`), ``CITELINE_DEBUG`` (the CLI's traceback switch), the token
the embedded model's server is started with (``API_KEY``, :mod:`rag.llm.resident` and
:mod:`rag.llm.llama_server`), and the platform's data directory (``XDG_DATA_HOME``, through
platformdirs) for the default ``data_dir``.

Every setting is declared once, in its group below, with its type (the annotation), default,
description and bounds (:func:`setting`). Everything else is derived from those declarations:
the environment variable (``CITELINE_`` + its flat name), the TOML keys, the range checks, the
type conversion and the README's table (:func:`markdown_table`). The tuned numbers of retrieval,
topic selection and answer checking live here too, so each is described and bounded in one place
and reaches the code through the settings object, never through a module constant.

A setting has one flat name (``top_k``, ``topic_core_z``), which is what the environment, the
TOML file's top level, ``Settings(...)``, :meth:`Settings.replace` and attribute access use:
``settings.top_k`` reads ``settings.retrieval.top_k``. Code that needs a whole group (topic
selection needs every ``topic_*`` number) takes the group: ``settings.topics``.

Settings are read without pydantic (or pydantic-settings): ``from pydantic import BaseModel``
alone costs ~120 ms here, and every ``citeline`` command but ``--help`` builds settings first;
plain dataclasses with the declarations in field metadata cost nothing to import.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tomllib
import typing
from dataclasses import MISSING, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rag.errors import BadInput, NotFound

LLM_CHOICES = ("auto", "local", "openai", "none")
# The collection the bundled corpus is ingested into on first use.
DEFAULT_COLLECTION = "default"


def _default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("citeline", appauthor=False))


def _default_config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("citeline", appauthor=False)) / "config.toml"


def setting(
    default: Any = MISSING,
    description: str = "",
    *,
    low: float | None = None,
    high: float | None = None,
    factory: Any = MISSING,
    shown: str | None = None,
    env: str | None = None,
    secret: bool = False,
) -> Any:
    """A settings field: its default, what it means (the README's words), and its allowed range.

    ``low``/``high`` bound a number (None leaves a side open); ``shown`` is the default as the
    README states it when the value itself says little (a platform path); ``env`` names an
    environment variable other than the derived ``CITELINE_*``; a ``secret`` is never shown in
    ``repr`` nor read from the config file.
    """
    meta = {
        "description": description,
        "low": low,
        "high": high,
        "shown": shown,
        "env": env,
        "secret": secret,
    }
    return field(default=default, default_factory=factory, metadata=meta, repr=not secret)


class _Group:
    """A group of settings: every number in its range, however it was set (file, env, flag, code)."""

    # Prepended to each field's name to make its flat name (and so its env var and TOML key).
    prefix: ClassVar[str] = ""
    title: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for spec in _GROUP_SPECS[type(self)]:
            value = getattr(self, spec.name)
            if value is not None and (spec.low is not None or spec.high is not None):
                _check(spec, value, spec.flat)


@dataclass(frozen=True)
class StoreSettings(_Group):
    """Where the index, caches and logs live, and which collection is read."""

    title: ClassVar[str] = "Where things are kept"

    data_dir: Path = setting(
        description="index, assembled model weights, chat history",
        factory=_default_data_dir,
        shown="platform data dir (`~/.local/share/citeline`)",
    )
    collection: str = setting(
        DEFAULT_COLLECTION,
        "Chroma collection (and BM25 index) to use; several (`a,b`) or a glob (`icml*`) to read",
    )
    chroma_url: str | None = setting(
        None,
        "a Chroma server, e.g. `http://127.0.0.1:8000` (`chroma run --path DIR`)",
        shown="unset (embedded `PersistentClient`)",
    )
    # chromadb itself waits forever.
    chroma_timeout: float = setting(60.0, "seconds a Chroma server may take to answer one request", low=0.1)
    serve_idle_minutes: float = setting(
        5.0,
        "a `search`, `ask`, `papers` or `summarize` leaves a warm process behind that serves the next "
        "ones on this data dir (no start-up cost) and exits after this many idle minutes; `0`: off",
        low=0.0,
        high=7 * 24 * 60,
    )

    def __post_init__(self) -> None:
        """The data dir is made absolute: the resident model's watchdog is recognised by the state
        file path on its command line, so ``CITELINE_DATA_DIR=rel/dir`` must name it the same way
        from every working directory (a relative path made ``llm stop`` disown its own server).
        """
        object.__setattr__(self, "data_dir", Path(os.path.abspath(Path(self.data_dir).expanduser())))
        super().__post_init__()
        check_collection_names(self.collection)


@dataclass(frozen=True)
class IndexSettings(_Group):
    """How papers are embedded and cut into chunks when they are ingested."""

    title: ClassVar[str] = "Index"

    embedding: str = setting(
        "minilm",
        "`minilm` (all-MiniLM-L6-v2 int8 ONNX, offline) or `openai:text-embedding-3-small`; "
        "an index refuses vectors of another model",
    )
    embedding_cache: bool = setting(
        True,
        "keep document vectors by text in `DATA_DIR/cache/embeddings.sqlite`, so known text is "
        "never embedded twice",
    )
    chunk_tokens: int = setting(200, "chunk length in tokens (tiktoken `cl100k_base`)", low=16, high=8192)
    chunk_overlap: int = setting(32, "tokens shared by consecutive chunks; below `chunk_tokens`", low=0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.chunk_overlap >= self.chunk_tokens:
            raise BadInput(
                f"chunk_overlap must be smaller than chunk_tokens "
                f"({self.chunk_overlap} >= {self.chunk_tokens})"
            )


@dataclass(frozen=True)
class RetrievalSettings(_Group):
    """Which papers answer a question (rag/retrieval/retriever.py, rag/retrieval/relevance.py).

    A paper is relevant when a rare term of the question (a method name) occurs in it, when its
    dense similarity reaches ``strong_similarity``, or when it reaches ``min_similarity`` with at
    least ``min_coverage`` of the question's IDF-weighted terms present. No fixed cosine floor
    separates answerable from unanswerable questions; these combine lexical and dense evidence.
    Calibrated on the dev split.
    """

    title: ClassVar[str] = "Retrieval"

    top_k: int = setting(4, "papers given to the LLM", low=1, high=200)
    venue: str | None = setting(None, "restrict retrieval to one venue (any case)")
    year: int | None = setting(None, "restrict retrieval to one year")
    strong_similarity: float = setting(
        0.55, "a paper this close (cosine) to the question is relevant whatever its words", low=0.0, high=1.0
    )
    min_similarity: float = setting(
        0.2, "... or this close with `min_coverage` of the question's terms in its text", low=0.0, high=1.0
    )
    min_coverage: float = setting(
        0.5,
        "the share of the question's IDF-weighted terms `min_similarity` needs (a rare term of the "
        "question, such as a method name, found in a paper always qualifies)",
        low=0.0,
        high=1.0,
    )
    similarity_margin: float = setting(
        0.25,
        "papers this far below the best match need a name match to stay: a strong match makes weak "
        "paraphrases noise",
        low=0.0,
        high=1.0,
    )
    rrf_k: int = setting(
        60,
        "reciprocal rank fusion's constant: a paper scores 1/(k + rank) per ranking (Cormack et al. "
        "2009; robust across collections)",
        low=1,
        high=10_000,
    )
    rare_term_share: float = setting(
        0.01,
        "a question term in at most this share of the chunks (and at most `rare_term_max`) is a "
        "name: a paper containing it is relevant",
        low=0.0,
        high=1.0,
    )
    rare_term_max: int = setting(25, "... and in at most this many chunks", low=2, high=1_000_000)
    coined_name_max: int = setting(
        3,
        "a coined name of the question (`TraCeS`, `C^3`) is a name when at most this many candidate "
        "papers write it (a benchmark every candidate uses is no evidence of one paper)",
        low=1,
        high=1000,
    )


@dataclass(frozen=True)
class TopicSettings(_Group):
    """Every paper on a topic, for listings and summaries (rag/retrieval/topics.py).

    Chosen on the subfield benchmark's dev conferences (``eval/subfields-dev.jsonl``).
    """

    prefix: ClassVar[str] = "topic_"
    title: ClassVar[str] = "Topic selection (listings and summaries)"

    core_z: float = setting(
        2.0,
        "a core paper's dense match: this many robust standard deviations above the collection ...",
        low=0.0,
        high=20.0,
    )
    core_coverage: float = setting(
        0.67, "... with at least this share of the topic's IDF-weighted terms", low=0.0, high=1.0
    )
    core_least: int = setting(
        12,
        "in a conference, a core smaller than this is topped up with the topic's strongest dense matches "
        "(in a short list, a core under `topic_min_core_small` is listed with up to this many)",
        low=0,
        high=1000,
    )
    core_least_z: float = setting(
        1.5,
        "... those above this dense match (robust z) and above the median paper naming the topic (in a "
        "short list, above every one; there a rare topic word with this dense match also makes a core paper)",
        low=-20.0,
        high=20.0,
    )
    strong_similarity: float = setting(
        0.5,
        "with no core, papers this close (cosine) to a topic no paper names are its core",
        low=0.0,
        high=1.0,
    )
    neighbours: int = setting(5, "core papers each paper is compared with", low=1, high=1000)
    rare_share: float = setting(
        0.01, "a topic term in at most this share of the papers is a name", low=0.0, high=1.0
    )
    near_z: float = setting(
        0.0,
        "in a conference, a paper below this dense match (robust z) is never on the topic, whatever "
        "its neighbours",
        low=-20.0,
        high=20.0,
    )
    max_share: float = setting(
        0.25,
        "the largest share of a conference's papers one topic selects (beyond its core)",
        low=0.0,
        high=1.0,
    )
    min_core: int = setting(
        3, "a smaller core is the whole selection: too few papers to learn a subfield from", low=1, high=1000
    )
    min_core_small: int = setting(
        5,
        "... in a list of under `topic_small_list` papers, whose score spread is itself noisy",
        low=1,
        high=1000,
    )
    small_name_coverage: float = setting(
        0.5,
        "in a list of under `topic_small_list` papers, a rare topic word makes a paper core only with "
        "this share of the topic's IDF-weighted terms (or a dense match above `topic_core_least_z`)",
        low=0.0,
        high=1.0,
    )
    small_join_z: float = setting(
        1.0,
        "in a list of under `topic_small_list` papers, a strong dense match joins a small core only this "
        "near (robust z) to one of its papers",
        low=-20.0,
        high=20.0,
    )
    small_every_z: float = setting(
        1.0,
        "in a list of under `topic_small_list` papers, a topic no paper names lists the papers writing "
        "every word of it at least this near (robust z; `topic_core_least_z` for a one-word topic)",
        low=-20.0,
        high=20.0,
    )
    small_list: int = setting(
        300,
        "papers: below this a list is short (the bundled 57) and the conference guards are off",
        low=0,
        high=10_000_000,
    )
    fence: float = setting(
        1.5,
        "where to stop: this many interquartile ranges below the core's first quartile (Tukey; in a "
        "conference, `topic_floor_share` may stop lower)",
        low=0.0,
        high=100.0,
    )
    floor_share: float = setting(
        0.38,
        "in a conference, a paper scoring at least this share of the core's first quartile is on "
        "the topic, wherever the fence is (a tight core's fence stops too early; 1 turns this off)",
        low=0.0,
        high=1.0,
    )
    likely_percentile: float = setting(
        97.0,
        "in a conference, a selected paper is likely on the topic when it is in the core or scores "
        "at or above this percentile of the collection's papers; the rest are listed after them as only "
        "sharing some of its vocabulary (0: every selected paper counts as likely)",
        low=0.0,
        high=100.0,
    )
    expansion_z: float = setting(
        1.5,
        "a term the model names counts when its papers' median dense match (robust z) is this far up",
        low=-20.0,
        high=20.0,
    )
    model_terms: int = setting(
        12, "with a model: most of the terms it names for a subfield that are used", low=0, high=100
    )
    model_tokens: int = setting(
        64,
        "with a model: its reply budget for those terms (~5 s of writing on 2 cores, after ~2 s "
        "reading the prompt)",
        low=8,
        high=4096,
    )
    vocabulary: int = setting(
        20, "words and word pairs learned from the core (its vocabulary) that score a paper", low=0, high=1000
    )
    vocabulary_share: float = setting(
        0.1, "... each in at least this share of the core (and at least 3 core papers)", low=0.0, high=1.0
    )
    weight_topic: float = setting(
        1.0, "score weight of a paper's dense match to the topic", low=0.0, high=100.0
    )
    weight_neighbours: float = setting(
        1.5, "score weight of its mean similarity to its nearest core papers", low=0.0, high=100.0
    )
    weight_coverage: float = setting(
        1.0, "score weight of its share of the topic's weighted terms", low=0.0, high=100.0
    )
    weight_phrase: float = setting(
        1.0, "score weight of the topic's words as a phrase in it", low=0.0, high=100.0
    )
    weight_vocabulary: float = setting(
        0.5, "score weight of its use of the core's vocabulary", low=0.0, high=100.0
    )
    weight_direction: float = setting(
        2.0,
        "in a conference, score weight of its embedding along the core's direction from the "
        "collection (a linear discriminant learned at query time; 0 turns it off)",
        low=0.0,
        high=100.0,
    )
    direction_shrinkage: float = setting(
        10.0,
        "... the discriminant's ridge: this many times the mean variance added to the covariance's "
        "diagonal (large: the plain difference of the means)",
        low=0.0,
        high=1e6,
    )


@dataclass(frozen=True)
class AnswerSettings(_Group):
    """How answers are made and checked (rag/answer/)."""

    title: ClassVar[str] = "Answers"

    verify_answers: bool = setting(
        True,
        "attribute every sentence of an LLM draft to a supporting paper, drop unsupported ones, and "
        "withhold drafts with figures found in no retrieved paper (reported in `withheld`)",
    )
    listing_max_papers: int = setting(
        30,
        "most papers a listing answer shows (it says how many the topic holds; `ask --all` / `-n N` "
        "override it)",
        low=1,
        high=100_000,  # `--all` asks for this many: more papers than any conference has
    )
    listing_group_above: int = setting(
        8, "a listing of more papers than this is grouped into themes", low=0, high=1000
    )
    summary_seconds: float = setting(
        60.0,
        "with a model, a summary's time budget: the model writes one sentence per theme from its "
        "papers' titles, then condenses the best papers one by one while the budget lasts; the "
        "others keep their own key sentence and the themes their title phrases (0: no budget, "
        "every paper condensed, every theme named and the lead written by the model)",
        low=0.0,
        high=86_400.0,
    )
    paraphrase_coverage: float = setting(
        0.3,
        "with a model: when the model declines a question asking for a figure or a name and no "
        "paper reaches `answer_coverage`, the best paper holding this share, with nothing asked "
        "missing and a sentence giving what is asked, is quoted if the model says yes, it answers "
        "(a paraphrased question shares few of the abstract's words)",
        low=0.0,
        high=1.0,
    )
    answer_coverage: float = setting(
        0.51,
        "a paper answers when this share of the question's weighted terms is in one sentence (with "
        "the paper's name) and no rare term or number of it is missing: more than half (dev: "
        "paraphrased answerable questions reach 0.51–0.54, which 0.55 refused; a question with one "
        "of its two terms swapped, 0.5, is a near miss)",
        low=0.0,
        high=1.0,
    )
    constraint_coverage: float = setting(
        0.5,
        'for "which paper ...": the share of what it asks (without names and filler) one sentence '
        "must say (dev: answerable ≥ 0.77)",
        low=0.0,
        high=1.0,
    )
    typed_bonus: float = setting(
        0.3,
        'added to the score of a sentence naming what the question asks for (a figure for "how '
        'many", a name for "which"), so a quoted answer leads with it',
        low=0.0,
        high=10.0,
    )
    context_sentences: int = setting(
        6,
        "sentences of the best-supported paper the model reads (each other paper: its best three); "
        "the fact asked for is often in a sentence sharing few of the question's words (dev "
        "factoid questions: the fact was in the prompt for 0.92 of them with three, 0.99 with six, "
        "at ~130 more prompt tokens)",
        low=1,
        high=100,
    )
    sentence_similarity: float = setting(
        0.3,
        "weight of a sentence's embedding similarity to the question in its score, beside the "
        "question's terms it holds (held by fewer of the evidence sentences, worth more): a "
        "question describing its paper is near every sentence of it (dev: the sentence with the "
        "fact first for 80% of questions; 70% with similarity at 1 and plain term weights)",
        low=0.0,
        high=10.0,
    )
    attribution_threshold: float = setting(
        0.5,
        "share of an answer sentence's content words its paper must contain to support it",
        low=0.0,
        high=1.0,
    )
    check_support: float = setting(
        0.5,
        "`check`: IDF-weighted share of a claim's terms its paper must hold to support it",
        low=0.0,
        high=1.0,
    )
    check_partial: float = setting(
        0.3, "`check`: below this share the paper does not speak to the claim at all", low=0.0, high=1.0
    )
    check_better_margin: float = setting(
        0.2,
        "`check`: a claim's citation is wrong when another paper holds this much more of its weighted terms",
        low=0.0,
        high=1.0,
    )
    log: bool = setting(
        True, "record every ask, chat turn and summary in `DATA_DIR/logs.sqlite` (`citeline log`)"
    )
    log_busy_seconds: float = setting(
        5.0,
        "seconds to wait while another process holds the answer log: then the answer goes unlogged "
        "(with a warning) and `citeline log` says the log is busy",
        low=0.0,
        high=600.0,
    )


@dataclass(frozen=True)
class GenerationSettings(_Group):
    """The LLM that writes answers (rag/llm/)."""

    title: ClassVar[str] = "LLM"

    llm: str = setting(
        "auto",
        "`auto` picks `CITELINE_LLM_BASE_URL`, else OpenAI if `OPENAI_API_KEY` is set, else the "
        "embedded model if installed, else `none`",
    )
    llm_base_url: str | None = setting(
        None, "any OpenAI-compatible server: vLLM, Ollama (`http://127.0.0.1:11434/v1`), llama.cpp"
    )
    llm_model: str | None = setting(None, "model name to request", shown="served model / `gpt-4o-mini`")
    api_key: str | None = setting(
        None, "API key (never printed, logged or stored)", env="OPENAI_API_KEY", secret=True
    )
    local_model: str = setting("qwen2.5-coder-1.5b", "embedded model (registry in `rag/llm/models.py`)")
    llm_idle_minutes: float = setting(
        15.0,
        "the embedded model's server stays up between processes and stops after this many idle "
        "minutes; `0`: each process starts its own and stops it at exit",
        low=0.0,
        high=7 * 24 * 60,
    )
    llm_timeout: float = setting(180.0, "per-request timeout (s)", low=0.1)
    llm_retries: int = setting(2, "retries of a failed request, with backoff", low=0, high=20)
    llm_max_tokens: int = setting(384, "answer length (tokens)", low=16, high=32768)
    context_tokens: int = setting(
        4096, "the model's context window (the context block is cut to fit)", low=512, high=1_000_000
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.llm not in LLM_CHOICES:
            raise BadInput(f"llm must be one of {', '.join(LLM_CHOICES)}, got {self.llm!r}")


# Attribute of Settings -> group, in the order the README lists them.
_GROUPS: dict[str, type[_Group]] = {
    "store": StoreSettings,
    "index": IndexSettings,
    "retrieval": RetrievalSettings,
    "topics": TopicSettings,
    "answer": AnswerSettings,
    "generation": GenerationSettings,
}


@dataclass(frozen=True)
class Spec:
    """One setting as declared: everything the loader, the checks and the README need."""

    group: str  # attribute of Settings holding it
    name: str  # field name in its group
    flat: str  # group prefix + name: TOML key, keyword of Settings() and replace(), attribute
    env: str
    kind: type  # int, float, bool, str or Path
    optional: bool  # None is a value (unset)
    low: float | None
    high: float | None
    description: str
    shown: str | None
    secret: bool
    default: Any

    @property
    def type_name(self) -> str:
        """The type as an error line names it: ``int``, ``int | None``."""
        return self.kind.__name__ + (" | None" if self.optional else "")


def _specs(attr: str, group: type[_Group]) -> list[Spec]:
    hints = typing.get_type_hints(group)
    out = []
    for f in dataclasses.fields(group):
        args = typing.get_args(hints[f.name]) or (hints[f.name],)
        kind = next(a for a in args if a is not type(None))
        flat = group.prefix + f.name
        meta = f.metadata
        default = f.default if f.default is not MISSING else None  # a factory's value is computed
        env = meta["env"] or f"CITELINE_{flat.upper()}"
        spec = Spec(
            group=attr,
            name=f.name,
            flat=flat,
            env=env,
            kind=kind,
            optional=type(None) in args,
            low=meta["low"],
            high=meta["high"],
            description=meta["description"],
            shown=meta["shown"],
            secret=meta["secret"],
            default=default,
        )
        out.append(spec)
    return out


_GROUP_SPECS: dict[type[_Group], list[Spec]] = {g: _specs(a, g) for a, g in _GROUPS.items()}
# Flat name -> its declaration: every setting.
SPECS: dict[str, Spec] = {s.flat: s for specs in _GROUP_SPECS.values() for s in specs}
# Environment variable -> flat name, derived from the declarations. OPENAI_API_KEY is read
# because every OpenAI client does.
ENVIRONMENT: dict[str, str] = {s.env: s.flat for s in SPECS.values()}


def bounds(name: str) -> tuple[float | None, float | None]:
    """The allowed (lowest, highest) of a numeric setting, for the CLI's and MCP tools' own checks."""
    return SPECS[name].low, SPECS[name].high


@dataclass(frozen=True, init=False)
class Settings:
    """Every setting, grouped; passed down, never read from the environment below the CLI.

    ``Settings(top_k=8, llm="none")`` takes flat names (and whole groups: ``topics=...``);
    ``settings.top_k`` reads through to ``settings.retrieval.top_k``.
    """

    store: StoreSettings
    index: IndexSettings
    retrieval: RetrievalSettings
    topics: TopicSettings
    answer: AnswerSettings
    generation: GenerationSettings

    def __init__(self, **values: Any) -> None:
        unknown = sorted(values.keys() - SPECS.keys() - _GROUPS.keys())
        if unknown:
            raise TypeError(f"Settings() got an unexpected keyword argument {unknown[0]!r}")
        for attr, group in _GROUPS.items():
            changes = {s.name: values[s.flat] for s in _GROUP_SPECS[group] if s.flat in values}
            base = values.get(attr)
            object.__setattr__(self, attr, dataclasses.replace(base, **changes) if base else group(**changes))

    def __getattr__(self, name: str) -> Any:
        """A setting by its flat name (only called when no attribute has that name)."""
        spec = SPECS.get(name)
        if spec is None:
            raise AttributeError(f"'Settings' object has no attribute {name!r}")
        return getattr(object.__getattribute__(self, spec.group), spec.name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *SPECS})

    @property
    def index_dir(self) -> Path:
        """Chroma's data and per-store local state."""
        return self.data_dir / "index"

    @property
    def models_dir(self) -> Path:
        """Assembled model weights."""
        return self.data_dir / "models"

    @property
    def store_dir(self) -> Path:
        """Local state that belongs to one store (BM25 indexes, ingest locks), kept apart per store.

        The same collection name on the embedded store and on a Chroma server holds different
        chunks, so their BM25 indexes must not be one file.
        """
        if not self.chroma_url:
            return self.index_dir / "embedded"
        server = re.sub(r"[^A-Za-z0-9.-]+", "_", self.chroma_url.split("://")[-1].strip("/"))
        return self.index_dir / "servers" / server

    @property
    def embedding_cache_file(self) -> Path | None:
        """The vector cache, or None when it is turned off."""
        return self.data_dir / "cache" / "embeddings.sqlite" if self.embedding_cache else None

    @property
    def log_file(self) -> Path:
        """The answer log (SQLite)."""
        return self.data_dir / "logs.sqlite"

    @property
    def collection_names(self) -> list[str]:
        """The comma-separated parts of ``collection``; a part may be a glob (``icml*``)."""
        return list(dict.fromkeys(p.strip() for p in self.collection.split(",") if p.strip()))

    def replace(self, **changes: Any) -> Settings:
        """Return a copy with the non-None ``changes`` applied (CLI flags left unset are None)."""
        values: dict[str, Any] = {attr: getattr(self, attr) for attr in _GROUPS}
        return Settings(**values | {k: v for k, v in changes.items() if v is not None})


# Chroma's rule for collection names (3-512 of these characters, starting and ending with a letter
# or digit, no ".."), which also keeps a name from leaving the data dir in the lock and BM25 paths.
_COLLECTION = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]")
_GLOB_PART = re.compile(r"[a-zA-Z0-9._*?\[\]-]{1,512}")


def check_collection_names(value: str) -> None:
    """Refuse a collection name Chroma would reject or that could name a path, before any file is made.

    ``value`` is what ``--collection`` takes: comma-separated names, each may be a glob to read
    several (``icml*``).
    """
    parts = [p.strip() for p in value.split(",")]
    if not any(parts):
        raise BadInput("collection name is empty")
    for part in parts:
        glob = any(c in part for c in "*?[")
        valid = _GLOB_PART.fullmatch(part) if glob else _COLLECTION.fullmatch(part)
        if not valid or ".." in part:
            raise BadInput(
                f"bad collection name {part!r}: use 3-512 letters, digits, '.', '_' or '-', "
                "starting and ending with a letter or digit, no '..'"
            )


# Papers one search or answer retrieves (``top_k``) and one listing or summary covers
# (``listing_max_papers``): the ranges of the CLI's -k and --max-papers, and of the MCP tools' k
# and max_papers.
TOP_K_RANGE = typing.cast(tuple[int, int], bounds("top_k"))
MAX_PAPERS_RANGE = typing.cast(tuple[int, int], bounds("listing_max_papers"))


def _check(spec: Spec, value: Any, origin: str) -> None:
    low, high = spec.low, spec.high
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"{origin}: {spec.flat} must be a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise BadInput(f"{origin}: {spec.flat} must be {span}, got {value!r}")


def _coerce(spec: Spec, value: Any, origin: str) -> Any:
    """A value from the file or the environment as the setting's type, in its range."""
    try:
        if spec.kind is Path:
            return Path(str(value)).expanduser()
        if spec.kind is bool:
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                return str(value).lower() in ("1", "true", "yes", "on")
            raise ValueError(value)
        if spec.kind in (int, float):
            if isinstance(value, bool):
                raise ValueError(value)
            number = spec.kind(value)
            if spec.low is not None or spec.high is not None:
                _check(spec, number, origin)
            return number
        return str(value) if value != "" else None
    except (TypeError, ValueError):
        raise BadInput(f"{origin}: {spec.flat} must be {spec.type_name}, got {value!r}") from None


def _from_file(path: Path) -> dict[str, Any]:
    """The settings a TOML file sets: flat keys (``top_k``) and group tables (``[retrieval]``),
    at top level or under ``[citeline]``."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not valid TOML ({exc})") from None
    table = table.get("citeline", table)
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in _GROUPS and isinstance(value, dict):
            group = _GROUPS[key]
            pairs = [(f"{key}.{name}", group.prefix + name, item) for name, item in value.items()]
        else:
            pairs = [(key, key, value)]
        for shown, flat, item in pairs:
            spec = SPECS.get(flat)
            if spec is None or spec.secret or (shown != flat and spec.group != key):
                raise BadInput(f"{path}: unknown setting {shown!r}")
            values[flat] = _coerce(spec, item, str(path))
    return values


def load_settings(env: dict[str, str] | None = None, config_file: Path | None = None) -> Settings:
    """Build the settings from the config file and the environment (``os.environ`` by default)."""
    env = dict(os.environ) if env is None else env
    values: dict[str, Any] = {}
    path = config_file or (Path(env["CITELINE_CONFIG"]) if env.get("CITELINE_CONFIG") else None)
    explicit = path is not None
    path = path or _default_config_file()
    if path.is_file():
        values = _from_file(path)
    elif explicit:
        raise NotFound(f"config file not found: {path}")
    for var, name in ENVIRONMENT.items():
        if env.get(var):
            values[name] = _coerce(SPECS[name], env[var], var)
    return Settings(**values)


# --- the README's table ------------------------------------------------------------------------


def _shown_default(spec: Spec) -> str:
    if spec.shown is not None:
        return spec.shown
    if spec.default is None:
        return "unset"
    if isinstance(spec.default, bool):
        return f"`{str(spec.default).lower()}`"
    if isinstance(spec.default, float):
        return f"`{spec.default:g}`"
    return f"`{spec.default}`"


def _number(value: float) -> str:
    """``0.1``, ``200``, ``1,000,000`` (not ``1e+06``)."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _shown_range(spec: Spec) -> str:
    low, high = spec.low, spec.high
    if low is None and high is None:
        return ""
    if high is None:
        return f"≥ {_number(low)}"  # type: ignore[arg-type]
    if low is None:
        return f"≤ {_number(high)}"
    return f"{_number(low)} to {_number(high)}" if low < 0 else f"{_number(low)}–{_number(high)}"


def markdown_table() -> str:
    """Every setting as the README's Configuration section lists it: one table per group."""
    lines: list[str] = []
    for attr, group in _GROUPS.items():
        if lines:
            lines.append("")
        lines += [
            f"**{group.title}** (`[{attr}]`)",
            "",
            "| env var | default | range | meaning |",
            "|---|---|---|---|",
        ]
        for spec in _GROUP_SPECS[group]:
            cells = (f"`{spec.env}`", _shown_default(spec), _shown_range(spec), spec.description)
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


README_START = "<!-- settings table: generated from rag/settings.py by `python -m rag.settings README.md` -->"
README_END = "<!-- end of settings table -->"


def readme_with_table(readme: str) -> str:
    """``readme`` with the text between its settings-table markers replaced by :func:`markdown_table`."""
    head, start, rest = readme.partition(README_START)
    _, end, tail = rest.partition(README_END)
    if not start or not end:
        raise BadInput("the README has no settings-table markers")
    return f"{head}{README_START}\n{markdown_table()}{README_END}{tail}"


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        readme_path = Path(name)
        readme_path.write_text(readme_with_table(readme_path.read_text(encoding="utf-8")), encoding="utf-8")
