import hashlib
import itertools
import os
from pathlib import Path

from rag.index.chunking import chunk_paper, chunk_text
from rag.index.metadata import paper_from_metadata
from rag.index.tokens import count_tokens, seed_tiktoken_cache
from rag.records import Paper
from rag.text import split_sentences


def test_tiktoken_cache_is_seeded_from_the_package_under_the_sha1_of_the_blob_url(tmp_path):
    seed_tiktoken_cache(tmp_path)
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    assert (tmp_path / hashlib.sha1(url.encode()).hexdigest()).stat().st_size > 1_000_000
    assert count_tokens("hello world") == 2  # offline: tiktoken found its file in the cache
    assert Path(os.environ["TIKTOKEN_CACHE_DIR"]).is_dir()


def test_short_abstract_stays_one_chunk():
    assert chunk_text("One sentence. Two sentences.", max_tokens=50, overlap=5) == [
        "One sentence. Two sentences."
    ]


def test_long_text_splits_on_sentences_within_budget_with_overlap():
    sentences = [f"Sentence number {i} talks about topic {i} in some detail." for i in range(40)]
    chunks = chunk_text(" ".join(sentences), max_tokens=60, overlap=15)
    assert len(chunks) > 3
    assert all(count_tokens(c) <= 60 for c in chunks)
    assert all(c.endswith(".") for c in chunks)  # never cut mid-sentence
    for left, right in itertools.pairwise(chunks):
        assert left.split(". ")[-1].rstrip(".") in right  # the last sentence is carried over


def test_sentence_longer_than_the_window_is_cut_on_tokens():
    chunks = chunk_text("word " * 500, max_tokens=100, overlap=10)
    assert len(chunks) >= 5 and all(count_tokens(c) <= 100 for c in chunks)


def test_abbreviations_do_not_end_sentences():
    assert split_sentences("We use e.g. Adam here. Then SGD.") == ["We use e.g. Adam here.", "Then SGD."]


def test_chunks_carry_scalar_metadata_that_rebuilds_the_paper_and_the_abstract_only_once():
    paper = Paper(id="p-1", abstract="A. " * 300, label="L", source="s.jsonl", line=7, title="Title",
                  authors=("A B", "C D"), venue="ICML", year=2024)  # fmt: skip
    chunks = chunk_paper(paper, max_tokens=100, overlap=10)
    assert [c.id for c in chunks] == [f"p-1#{i}" for i in range(len(chunks))]
    for chunk in chunks:
        assert all(isinstance(v, str | int | float | bool) for v in chunk.metadata.values())
        assert chunk.text.startswith("Title\n")
    assert paper_from_metadata(chunks[0].metadata) == paper
    assert len(chunks) > 2 and all("abstract" not in c.metadata for c in chunks[1:])
    assert paper_from_metadata(chunks[-1].metadata) == Paper(**{**paper.__dict__, "abstract": ""})
