"""CitelineRetriever inside a real LCEL chain: real index, real embeddings, a scripted chat model."""

from __future__ import annotations

from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from rag import CitelineRetriever

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
