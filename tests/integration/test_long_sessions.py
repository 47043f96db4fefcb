"""A session that outlives an ingest from another process (MCP server, chat, a LangChain app)
sees what that ingest wrote: papers added, changed and removed, in the scope it had open and in
a scope it opens afterwards."""

from __future__ import annotations

import json

import pytest

import rag
from rag.retrieval.langchain import CitelineRetriever

from .test_cli import run

PAPERS = {
    "r-1": (
        "Quillback sparse attention",
        "Quillback sparse attention cuts inference cost by 40%.",
    ),
    "r-2": ("Moorhen pruning", "Moorhen pruning removes 90% of convolution filters with no accuracy loss."),
    "r-3": (
        "Snorkelwing tactile grasping",
        "Snorkelwing tactile sensing raises robot grasping success to 93%.",
    ),
}


def _write(path, ids) -> None:
    path.write_text("".join(json.dumps({"id": i, "title": PAPERS[i][0], "abstract": PAPERS[i][1]}) + "\n"
                            for i in ids))  # fmt: skip


@pytest.fixture
def session(tmp_path):
    settings = rag.Settings(data_dir=tmp_path / "data", collection="grow", llm="none")
    source = tmp_path / "list.jsonl"
    _write(source, ["r-1", "r-2"])
    assert run(["ingest", str(source), "-c", "grow"], settings).returncode == 0
    return settings, source


def test_a_library_open_before_another_process_ingests_sees_the_added_and_removed_papers(session):
    settings, source = session
    library = rag.Library(settings)
    assert [h.paper.id for h in library.search("Moorhen pruning convolution filters")] == ["r-2"]
    assert not library.search("Snorkelwing tactile grasping")

    _write(source, ["r-1", "r-3"])  # r-2 removed, r-3 added, by another process
    assert run(["ingest", str(source), "-c", "grow"], settings).returncode == 0

    assert [h.paper.id for h in library.search("Snorkelwing tactile grasping")] == ["r-3"]
    assert not library.search("Moorhen pruning convolution filters")
    answer = library.ask("Which papers study robot grasping?")
    assert [c.paper.id for c in answer.citations] == ["r-3"]
    # A scope opened afterwards in the same process (the MCP server's next collection or filter).
    other = rag.Library(settings.replace(collection="gro*"))
    assert [h.paper.id for h in other.search("Snorkelwing tactile grasping")] == ["r-3"]


def test_a_langchain_retriever_open_before_another_process_ingests_sees_the_added_paper(session):
    settings, source = session
    retriever = CitelineRetriever(settings=settings)
    assert not retriever.invoke("Snorkelwing tactile grasping")
    _write(source, ["r-1", "r-2", "r-3"])
    assert run(["ingest", str(source), "-c", "grow"], settings).returncode == 0
    assert [d.metadata["id"] for d in retriever.invoke("Snorkelwing tactile grasping")] == ["r-3"]
    assert [
        d.metadata["id"] for d in CitelineRetriever(settings=settings).invoke("Snorkelwing grasping")
    ] == ["r-3"]


def test_parallel_calls_after_another_process_ingests_reopen_the_index_once(session, monkeypatch):
    # The MCP server runs tool calls on one library from several threads at once.
    import threading

    from rag.retrieval import retriever as module

    settings, source = session
    library = rag.Library(settings)
    library.search("Moorhen pruning convolution filters")
    _write(source, ["r-1", "r-2", "r-3"])
    assert run(["ingest", str(source), "-c", "grow"], settings).returncode == 0

    opened = []
    original = module.Retriever.__init__

    def counted(self, *args, **kwargs):
        opened.append(threading.current_thread().name)
        original(self, *args, **kwargs)

    monkeypatch.setattr(module.Retriever, "__init__", counted)
    found = {}
    calls = [threading.Thread(target=lambda n=n: found.update({n: library.search("Snorkelwing grasping")}))
             for n in range(4)]  # fmt: skip
    for call in calls:
        call.start()
    for call in calls:
        call.join()
    assert len(opened) == 1 and all([h.paper.id for h in hits] == ["r-3"] for hits in found.values())
    assert library.chain.retriever is library.retriever  # asks answer from the reopened index too
