"""One settings object, built from defaults, an optional TOML file and environment variables.

Precedence (lowest to highest): built-in defaults, the config file, ``CITELINE_*`` environment
variables, then explicit overrides (CLI flags). The object is passed down explicitly; no module
reads a setting from the environment on its own, which keeps tests hermetic. The environment is
read elsewhere only for what is not a citeline setting: tiktoken's cache directory
(``TIKTOKEN_CACHE_DIR``, :mod:`rag.index.tokens`), the ``*_KEY``/``*_TOKEN`` values an error line
must not echo (:mod:`rag.ui.render`), and the platform's data directory (``XDG_DATA_HOME``, through
platformdirs) for the default ``data_dir``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


@dataclass(frozen=True)
class Settings:
    """Every setting, with its default; passed down, never read from the environment below the CLI."""

    data_dir: Path = field(default_factory=_default_data_dir)
    collection: str = DEFAULT_COLLECTION
    chroma_url: str | None = None
    # Seconds a Chroma server may take to answer one request (chromadb itself waits forever).
    chroma_timeout: float = 60.0
    embedding: str = "minilm"
    # Keep document vectors by text under the data dir, so known text is never embedded twice.
    embedding_cache: bool = True
    chunk_tokens: int = 200
    chunk_overlap: int = 32
    top_k: int = 4
    # Restrict retrieval to one venue / year (exact match on the stored metadata).
    venue: str | None = None
    year: int | None = None
    # Per-paper relevance (rag/retrieval/relevance.py; calibrated on the dev split). A paper is
    # relevant when a rare term of the question (a method name) occurs in it, when its dense
    # similarity reaches strong_similarity, or when it reaches min_similarity with at least
    # min_coverage of the question's IDF-weighted terms present. No fixed cosine floor separates
    # answerable from unanswerable questions; these combine lexical and dense evidence.
    strong_similarity: float = 0.55
    min_similarity: float = 0.2
    min_coverage: float = 0.5
    # Papers this far below the best match need a name match to stay: a strong match makes
    # weak paraphrases noise.
    similarity_margin: float = 0.25
    # Attribute every sentence of an LLM draft to a supporting paper, drop unsupported ones, and
    # withhold drafts with figures found in no retrieved paper (rag/answer/attribution.py).
    verify_answers: bool = True
    # Most papers a listing answer ("Which papers study X?") lists.
    listing_max_papers: int = 30
    llm: str = "auto"
    llm_base_url: str | None = None
    llm_model: str | None = None
    local_model: str = "qwen2.5-coder-1.5b"
    # Keep the embedded model's server running between citeline processes, stopping it after this
    # many minutes without use (rag/llm/resident.py); 0: each process starts and stops its own.
    llm_idle_minutes: float = 15.0
    llm_timeout: float = 180.0
    llm_retries: int = 2
    llm_max_tokens: int = 384
    context_tokens: int = 4096
    # Record every ask, chat turn and summary in the answer log (rag/answer/log.py).
    log: bool = True
    api_key: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        """Every value in range, whichever way it was set (file, environment, flag or code).

        The data dir is made absolute: the resident model's watchdog is recognised by the state
        file path on its command line, so ``CITELINE_DATA_DIR=rel/dir`` must name it the same way
        from every working directory (a relative path made ``llm stop`` disown its own server).
        """
        object.__setattr__(self, "data_dir", Path(os.path.abspath(Path(self.data_dir).expanduser())))
        for name in _LIMITS:
            _check(name, getattr(self, name), name)
        if self.chunk_overlap >= self.chunk_tokens:
            raise BadInput(
                f"chunk_overlap must be smaller than chunk_tokens "
                f"({self.chunk_overlap} >= {self.chunk_tokens})"
            )
        if self.llm not in LLM_CHOICES:
            raise BadInput(f"llm must be one of {', '.join(LLM_CHOICES)}, got {self.llm!r}")
        check_collection_names(self.collection)

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
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


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
TOP_K_RANGE = (1, 200)
MAX_PAPERS_RANGE = (1, 1000)

# Allowed ranges of the numeric settings: (lowest, highest); None leaves a side open.
_LIMITS: dict[str, tuple[float | None, float | None]] = {
    "chroma_timeout": (0.1, None),
    "chunk_tokens": (16, 8192),
    "chunk_overlap": (0, None),
    "top_k": TOP_K_RANGE,
    "strong_similarity": (0.0, 1.0),
    "min_similarity": (0.0, 1.0),
    "min_coverage": (0.0, 1.0),
    "similarity_margin": (0.0, 1.0),
    "listing_max_papers": MAX_PAPERS_RANGE,
    "llm_timeout": (0.1, None),
    "llm_idle_minutes": (0.0, 7 * 24 * 60),
    "llm_retries": (0, 20),
    "llm_max_tokens": (16, 32768),
    "context_tokens": (512, 1_000_000),
}


def _check(name: str, value: Any, origin: str) -> None:
    low, high = _LIMITS[name]
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"{origin}: {name} must be a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise BadInput(f"{origin}: {name} must be {span}, got {value!r}")


# Environment variable -> settings field. OPENAI_API_KEY is read because every OpenAI client does.
_ENV = {
    "CITELINE_DATA_DIR": "data_dir",
    "CITELINE_COLLECTION": "collection",
    "CITELINE_CHROMA_URL": "chroma_url",
    "CITELINE_CHROMA_TIMEOUT": "chroma_timeout",
    "CITELINE_EMBEDDING": "embedding",
    "CITELINE_EMBEDDING_CACHE": "embedding_cache",
    "CITELINE_CHUNK_TOKENS": "chunk_tokens",
    "CITELINE_CHUNK_OVERLAP": "chunk_overlap",
    "CITELINE_TOP_K": "top_k",
    "CITELINE_VENUE": "venue",
    "CITELINE_YEAR": "year",
    "CITELINE_STRONG_SIMILARITY": "strong_similarity",
    "CITELINE_MIN_SIMILARITY": "min_similarity",
    "CITELINE_MIN_COVERAGE": "min_coverage",
    "CITELINE_LISTING_MAX_PAPERS": "listing_max_papers",
    "CITELINE_SIMILARITY_MARGIN": "similarity_margin",
    "CITELINE_LLM": "llm",
    "CITELINE_VERIFY_ANSWERS": "verify_answers",
    "CITELINE_LLM_BASE_URL": "llm_base_url",
    "CITELINE_LLM_MODEL": "llm_model",
    "CITELINE_LOCAL_MODEL": "local_model",
    "CITELINE_LLM_IDLE_MINUTES": "llm_idle_minutes",
    "CITELINE_LLM_TIMEOUT": "llm_timeout",
    "CITELINE_LLM_RETRIES": "llm_retries",
    "CITELINE_LLM_MAX_TOKENS": "llm_max_tokens",
    "CITELINE_CONTEXT_TOKENS": "context_tokens",
    "CITELINE_LOG": "log",
    "OPENAI_API_KEY": "api_key",
}
_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def _coerce(name: str, value: Any, origin: str) -> Any:
    kind = _FIELDS[name].type
    try:
        if kind == "Path":
            return Path(str(value)).expanduser()
        if kind in ("int", "int | None"):
            if isinstance(value, bool):
                raise ValueError(value)
            number = int(value)
            if name in _LIMITS:
                _check(name, number, origin)
            return number
        if kind == "bool":
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                return str(value).lower() in ("1", "true", "yes", "on")
            raise ValueError(value)
        if kind == "float":
            number = float(value)
            if name in _LIMITS:
                _check(name, number, origin)
            return number
        return str(value) if value != "" else None
    except (TypeError, ValueError):
        raise BadInput(f"{origin}: {name} must be {kind}, got {value!r}") from None


def load_settings(env: dict[str, str] | None = None, config_file: Path | None = None) -> Settings:
    """Build the settings from the config file and the environment (``os.environ`` by default)."""
    env = dict(os.environ) if env is None else env
    values: dict[str, Any] = {}
    path = config_file or (Path(env["CITELINE_CONFIG"]) if env.get("CITELINE_CONFIG") else None)
    explicit = path is not None
    path = path or _default_config_file()
    if path.is_file():
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BadInput(f"{path}: not valid TOML ({exc})") from None
        table = table.get("citeline", table)
        for key, value in table.items():
            if key not in _FIELDS or key == "api_key":
                raise BadInput(f"{path}: unknown setting {key!r}")
            values[key] = _coerce(key, value, str(path))
    elif explicit:
        raise NotFound(f"config file not found: {path}")
    for var, name in _ENV.items():
        if env.get(var):
            values[name] = _coerce(name, env[var], var)
    return Settings(**values)
