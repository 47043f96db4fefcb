"""Real ``bibtex`` and ``pdflatex`` over a bibliography citeline printed, for the BibTeX tests.

TeX Live is a system package (``apt-get install -y --no-install-recommends texlive-binaries
texlive-latex-base``). Where it is missing the tests that need it skip, except under CI, where a
missing TeX would hide exactly the failures these tests exist for.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from rag.records import Paper

# Papers whose entries exercise BibTeX's corners: the unit tests check the entries' text, the
# integration tests (tests/integration/test_bibtex_typeset.py) typeset the same entries for real.
TITLED = Paper(id="x1", abstract="a", label="Dataset Pruning", source="icml.jsonl", line=3,
               title="Dataset Pruning: Reducing Training Data by 50% & more",
               authors=("Shuo Yang", "Zeke Xie"), venue="ICML", year=2023,
               url="https://openreview.net/forum?id=4wZiAXD29TQ#top")  # fmt: skip
SEED = Paper(id="000-02", abstract="a", label="AdaSCALE", source="000_888317b1d60d9493.txt", line=5,
             venue="ICML", year=2026)  # fmt: skip
CASED = Paper(id="c", abstract="a", label="x", source="s", line=1, authors=("Xi Chen",), venue="ICML",
              year=2024, title="AquaLoRA meets KV-cache: $C^3$ Transformers for 3D")  # fmt: skip
SLASHED = Paper(id="s1", abstract="a", label="x", source="s", line=1, title="About diffusion models \\",
                authors=("Ann Lee",), year=2024)  # fmt: skip
ODD = Paper(id="o_1", abstract="a", label="snake_case ~home ^caret $5 #1", source="000_88.txt", line=31,
            authors=("A_B Smith",), venue="ICML_2026 & co", year=2026)  # fmt: skip
HOSTILE = [
    Paper(f"h{n}", "An abstract.", f"l{n}", "f.jsonl", n, title=title, authors=(f"Eve Macro{n}",),
          venue="ICML", year=2024)
    for n, title in enumerate([r"Using \input{/etc/hostname} and \undefinedmacro here",
                               r"Break out }} \end{document} {{",
                               r"A safe \textbf{bold} last entry"], start=1)
]  # fmt: skip

DOCUMENT = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{amsmath,amssymb}
\begin{document}
Cited: \cite{%s}.
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""


@dataclass
class Compiled:
    """What the real tools said: BibTeX's log and bibliography, and pdflatex's errors."""

    blg: str
    bbl: str
    latex_errors: list[str]
    pdf: bool

    @property
    def bibtex_warnings(self) -> list[str]:
        """BibTeX's ``Warning--`` lines (a missing author/key, a repeated entry, ...)."""
        return [line for line in self.blg.splitlines() if line.startswith("Warning--")]

    @property
    def bibtex_errors(self) -> list[str]:
        """BibTeX's error lines (a field it could not parse, a repeated entry)."""
        return [line for line in self.blg.splitlines() if "---line" in line]


def require_tex() -> None:
    """Skip without TeX Live (fail under CI, which must have it)."""
    if shutil.which("bibtex") and shutil.which("pdflatex"):
        return
    message = "needs bibtex and pdflatex (apt-get install texlive-binaries texlive-latex-base)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def keys_of(bib: str) -> list[str]:
    """The entry keys of a .bib text, in order."""
    return re.findall(r"^@\w+\{([^,\s]+),", bib, flags=re.M)


def compile_bibliography(bib: str, folder: Path) -> Compiled:
    """Cite every entry of ``bib`` from a small document; run pdflatex, bibtex, pdflatex twice."""
    require_tex()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    (folder / "doc.tex").write_text(DOCUMENT % ",".join(keys_of(bib)), encoding="utf-8")

    def latex() -> str:
        run = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
            cwd=folder, capture_output=True, text=True, errors="replace", timeout=120,
        )  # fmt: skip
        return run.stdout

    latex()
    subprocess.run(["bibtex", "doc"], cwd=folder, capture_output=True, timeout=120)
    latex()
    output = latex()
    errors = [line for line in output.splitlines() if line.startswith("!")]
    blg = (folder / "doc.blg").read_text(errors="replace") if (folder / "doc.blg").exists() else ""
    bbl = (folder / "doc.bbl").read_text(errors="replace") if (folder / "doc.bbl").exists() else ""
    return Compiled(blg, bbl, errors, (folder / "doc.pdf").exists())
