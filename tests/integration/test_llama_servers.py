"""Each llama.cpp server citeline can start (the prebuilt ``xllamacpp`` and the source-built
``llama_cpp.server``) serves what citeline uses: the token guard the resident server relies on,
``/v1/models``, streamed ``/v1/chat/completions``, and a prompt stop on SIGTERM.

Real servers with the real weights; a backend that is not installed here is skipped.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import secrets
import subprocess
import time

import httpx
import pytest

from rag.llm.models import SERVERS, ensure_weights, lookup, parts_installed, server_command
from rag.llm.ports import free_port
from rag.settings import Settings


@pytest.mark.parametrize(("package", "module"), SERVERS, ids=[package for package, _ in SERVERS])
def test_server_requires_the_token_streams_a_chat_answer_and_stops_on_sigterm(package, module, tmp_path):
    model = lookup(Settings().local_model)
    if importlib.util.find_spec(package) is None or not parts_installed(model):
        pytest.skip(f"{package} or the embedded model's weights are not installed")
    weights = ensure_weights(model, Settings().models_dir)
    port, token = free_port(), secrets.token_urlsafe(32)
    command = server_command(model, weights, port, 2048, module=module)
    url, auth = f"http://127.0.0.1:{port}/v1", {"Authorization": f"Bearer {token}"}
    with (tmp_path / "log").open("wb") as log:
        server = subprocess.Popen(command, env={**os.environ, "API_KEY": token}, stdout=log,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while True:
            assert server.poll() is None, (tmp_path / "log").read_text()[-2000:]
            try:
                if httpx.get(f"{url}/models", headers=auth, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not come up in 300 s"
            time.sleep(0.3)

        wrong = {"Authorization": "Bearer wrong"}
        assert httpx.get(f"{url}/models", timeout=5).status_code == 401
        assert httpx.get(f"{url}/models", headers=wrong, timeout=5).status_code == 401
        served = [entry["id"] for entry in httpx.get(f"{url}/models", headers=auth, timeout=5).json()["data"]]
        assert served == [model.name]

        body = {"model": model.name, "messages": [{"role": "user", "content": "Say hello."}],
                "max_tokens": 8, "temperature": 0, "stream": True}  # fmt: skip
        refused = httpx.post(f"{url}/chat/completions", json=body, timeout=60)
        assert refused.status_code == 401
        pieces, done = [], False
        with httpx.stream("POST", f"{url}/chat/completions", json=body, headers=auth, timeout=120) as reply:
            assert reply.status_code == 200
            for line in reply.iter_lines():
                if line == "data: [DONE]":
                    done = True
                elif line.startswith("data: "):
                    choices = json.loads(line[6:]).get("choices") or [{}]
                    pieces.append(choices[0].get("delta", {}).get("content") or "")
        assert done and len([p for p in pieces if p]) >= 2 and "".join(pieces).strip()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            pytest.fail("the server did not stop within 20 s of SIGTERM")


def test_a_server_starts_from_the_system_text_state_saved_before(seed_settings):
    """The first answer of a new server reads only what follows the answer prompt's system text:
    the process that started it restored the state saved by an earlier one (rag.llm.prefix).
    Here on one server, its slot emptied in between; across servers: test_resident_llm."""
    from rag.llm.client import LocalServer, local_available
    from rag.llm.models import prefix_dir
    from rag.llm.prefix import keep_prefix
    from rag.resources import answer_system_prompt

    settings = seed_settings.replace(llm="local")
    if importlib.util.find_spec("xllamacpp") is None or not local_available(settings):
        pytest.skip("xllamacpp or the embedded model's weights are not installed")
    log = settings.data_dir / "llama-server.log"
    server = LocalServer(settings)
    try:  # saved now, unless an earlier test's server did
        kept = log.read_text().rsplit("citeline: system prompt state ", 1)[1].split("\n")[0]
        assert kept in ("saved", "restored")
        root = server.base_url.removesuffix("/v1")
        httpx.post(f"{root}/slots/0?action=erase", timeout=30).raise_for_status()
        assert keep_prefix(root, server.weights) == "restored"
        body = {"messages": [{"role": "system", "content": answer_system_prompt()},
                             {"role": "user", "content": "Context: none.\nQuestion: What is X?"}],
                "max_tokens": 1, "temperature": 0}  # fmt: skip
        usage = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120).json()["usage"]
    finally:
        server.stop()
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    assert 200 <= cached < usage["prompt_tokens"]  # the system text came from the file, the question did not
    (saved,) = prefix_dir(server.weights).glob("system-*.kv")
    with saved.open("rb") as file:  # its name holds its content's hash (a torn file is never read)
        assert hashlib.file_digest(file, "sha256").hexdigest().startswith(saved.stem.rsplit("-", 1)[1])
