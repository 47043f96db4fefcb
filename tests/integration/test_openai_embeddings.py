"""OpenAI-compatible embeddings over real HTTP, against a small local server speaking the API.

The server answers ``POST /v1/embeddings`` with deterministic bag-of-words vectors, so the test
exercises the real client path (openai package, batching, ordering, errors) without a network.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rag.errors import CitelineError
from rag.index.embeddings import OpenAIEmbedder
from rag.index.ingest import ingest
from rag.resources import bundled_corpus
from rag.retrieval.retriever import Retriever

DIM = 64


def _vector(text: str) -> list[float]:
    vector = [0.0] * DIM
    for word in text.lower().split():
        vector[int(hashlib.md5(word.strip(".,()").encode()).hexdigest(), 16) % DIM] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def _reply(handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": _vector(t)} for i, t in enumerate(inputs)]
        payload = json.dumps({"object": "list", "data": data[::-1], "model": body["model"],
                              "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()  # fmt: skip
        _reply(self, 200, payload)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def embeddings_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()  # shutdown() leaves the listening socket open


def test_openai_embeddings_keep_input_order_even_when_the_server_reorders(embeddings_url):
    embedder = OpenAIEmbedder("test-embed", None, embeddings_url, timeout=10)
    vectors = embedder.embed_documents(["graph networks", "audio watermarking"])
    assert vectors == [_vector("graph networks"), _vector("audio watermarking")]
    assert embedder.name == "openai:test-embed"


def test_index_built_with_openai_embeddings_searches_and_refuses_minilm(store_settings, embeddings_url):
    settings = store_settings.replace(
        embedding="openai:test-embed", llm_base_url=embeddings_url, min_similarity=0.0
    )
    report = ingest(bundled_corpus()[:1], settings)
    assert report.added == 19
    hits = Retriever(settings).search("adaptive percentile threshold OOD activation scaling AdaSCALE", k=3)
    assert hits[0].paper.id == "000-02"
    with pytest.raises(CitelineError, match="was built with embedding 'openai:test-embed'"):
        Retriever(settings.replace(embedding="minilm"))


def test_unreachable_embedding_server_is_a_clear_error():
    embedder = OpenAIEmbedder("m", None, "http://127.0.0.1:9/v1", timeout=2)
    embedder._client = embedder._client.with_options(max_retries=0)
    with pytest.raises(CitelineError, match="embedding request failed"):
        embedder.embed_documents(["x"])


class _EchoingHandler(BaseHTTPRequestHandler):
    """A server that rejects the key and echoes the Authorization header back, as some do."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        header = self.headers["Authorization"]
        message = f"Incorrect API key provided: {header}. api_key={header.removeprefix('Bearer ')}"
        payload = json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()
        _reply(self, 401, payload)

    def log_message(self, *args):
        pass


def test_an_embedding_server_echoing_the_api_key_never_gets_it_printed(tmp_path):
    from rag.settings import Settings

    from .test_cli import run

    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoingHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    secret = "sk-test-SENTINEL-echo-4242"
    lists = tmp_path / "p.jsonl"
    lists.write_text(json.dumps({"id": "a", "abstract": "Graph networks for molecules."}) + "\n")
    env = {"OPENAI_API_KEY": secret, "CITELINE_EMBEDDING": "openai:m",
           "CITELINE_LLM_BASE_URL": f"http://127.0.0.1:{server.server_port}/v1"}  # fmt: skip
    try:
        for args in (["ingest", str(lists), "-c", "echo"], ["ingest", str(lists), "-c", "echo", "--json"]):
            result = run(args, Settings(data_dir=tmp_path / "data"), extra_env=env)
            assert result.returncode == 1 and secret not in result.stdout + result.stderr
            assert "SENTINEL" not in result.stderr and "Traceback" not in result.stderr
            assert result.stderr.startswith("error: embedding request failed: AuthenticationError")
            assert "[redacted]" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    finally:
        server.shutdown()
        server.server_close()  # shutdown() leaves the listening socket open
