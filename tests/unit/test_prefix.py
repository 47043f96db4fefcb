"""rag.llm.prefix against a stand-in for llama.cpp's slot endpoints (the real server:
tests/integration/test_llama_servers.py): which files are trusted, restored, replaced."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rag.llm.models import prefix_dir
from rag.llm.prefix import keep_prefix


class _Slots(BaseHTTPRequestHandler):
    """Records every request; ``save`` writes the file llama.cpp would; ``restore`` fails when
    the server was told to (``refuse``: the status code, 400 for a file its build cannot read);
    the slot holds ``saved_tokens`` when saved (the warm-up's 270 unless another request came in)."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.calls.append((self.path, body))
        reply: dict = {}
        if self.path == "/v1/chat/completions":
            reply = {"usage": {"prompt_tokens": 270, "completion_tokens": 1}}
        if self.path == "/slots/0?action=save":
            (self.server.directory / body["filename"]).write_bytes(b"KV state")
            reply = {"n_saved": self.server.saved_tokens}
        status = self.server.refuse if self.path == "/slots/0?action=restore" and self.server.refuse else 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(reply).encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path):
    weights = tmp_path / "models" / "w.gguf"
    weights.parent.mkdir()
    weights.write_bytes(b"weights")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Slots)
    httpd.calls, httpd.directory, httpd.refuse, httpd.weights = [], prefix_dir(weights), 0, weights
    httpd.saved_tokens = 271
    threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True).start()
    httpd.root = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd
    httpd.shutdown()
    httpd.server_close()  # shutdown() leaves the listening socket open


def _paths(server) -> list[str]:
    return [path for path, _ in server.calls]


def _files(server) -> list[Path]:
    return sorted(server.directory.iterdir())


def test_the_first_server_computes_and_saves_the_state_and_the_next_restores_it(server):
    assert keep_prefix(server.root, server.weights) == "saved"
    assert _paths(server) == ["/v1/chat/completions", "/slots/0?action=save"]
    messages = server.calls[0][1]["messages"]
    assert messages[0]["role"] == "system" and messages[1] == {"role": "user", "content": ""}
    (saved,) = _files(server)
    assert saved.stem.endswith("-" + hashlib.sha256(b"KV state").hexdigest()[:16])
    server.calls.clear()
    assert keep_prefix(server.root, server.weights) == "restored"
    assert _paths(server) == ["/slots/0?action=restore"] and _files(server) == [saved]


def test_a_file_whose_content_does_not_match_its_name_is_never_restored_and_is_made_again(server):
    keep_prefix(server.root, server.weights)
    (saved,) = _files(server)
    saved.write_bytes(b"KV st")  # torn: llama.cpp would abort the whole server on it
    server.calls.clear()
    assert keep_prefix(server.root, server.weights) == "saved"
    assert "/slots/0?action=restore" not in _paths(server)
    assert _files(server) == [saved] and saved.read_bytes() == b"KV state"


def test_a_file_the_server_cannot_restore_is_removed_and_made_again(server):
    keep_prefix(server.root, server.weights)
    server.refuse = 400
    server.calls.clear()
    assert keep_prefix(server.root, server.weights) == "saved"
    assert _paths(server) == ["/slots/0?action=restore", "/v1/chat/completions", "/slots/0?action=save"]
    assert len(_files(server)) == 1


def test_leftovers_of_processes_that_are_gone_are_removed_and_a_failing_server_fails_nothing(server):
    server.directory.mkdir()
    gone = server.directory / "system-x-0123.kv.999999999.restoring"
    gone.write_bytes(b"x")
    assert keep_prefix("http://127.0.0.1:9", server.weights).startswith("not kept (")
    assert not gone.exists()


def test_only_the_most_recently_used_state_files_are_kept(server):
    import os

    import rag.llm.prefix as prefix

    server.directory.mkdir()
    for n in range(6):  # an older system text's, another build's...
        old = server.directory / f"system-old{n}-0000000000000000.kv"
        old.write_bytes(b"x")
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    assert keep_prefix(server.root, server.weights) == "saved"
    kept = {f.name for f in _files(server)}
    assert len(kept) == prefix.KEEP and {f"system-old{n}-0000000000000000.kv" for n in (3, 4, 5)} < kept


def test_a_restore_refused_for_another_reason_keeps_the_file(server):
    keep_prefix(server.root, server.weights)
    (saved,) = _files(server)
    server.refuse = 401  # e.g. a token the server does not take: not the file's fault
    assert keep_prefix(server.root, server.weights).startswith("not kept (HTTPStatusError")
    assert _files(server) == [saved]


def test_a_slot_holding_another_request_when_saved_is_not_kept(server):
    server.saved_tokens = 149  # a question answered between the warm-up and the save
    assert keep_prefix(server.root, server.weights).startswith("not kept (the slot held 149 tokens")
    assert _files(server) == []


def test_a_state_file_that_is_no_regular_file_is_never_read(server):
    import os

    keep_prefix(server.root, server.weights)
    (saved,) = _files(server)
    saved.unlink()
    os.mkfifo(saved)  # opening it for reading would block for ever
    server.calls.clear()
    assert keep_prefix(server.root, server.weights) == "saved"
    assert "/slots/0?action=restore" not in _paths(server) and saved.read_bytes() == b"KV state"


def test_a_directory_or_link_named_like_a_state_file_never_blocks_restoring_the_real_one(server):
    keep_prefix(server.root, server.weights)
    (saved,) = _files(server)
    stem = saved.name.rsplit("-", 1)[0]
    planted = server.directory / f"{stem}-0000000000000dir.kv"
    planted.mkdir()  # sorts before the real file: it used to be moved aside and block every restore
    (server.directory / "leftover.999999999.part").mkdir()  # a gone pid: only its kind keeps it
    (server.directory / "system-other-0123456789abcdef.kv").symlink_to(server.directory / "missing")
    for _ in range(2):
        assert keep_prefix(server.root, server.weights) == "restored"
    assert planted.is_dir() and (server.directory / "leftover.999999999.part").is_dir()  # not ours


def test_the_saved_state_is_of_the_system_text_the_answers_send():
    from rag.answer.pipeline import AnswerChain
    from rag.llm.client import LLMHandle
    from rag.resources import answer_system_prompt
    from rag.settings import Settings

    chain = AnswerChain(Settings(llm="none"), retriever=None, llm=LLMHandle("none", None, "none"))
    assert chain.system_prompt == answer_system_prompt()
