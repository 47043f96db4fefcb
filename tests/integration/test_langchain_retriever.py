"""CitelineRetriever inside a real LCEL chain: real index, real embeddings, a scripted chat model."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from rag import CitelineError, CitelineRetriever

from ..fakes import ScriptedChatModel


def _format(docs) -> str:
    return "\n".join(
        f"[{d.metadata['id']}] ({d.metadata['source']}:{d.metadata['line']}) {d.page_content}" for d in docs
    )


def test_a_citeline_index_serves_an_lcel_chain_with_provenance_in_metadata(seed_settings):
    retriever = CitelineRetriever(settings=seed_settings, k=3)
    docs = retriever.invoke("adaptive percentile threshold for OOD activation scaling")
    assert docs and docs[0].metadata["id"] == "000-02"
    assert docs[0].metadata["source"] == "000_888317b1d60d9493.txt" and docs[0].metadata["line"] == 5
    assert docs[0].metadata["venue"] == "ICML" and docs[0].metadata["year"] == 2026
    assert "AdaSCALE" in docs[0].page_content

    model = ScriptedChatModel(replies=["AdaSCALE beats OptFS by 14.94% [000-02]."], prompts=[])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from:\n{context}"), ("human", "{question}")]
    )
    chain = (
        {"context": retriever | _format, "question": RunnablePassthrough()}
        | prompt
        | model
        | StrOutputParser()
    )
    out = chain.invoke("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?")
    assert out == "AdaSCALE beats OptFS by 14.94% [000-02]."
    seen = model.prompts[0][0].content
    assert "[000-02] (000_888317b1d60d9493.txt:5)" in seen and "14.94" in seen


def test_an_off_topic_query_gives_no_documents_unless_the_floor_is_off(seed_settings):
    query = "What accuracy does GPT-5 reach on MMLU?"
    assert CitelineRetriever(settings=seed_settings).invoke(query) == []
    assert len(CitelineRetriever(settings=seed_settings, floor=False, k=2).invoke(query)) == 2


# The README's LangChain example is the block after this marker; it must run as written.
README = Path(__file__).resolve().parents[2] / "README.md"
EXAMPLE_MARKER = "<!-- langchain-example"


def readme_example(readme: Path) -> str:
    """The ```python block that follows the marker in ``readme``."""
    text = readme.read_text(encoding="utf-8")
    assert EXAMPLE_MARKER in text, f"{readme} has no {EXAMPLE_MARKER} ... --> block"
    after = text[text.index(EXAMPLE_MARKER) :]
    start = after.index("```python\n") + len("```python\n")
    return after[start : after.index("\n```", start)]


def test_the_readme_langchain_example_runs_as_written_and_cites_paper_ids(seed_settings, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(readme_example(README))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELINE_") and k != "OPENAI_API_KEY"}
    env["CITELINE_DATA_DIR"] = str(seed_settings.data_dir)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    ids, answer = done.stdout.strip().splitlines()
    assert ast.literal_eval(ids)[0] == "000-02" and len(ast.literal_eval(ids)) <= 2
    assert answer.startswith("[000-02] AdaSCALE (000_888317b1d60d9493.txt:5): ")


def test_without_settings_the_retriever_reads_the_commands_environment(seed_settings, monkeypatch):
    monkeypatch.setenv("CITELINE_DATA_DIR", str(seed_settings.data_dir))
    monkeypatch.setenv("CITELINE_TOP_K", "3")
    retriever = CitelineRetriever(floor=False)
    docs = retriever.invoke("adaptive percentile threshold for OOD activation scaling")
    assert len(docs) == 3 and docs[0].metadata["id"] == "000-02"
    assert retriever.settings.data_dir == seed_settings.data_dir


def test_k_given_to_invoke_applies_to_that_call_only(seed_settings):
    retriever = CitelineRetriever(settings=seed_settings, floor=False, k=5)
    query = "adaptive percentile threshold for OOD activation scaling"
    assert len(retriever.invoke(query, k=2)) == 2
    assert len(retriever.invoke(query)) == 5
    with pytest.raises(CitelineError, match="k must be an integer between 1 and 200, got 0"):
        retriever.invoke(query, k=0)


def test_on_an_empty_data_dir_the_retriever_indexes_the_bundled_corpus_like_the_command(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CITELINE_DATA_DIR", str(tmp_path / "fresh"))
    docs = CitelineRetriever().invoke("adaptive percentile threshold for OOD activation scaling")
    assert docs and docs[0].metadata["id"] == "000-02"
