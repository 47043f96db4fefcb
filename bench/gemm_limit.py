"""What this machine can do for the embedding step: GEMM throughput and MiniLM-L6's FLOPs per chunk.

    python bench/gemm_limit.py      # needs `pip install onnx` (builds two one-node ONNX models)

Measures onnxruntime's fp32 MatMul and int8 MatMulInteger (uint8 x int8, what dynamic quantization
runs) on the shapes of MiniLM-L6's feed-forward layer (tokens x 384 x 1536), prints the CPU's
vector extensions (VNNI is what makes int8 GEMM fast), counts the FLOPs of one chunk through
MiniLM-L6 from the real chunk lengths, and reports the embedder's measured chunks/s as a share
of the fp32 and int8 GEMM limits. Writes bench/results/gemm_limit.json.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report

from rag.index.chunking import chunk_paper
from rag.index.corpus import parse_source
from rag.index.embeddings import MiniLMEmbedder
from rag.resources import bundled_corpus

ICML2024 = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "icml2024.jsonl.gz"
HIDDEN, FFN, LAYERS = 384, 1536, 6


def _session(kind: str, m: int):
    import onnxruntime as ort
    from onnx import TensorProto, helper

    if kind == "fp32":
        a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, HIDDEN])
        w = helper.make_tensor(
            "w", TensorProto.FLOAT, [HIDDEN, FFN], np.random.rand(HIDDEN * FFN).astype(np.float32)
        )
        node = helper.make_node("MatMul", ["a", "w"], ["y"])
        out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, FFN])
    else:
        a = helper.make_tensor_value_info("a", TensorProto.UINT8, [m, HIDDEN])
        values = np.random.randint(-127, 127, HIDDEN * FFN).astype(np.int8)
        w = helper.make_tensor("w", TensorProto.INT8, [HIDDEN, FFN], values.tobytes(), raw=True)
        node = helper.make_node("MatMulInteger", ["a", "w"], ["y"])
        out = helper.make_tensor_value_info("y", TensorProto.INT32, [m, FFN])
    graph = helper.make_graph([node], kind, [a], [out], initializer=[w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 0
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def gemm_gflops(kind: str, m: int = 1024, seconds: float = 3.0) -> float:
    """Sustained GFLOP/s (int8: GOP/s) of one tokens x 384 x 1536 product, all cores."""
    session = _session(kind, m)
    x = (np.random.rand(m, HIDDEN).astype(np.float32) if kind == "fp32"
         else np.random.randint(0, 255, (m, HIDDEN)).astype(np.uint8))  # fmt: skip
    session.run(None, {"a": x})
    runs, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        session.run(None, {"a": x})
        runs += 1
    return 2 * m * HIDDEN * FFN * runs / (time.perf_counter() - started) / 1e9


def chunk_flops(tokens: int) -> float:
    """FLOPs of one chunk of ``tokens`` through MiniLM-L6 (matrix products; the rest is small)."""
    dense = 2 * tokens * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN)  # Q, K, V, output; two FFN layers
    attention = 2 * 2 * tokens * tokens * HIDDEN  # QK^T and the weighted sum of V
    return LAYERS * (dense + attention)


def main() -> None:
    flags = set(Path("/proc/cpuinfo").read_text().split("flags", 2)[1].split("\n", 1)[0].split())
    vector = sorted(f for f in flags if f.startswith(("avx", "fma", "amx")) or "vnni" in f)
    source = [ICML2024] if ICML2024.exists() else bundled_corpus()
    papers = [p for path in source for p in parse_source(path).papers][:300]
    texts = [c.text for p in papers for c in chunk_paper(p)]
    embedder = MiniLMEmbedder()
    embedder._load()
    lengths = [len(e.ids) for e in embedder._tokenizer.encode_batch(texts)]
    flops = float(np.mean([chunk_flops(n) for n in lengths]))
    embedder.embed_documents(texts[:8])
    started = time.perf_counter()
    embedder.embed_documents(texts)
    rate = len(texts) / (time.perf_counter() - started)
    fp32, int8 = gemm_gflops("fp32"), gemm_gflops("int8")
    figures = {
        "cpu_vector_extensions": " ".join(vector),
        "vnni": any("vnni" in f for f in flags),
        "chunks": len(texts),
        "mean_tokens_per_chunk": round(float(np.mean(lengths)), 1),
        "gflop_per_chunk": round(flops / 1e9, 3),
        "fp32_gemm_gflops": round(fp32, 1),
        "int8_gemm_gops": round(int8, 1),
        "int8_over_fp32": round(int8 / fp32, 2),
        "embedder_chunks_per_s": round(rate, 1),
        "embedder_gflops": round(rate * flops / 1e9, 1),
        "limit_chunks_per_s_fp32": round(fp32 * 1e9 / flops, 1),
        "limit_chunks_per_s_int8": round(int8 * 1e9 / flops, 1),
        "share_of_fp32_limit": round(rate * flops / (fp32 * 1e9), 2),
        "share_of_int8_limit": round(rate * flops / (int8 * 1e9), 2),
    }
    report("gemm_limit", figures)


if __name__ == "__main__":
    main()
