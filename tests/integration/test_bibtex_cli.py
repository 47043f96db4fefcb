"""A .bib built from ``ask``, ``summarize`` and ``papers show`` compiles with real bibtex + pdflatex.

Over the bundled corpus and a slice of a real conference file (ICML 2024: every paper whose title
has math or a macro, and the first 80), as a writer would collect it: one key per paper in every
command, each answer citation mapped to its key, and a document citing every entry that builds
with no error and no warning.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest

from tests.latex import compile_bibliography, keys_of, require_tex

from ..conftest import ICML2024, copy_index
from .test_cli import run, run_each

ENTRY = re.compile(r"^@\w+\{([^,\s]+),\n.*?\n\}$", re.M | re.S)


def _entries(text: str) -> dict[str, str]:
    """Key → entry text of every BibTeX entry in ``text`` (a .bib, or Markdown holding one)."""
    return {m.group(1): m.group(0) for m in ENTRY.finditer(text)}


@pytest.fixture
def icml_slice(tmp_path) -> tuple[object, list[dict]]:
    """The seed index copied, plus collection ``icml2024`` from a slice of the real file."""
    if not ICML2024.exists():
        pytest.skip("../shared/corpora is not beside this checkout")
    with gzip.open(ICML2024, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    chosen = [r for r in records if any(c in r.get("title", "") for c in "$\\")] + records[:80]
    chosen = list({r["id"]: r for r in chosen}.values())
    path = tmp_path / "icml2024-slice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    return path, chosen


def test_a_bib_from_ask_summarize_and_papers_show_compiles_with_one_key_per_paper(
    seed_settings, icml_slice, tmp_path
):
    require_tex()
    slice_path, records = icml_slice
    settings = copy_index(seed_settings, tmp_path / "data", log=True)
    assert run(["ingest", str(slice_path), "-c", "icml2024"], settings).returncode == 0

    collected: list[tuple[str, str]] = []  # (command, text holding entries)
    cases = [
        ("default", "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?", "watermarking"),
        ("icml2024", "How is reinforcement learning used for robot control?", "language models"),
    ]
    commands = []  # every command of both collections at once: none depends on another's output
    for collection, question, topic in cases:
        commands += [
            ["ask", question, "-c", collection, "--cite", "bibtex", "--json", "--no-log"],
            ["ask", question, "-c", collection, "--cite", "bibtex", "--no-log"],
            ["summarize", topic, "-c", collection, "--cite", "bibtex", "--max-papers", "12", "--no-log"],
        ]
    results = iter(run_each(commands, settings))
    answers = []
    for collection, question, _ in cases:
        asked, printed, summarized = next(results), next(results), next(results)
        assert asked.returncode == 0, asked.stderr
        answer = json.loads(asked.stdout)
        assert answer["citations"], question
        answers.append(answer)
        collected.append((f"ask --json {collection}", answer["bibtex"]))
        plain = printed.stdout
        for citation in answer["citations"]:  # the printed answer maps [key] to the BibTeX key
            assert f"% [{citation['key']}] -> \\cite{{{citation['bibtex_key']}}}" in plain
        collected.append((f"ask {collection}", plain))
        summary_md = tmp_path / f"{collection}.md"
        assert summarized.returncode == 0, summarized.stderr
        assert summarized.stdout.startswith("# ") and "```bibtex\n" in summarized.stdout  # real Markdown
        summary_md.write_text(summarized.stdout)
        collected.append((f"summarize {collection}", summarized.stdout))
    shown_ids = {c["id"]: "default" for c in answers[0]["citations"]}
    shown_ids |= {r["id"]: "icml2024" for r in records if "$" in r.get("title", "") or "\\" in r["title"]}
    shown_ids |= {c["id"]: "icml2024" for c in answers[1]["citations"]}
    shown: dict[str, str] = {}
    asked: dict[str, list[str]] = {}  # collection -> the ids to show, one `papers show` each
    for paper_id, collection in shown_ids.items():
        asked.setdefault(collection, []).append(paper_id)
    commands = [["papers", "show", *ids, "--bibtex", "-c", collection] for collection, ids in asked.items()]
    commands.append(["papers", "show", *asked["icml2024"][:1], "--bibtex", "-c", "icml2024"])  # one alone
    results = run_each(commands, settings)
    for ids, result in zip([*asked.values(), asked["icml2024"][:1]], results, strict=True):
        assert result.returncode == 0, result.stderr
        keys = keys_of(result.stdout)
        assert len(keys) == len(ids)
        for paper_id, key in zip(ids, keys, strict=True):
            assert shown.setdefault(paper_id, key) == key, paper_id  # alone or among others
        collected.append((f"papers show {' '.join(ids)}", result.stdout))

    for answer in answers:  # the same key for the same paper, whichever command printed it
        for citation in answer["citations"]:
            assert citation["bibtex_key"] == shown[citation["id"]], citation["id"]
    bib: dict[str, str] = {}
    for command, text in collected:
        for key, entry in _entries(text).items():
            assert bib.setdefault(key, entry) == entry, (command, key)  # one key, one entry
    assert len(bib) == len(set(bib.values())) > 20

    compiled = compile_bibliography("\n\n".join(bib.values()) + "\n", tmp_path / "tex")
    assert compiled.pdf and compiled.latex_errors == [], compiled.latex_errors
    assert compiled.bibtex_errors == [] and compiled.bibtex_warnings == [], compiled.blg
    assert compiled.bbl.count("\\bibitem{") == len(bib)
