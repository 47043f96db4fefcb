"""Locate files shipped with citeline (prompts, the bundled corpus) in a checkout or a wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """``prompts`` or ``data/icml2026``: in a wheel under ``rag/_resources``, else the repo root."""
    for candidate in (_PACKAGE / "_resources" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"citeline resource {name!r} is missing from the installation")


def bundled_corpus() -> list[Path]:
    """The bundled ICML 2026 lists, ingested into the default collection on first use."""
    return sorted(resource_dir("data/icml2026").glob("*.txt"))


def prompt_text(name: str) -> str:
    """A prompt template from prompts/ (prompts live as text, not in code)."""
    return (resource_dir("prompts") / f"{name}.txt").read_text(encoding="utf-8")


def answer_system_prompt() -> str:
    """The answer prompt's system text, the refusal sentence filled in: the same for every
    question, so the embedded server can keep it computed (``rag.llm.llama_server``)."""
    return prompt_text("answer_system").replace("{refusal}", prompt_text("refusal").strip())
