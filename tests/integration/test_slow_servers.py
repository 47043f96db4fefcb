"""Servers that accept a connection and then stall: a clear timeout message, nothing lost.

The stalls are real sockets on 127.0.0.1: a server that never answers, an LLM server that stops
in the middle of a streamed reply, and a proxy in front of a real Chroma server that holds back
the answers to queries or writes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from rag.index.ingest import ingest
from rag.resources import bundled_corpus

from ..conftest import with_bundled_vectors
from .test_cli import run
from .test_processes import _assert_consistent

STALL = 60  # far beyond the timeouts set below


@pytest.fixture
def silent_port():
    """A port that accepts connections and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def _serve(handler) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _timed(args, settings, env):
    started = time.monotonic()
    result = run(args, settings, extra_env=env)
    return result, time.monotonic() - started


def _llm_env(port: int) -> dict[str, str]:
    return {"CITELINE_LLM": "openai", "CITELINE_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "CITELINE_LLM_MODEL": "m", "CITELINE_LLM_TIMEOUT": "2", "CITELINE_LLM_RETRIES": "0"}  # fmt: skip


QUESTION = "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?"


def test_an_llm_server_that_never_answers_times_out_with_one_line(seed_settings, silent_port):
    result, took = _timed(["ask", QUESTION, "--json"], seed_settings, _llm_env(silent_port))
    assert result.returncode == 1 and took < 40
    assert result.stderr.strip().splitlines() == [
        f"error: the LLM at http://127.0.0.1:{silent_port}/v1 timed out; "
        "raise CITELINE_LLM_TIMEOUT or try again"
    ]
    assert run(["search", "AdaSCALE", "--json"], seed_settings).returncode == 0  # the index is untouched


class _StallingMidStream(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that streams two tokens of an answer and then goes quiet."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for piece in ("AdaSCALE ", "improves "):
            delta = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
            chunk = {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [delta],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        time.sleep(STALL)


def test_an_llm_reply_that_stalls_midway_times_out_with_one_line(seed_settings):
    server = _serve(_StallingMidStream)
    try:
        result, took = _timed(["ask", QUESTION, "--json"], seed_settings, _llm_env(server.server_port))
    finally:
        server.shutdown()
        server.server_close()  # shutdown() leaves the listening socket open
    assert result.returncode == 1 and took < 40
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "timed out" in lines[0] and "Traceback" not in result.stderr


def test_a_chroma_server_that_never_answers_times_out_with_one_line(seed_settings, silent_port):
    env = {"CITELINE_CHROMA_URL": f"http://127.0.0.1:{silent_port}", "CITELINE_CHROMA_TIMEOUT": "2"}
    result, took = _timed(["search", "AdaSCALE", "--json"], seed_settings, env)
    assert result.returncode == 1 and took < 40
    assert result.stderr.strip().splitlines() == [
        f"error: the Chroma server at http://127.0.0.1:{silent_port} did not answer within 2s "
        "(CITELINE_CHROMA_TIMEOUT)"
    ]


def _stalling_proxy(upstream: str, stall_on: str):
    """A proxy to a real Chroma server that never answers requests whose path ends in ``stall_on``."""

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _forward(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.rstrip("/").endswith(stall_on):
                time.sleep(STALL)
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            answer = httpx.request(
                self.command, upstream + self.path, content=body, headers=headers, timeout=60
            )
            self.send_response(answer.status_code)
            for key, value in answer.headers.items():
                if key.lower() not in (
                    "content-length",
                    "transfer-encoding",
                    "connection",
                    "content-encoding",
                ):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        do_GET = do_POST = do_PUT = do_DELETE = _forward

    return _serve(Proxy)


def test_a_chroma_server_that_stalls_on_queries_times_out_after_connecting(store_settings, bundled_vectors):
    if not store_settings.chroma_url:
        pytest.skip("a Chroma server case")
    ingest(bundled_corpus()[:1], with_bundled_vectors(store_settings, bundled_vectors))
    proxy = _stalling_proxy(store_settings.chroma_url, stall_on="/query")
    env = {"CITELINE_CHROMA_URL": f"http://127.0.0.1:{proxy.server_port}", "CITELINE_CHROMA_TIMEOUT": "3",
           "CITELINE_COLLECTION": store_settings.collection}  # fmt: skip
    try:
        result, took = _timed(["search", "AdaSCALE", "--json"], store_settings, env)
    finally:
        proxy.shutdown()
        proxy.server_close()  # shutdown() leaves the listening socket open
    assert result.returncode == 1 and took < 60
    assert result.stderr.strip().splitlines() == [
        f"error: the Chroma server at http://127.0.0.1:{proxy.server_port} did not answer within 3s "
        "(CITELINE_CHROMA_TIMEOUT); nothing was lost, run it again"
    ]


def test_an_ingest_whose_chroma_writes_stall_fails_cleanly_and_a_rerun_completes(store_settings):
    if not store_settings.chroma_url:
        pytest.skip("a Chroma server case")
    proxy = _stalling_proxy(store_settings.chroma_url, stall_on="/upsert")
    env = {"CITELINE_CHROMA_URL": f"http://127.0.0.1:{proxy.server_port}", "CITELINE_CHROMA_TIMEOUT": "3",
           "CITELINE_COLLECTION": store_settings.collection}  # fmt: skip
    try:
        seeds = str(bundled_corpus()[0].parent)
        result = run(["ingest", seeds], store_settings, extra_env=env)
    finally:
        proxy.shutdown()
        proxy.server_close()  # shutdown() leaves the listening socket open
    assert result.returncode == 1 and "did not answer within 3s" in result.stderr.strip().splitlines()[-1]
    report = ingest(bundled_corpus(), store_settings)  # the real server again
    assert report.added == 57 and report.vectors_reused > 0  # the stalled batch's vectors were kept
    _assert_consistent(store_settings, 57)
