"""llama.cpp's own OpenAI-compatible HTTP server, run from the prebuilt ``xllamacpp`` wheel.

``llama-cpp-python`` ships no wheels on PyPI: installing it compiles llama.cpp, about 15 minutes on
2 cores. ``xllamacpp`` is a prebuilt manylinux wheel (glibc 2.17+) with llama.cpp's C++ server
inside; it installs in seconds and runs the model on the repacked q4_K 8x8 kernels with AVX2/FMA.
A source build compiled on a CPU with AVX-512 reads prompts ~20-40% faster per core (measured here, README);
on an AVX2 CPU both run the same kernels.

This module is the process :func:`rag.llm.models.server_command` starts. It takes the
same flags as ``python -m llama_cpp.server`` and the same ``API_KEY`` environment variable (the
resident server's per-start token), so the resident watchdog and the per-process server treat
both backends alike. It serves until SIGTERM or SIGINT.

``--prefix_dir`` turns on llama.cpp's slot files there: :mod:`rag.llm.prefix` keeps the answer
prompt's system text computed across servers with them.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from rag.machine import usable_cpus

# The server keeps finished prompts' KV state in RAM to reuse their prefixes. Its default cap is
# 8 GiB; a resident process lives for many questions, so it gets a bound that fits next to Chroma.
PROMPT_CACHE_MIB = 512


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m rag.llm.llama_server", description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--model_alias", default=None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n_ctx", type=int, default=4096)
    parser.add_argument("--n_threads", type=int, default=usable_cpus())
    parser.add_argument("--prefix_dir", default=None, help="where slot files are saved (rag.llm.prefix)")
    return parser.parse_args(argv)


def serve(argv: list[str]) -> int:
    """Load the model, listen, and block until a stop signal (the server runs on its own threads)."""
    args = _arguments(argv)
    # Signals are blocked before the server starts its threads, which inherit the mask: the one
    # sigwait below then receives SIGTERM whichever thread the kernel picks.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    if args.model_alias:
        params.model_alias = {args.model_alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.n_ctx
    params.n_parallel = 1  # one answer at a time, the whole context for it (as llama_cpp.server)
    params.cpuparams.n_threads = args.n_threads
    params.cpuparams_batch.n_threads = args.n_threads
    params.cache_ram_mib = PROMPT_CACHE_MIB
    params.ui = False  # an API for citeline, not a chat page in a browser
    if args.prefix_dir:
        params.slot_save_path = str(Path(args.prefix_dir)) + os.sep  # llama.cpp appends the name as is
    if os.environ.get("API_KEY"):
        params.api_keys = [os.environ["API_KEY"]]
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # a missing or unreadable model, a port in use: llama.cpp logged why
        print(f"error: the llama.cpp server did not start ({exc})", file=sys.stderr, flush=True)
        return 1
    print(f"citeline: llama.cpp server listening on {server.listening_address}", flush=True)
    signal.sigwait(stop)
    # The library has no stop call; the process ends and the kernel frees the model and the port.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
