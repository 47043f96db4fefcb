"""What a query command imports: bm25s without SciPy, chromadb without the ``overrides`` checks
(together ~0.25 s of a ~1.3 s cold ``citeline search`` here), and both still work as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys

TEXTS = [
    "Graph neural networks for molecule property prediction.",
    "Sparse autoencoders find interpretable features in language models.",
    "Message passing on graphs with attention over neighbours.",
    "Watermarking the text of large language models.",
]

_BUILD = """
import json, sys
from rag.text import bm25s_module, stemmer
bm25s = bm25s_module() if sys.argv[1] == "citeline" else __import__("bm25s")
texts = json.loads(sys.argv[2])
tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer(), show_progress=False)
index = bm25s.BM25(csc_backend="numpy" if sys.argv[1] == "citeline" else "scipy")
index.index(tokens, show_progress=False)
query = [t for t in bm25s.tokenize(["graph attention"], stopwords="en", stemmer=stemmer(),
                                   show_progress=False).vocab if t in index.vocab_dict]
docs, scores = index.retrieve([query], k=len(texts), show_progress=False)
print(json.dumps({"scipy": "scipy.sparse" in sys.modules and sys.modules["scipy.sparse"] is not None,
                  "data": index.scores["data"].tolist(), "indices": index.scores["indices"].tolist(),
                  "docs": docs[0].tolist(), "scores": scores[0].tolist()}))
"""


def _build(way: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # bm25s numbers its vocabulary in set order
    command = [sys.executable, "-c", _BUILD, way, json.dumps(TEXTS)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_bm25s_is_imported_without_scipy_and_builds_and_ranks_as_with_it():
    ours, scipy_built = _build("citeline"), _build("plain")
    assert not ours["scipy"] and scipy_built["scipy"]  # the control imported it
    for field in ("data", "indices", "docs", "scores"):
        assert ours[field] == scipy_built[field], field
    assert ours["docs"][0] in (0, 2) and ours["scores"][0] > 0


_CHROMA = """
import sys
from rag.index.store import import_chromadb
chromadb = import_chromadb()
client = chromadb.EphemeralClient()
collection = client.create_collection("papers")
collection.add(ids=["a", "b"], embeddings=[[1.0, 0.0], [0.0, 1.0]], documents=["x", "y"])
print(collection.query(query_embeddings=[[0.9, 0.1]], n_results=1)["ids"][0][0])
"""


def test_chromadb_imported_without_the_override_checks_still_stores_and_queries():
    done = subprocess.run([sys.executable, "-c", _CHROMA], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a"
