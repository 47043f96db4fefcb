"""The answer prompt's system text, computed once per model rather than once per server start.

Every answer starts with the same system text (~270 of the model's tokens: at the ~36 tokens/s
this VM reads prompts, about 7 s of the first answer of every new server, per-process or
resident). llama.cpp can save a slot's KV state to a file and load it into a new server; the
xllamacpp server (:mod:`rag.llm.llama_server`) is started with ``--prefix_dir`` for that. So the
process that started a server, once it answers and before its first question:

- restores the state saved by an earlier server of the same weights, llama.cpp build and system
  text (milliseconds), and the question's prompt then starts from the cached prefix; or
- computes it (a one-token answer to the system text alone: the time the first question would
  spend on it anyway) and saves it for the next server.

The file is derived data, and input: llama.cpp aborts the whole server on a truncated state file,
so a file is trusted only when its content matches the hash in its name (``STEM-HASH.kv``), and
it is moved aside while it is restored (should the server die on it anyway, the next one finds
none and makes a new one). Files are saved under a name of the saving process's own and renamed
into place, so servers starting together never read a torn one. Nothing here can fail a start:
a step that fails costs only the time it would have saved.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from rag.files import is_regular, keep_newest, open_log, open_regular, remove_left_behind
from rag.llm.models import file_sha256, prefix_dir

KEEP = 4  # state files kept (~8 MB each): the most recently used; an upgrade's old ones go
MAX_BYTES = 256 << 20  # a state file larger than this is no system text's
QUICK = 30.0  # seconds for a slot save or restore (milliseconds when all is well)


def prefix_stem(weights: Path, system: str, build: str) -> str:
    """A state file's name without its content hash: files made for other weights, another
    system text or another llama.cpp build never match."""
    key = json.dumps([weights.name, weights.stat().st_size, build, system])
    return f"system-{hashlib.sha256(key.encode()).hexdigest()[:24]}"


def _build() -> str:
    """The llama.cpp build a state file was made by: the xllamacpp release."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("xllamacpp")
    except PackageNotFoundError:
        return ""


def _digest(path: Path) -> str | None:
    """The content hash of a regular file of at most :data:`MAX_BYTES` (None for anything else: a
    link, a FIFO that would block, a device that never ends)."""
    if (fd := open_regular(path, os.O_RDONLY)) is None:
        return None
    with os.fdopen(fd, "rb") as file:
        return file_sha256(file)[:16] if os.fstat(fd).st_size <= MAX_BYTES else None


def keep_prefix(root: str, weights: Path, token: str | None = None, timeout: float = 180.0) -> str:
    """Restore the system text's saved state into slot 0 of the server at ``root``
    (``http://127.0.0.1:PORT``), or compute and save it; "restored", "saved" or why not.

    Call it before any other client can reach the server: a question answered between computing
    the state and saving it would be saved in its place. ``timeout`` bounds computing it (the
    settings' ``llm_timeout``); a save or restore gets :data:`QUICK`."""
    import httpx

    from rag.resources import answer_system_prompt

    headers = {"Authorization": f"Bearer {token}"} if token else {}

    def post(path: str, body: dict, seconds: float = QUICK) -> dict:
        reply = httpx.post(f"{root}{path}", json=body, headers=headers, timeout=seconds)
        reply.raise_for_status()
        return reply.json()

    try:
        directory = prefix_dir(weights)
        directory.mkdir(mode=0o700, exist_ok=True)
        remove_left_behind(directory, "*.part", "*.restoring")  # a save or restore that died
        system = answer_system_prompt()
        stem = prefix_stem(weights, system, _build())
        for found in sorted(directory.glob(f"{stem}-*.kv")):
            if not is_regular(found):  # a directory or link of that name is no state of ours
                continue
            moved = directory / f"{found.name}.{os.getpid()}.restoring"
            try:
                os.replace(found, moved)
            except FileNotFoundError:  # another process is restoring it
                continue
            if _digest(moved) == found.stem.rsplit("-", 1)[-1]:
                try:
                    post("/slots/0?action=restore", {"filename": moved.name})
                except httpx.HTTPStatusError as exc:
                    if exc.response.status_code != 400:  # not the file's fault: keep it
                        os.replace(moved, found)
                        raise
                else:
                    os.utime(moved)  # used now: kept over older files (keep_newest)
                    os.replace(moved, found)
                    return "restored"
            moved.unlink(missing_ok=True)  # torn, or a file this build cannot read: made again
        messages = [{"role": "system", "content": system}, {"role": "user", "content": ""}]
        body = {"messages": messages, "max_tokens": 1, "temperature": 0, "id_slot": 0}
        usage = post("/v1/chat/completions", body, timeout).get("usage", {})
        partial = directory / f"{stem}.{os.getpid()}.part"
        saved = post("/slots/0?action=save", {"filename": partial.name}).get("n_saved")
        prompt = usage.get("prompt_tokens")
        if not (prompt and saved in range(prompt, prompt + usage.get("completion_tokens", 0) + 1)):
            partial.unlink(missing_ok=True)  # the slot held something else by then
            return f"not kept (the slot held {saved} tokens, not the system text's {prompt})"
        digest = _digest(partial)
        if digest is None:
            partial.unlink(missing_ok=True)
            return "not kept (the saved state is no regular file)"
        os.replace(partial, directory / f"{stem}-{digest}.kv")
        keep_newest(directory, "system-*.kv", KEEP)
        return "saved"
    except (httpx.HTTPError, OSError, ValueError) as exc:
        return f"not kept ({exc.__class__.__name__}: {exc})"


def prepare_server(
    command: list[str], port: int, weights: Path, log: Path, token: str | None = None, timeout: float = 180.0
) -> bool:
    """What a launcher does once the server it started answers: when ``command`` is a server that
    keeps slot files, :func:`keep_prefix` and a line in the server's ``log``. Whether it did (a
    launcher then checks the server survived a restore)."""
    if "--prefix_dir" not in command:
        return False
    kept = keep_prefix(f"http://127.0.0.1:{port}", weights, token, timeout)
    if (fd := open_log(log)) is not None:
        with os.fdopen(fd, "a", encoding="utf-8") as written:
            written.write(f"citeline: system prompt state {kept}\n")
    return True
