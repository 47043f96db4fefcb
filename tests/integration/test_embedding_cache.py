"""The embedding cache: known text is never embedded twice, and cached vectors equal fresh ones."""

import json

from rag.index.embedding_cache import CachedEmbedder, EmbeddingCache
from rag.index.embeddings import make_embedder
from rag.index.ingest import ingest
from rag.index.store import Store
from rag.resources import bundled_corpus
from rag.settings import Settings


def _vectors(settings) -> dict[str, list[float]]:
    store = Store(settings)
    store.open(make_embedder(settings).name)
    ids = [cid for cid, _ in store.all_chunks()]
    return {cid: [round(x, 6) for x in v] for cid, v in store.vectors(ids).items()}


def test_a_second_collection_of_the_same_papers_reuses_every_vector(store_settings):
    first = ingest(bundled_corpus(), store_settings)
    assert first.vectors_reused == 0 and first.chunks_written == 104
    copy_settings = store_settings.replace(collection=f"{store_settings.collection}-copy")
    copy = ingest(bundled_corpus(), copy_settings)
    assert copy.chunks_written == 104 and copy.vectors_reused == 104
    assert copy.embed_seconds < first.embed_seconds / 5
    assert _vectors(copy_settings) == _vectors(store_settings)


def test_a_metadata_only_change_rewrites_the_paper_without_embedding_it(store_settings, tmp_path):
    record = {"id": "p1", "title": "Sparse autoencoders", "abstract": "Feature death in sparse autoencoders "
              "is prevented by resampling dead latents.", "authors": ["A. Author"]}  # fmt: skip
    path = tmp_path / "list.jsonl"
    path.write_text(json.dumps(record))
    ingest([path], store_settings)
    path.write_text(json.dumps(record | {"authors": ["A. Author", "B. Author"]}))
    report = ingest([path], store_settings)
    assert (report.updated, report.chunks_written, report.vectors_reused) == (1, 1, 1)


def test_the_cache_embeds_each_new_text_once_and_keeps_the_callers_order(tmp_path):
    inner = make_embedder(Settings())
    calls: list[list[str]] = []

    class Counting:
        name = inner.name

        def embed_documents(self, texts):
            calls.append(list(texts))
            return inner.embed_documents(texts)

        def embed_query(self, text):
            return inner.embed_query(text)

    cached = CachedEmbedder(Counting(), EmbeddingCache(tmp_path / "cache.sqlite"))
    first = cached.embed_documents(["graph networks", "audio watermarking", "graph networks"])
    second = CachedEmbedder(Counting(), EmbeddingCache(tmp_path / "cache.sqlite")).embed_documents(
        ["audio watermarking", "bandits", "graph networks"]
    )
    assert calls == [["graph networks", "audio watermarking"], ["bandits"]]
    assert first[0] == first[2] == second[2] and first[1] == second[0]


def test_turning_the_cache_off_keeps_no_vectors_on_disk(store_settings):
    settings = store_settings.replace(embedding_cache=False)
    ingest(bundled_corpus()[:1], settings)
    assert not (settings.data_dir / "cache").exists()
    again = ingest(bundled_corpus()[:1], settings.replace(collection=f"{settings.collection}-b"))
    assert again.vectors_reused == 0
