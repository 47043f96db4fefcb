"""``citeline check`` end to end over the bundled corpus: a real index, real retrieval, the real CLI.

The draft is written here (paraphrases of two bundled abstracts, not questions of any eval split):
one claim correctly cited, one cited to the wrong paper, one with an altered figure.
"""

from __future__ import annotations

import json
import re

from .test_cli import at_once, run

DRAFT = """# Related work

Activation shaping is a common route to out-of-distribution detection.
AdaSCALE adapts the percentile threshold of activation scaling to each sample's estimated OODness [000-02].
Feature death in sparse autoencoders is caused by dimension-level activation outliers [000-02].
AdaSCALE beats OptFS by 14.94% in near-OOD and 25.00% in far-OOD average FPR@95 on ImageNet-1k [000-02].
"""


def test_check_flags_the_wrong_paper_and_the_altered_figure_and_exits_1(seed_settings, tmp_path):
    draft = tmp_path / "related.md"
    draft.write_text(DRAFT, encoding="utf-8")
    result = run(["check", str(draft), "--json"], seed_settings)
    assert result.returncode == 1, result.stderr
    claims = json.loads(result.stdout)["claims"]
    assert [(c["line"], c["verdict"]) for c in claims] == [
        (4, "supported"),
        (5, "not supported"),
        (6, "partly supported"),
    ]
    supported, wrong, altered = claims
    assert "percentile threshold" in supported["evidence"]["sentence"]
    assert supported["evidence"]["source"].endswith(".txt") and supported["evidence"]["line"] > 0
    assert DRAFT[supported["start"] : supported["end"]].startswith("AdaSCALE adapts")
    assert [s["id"] for s in wrong["suggestions"]][:1] == ["000-07"]  # the sparse-autoencoder paper
    assert altered["missing"] == ["25.00"]


def test_check_exits_0_when_every_claim_is_supported_and_reads_stdin(seed_settings):
    draft = DRAFT.splitlines()[3] + "\n"
    result = run(["check", "-"], seed_settings, stdin=draft)
    assert result.returncode == 0, result.stderr
    assert "Supported (1)" in result.stdout


def test_check_bad_input_is_one_error_line_and_exit_2(seed_settings, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title = {unclosed}\n", encoding="utf-8")
    draft = tmp_path / "d.tex"
    draft.write_text("A claim \\cite{a}.\n", encoding="utf-8")
    latin1 = tmp_path / "latin1.bib"
    latin1.write_bytes("@article{a, title = {Étude}}\n".encode("latin-1"))
    cases = [
        (["check", str(tmp_path / "missing.md")], "cannot read"),
        (["check", str(draft), "--bib", str(bib)], "refs.bib: line"),
        (["check", str(draft), "--bib", str(latin1)], "latin1.bib is not UTF-8 text (byte 21)"),
        (["check", "-"], "no citations found"),
    ]
    stdin = "No citation in this text.\n"
    results = at_once([lambda args=args: run(args, seed_settings, stdin=stdin) for args, _ in cases])
    for (args, message), result in zip(cases, results, strict=True):
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_format_md_returns_the_draft_with_each_claim_marked_inline_and_a_footnote(seed_settings, tmp_path):
    draft = tmp_path / "related.md"
    draft.write_text(DRAFT, encoding="utf-8")
    result = run(["check", str(draft), "--format", "md", "--llm", "none"], seed_settings)
    assert result.returncode == 1, result.stderr
    annotated = result.stdout
    assert annotated.startswith(DRAFT.split("\n", 3)[0])  # the draft itself, unchanged before its marks
    lines = annotated.splitlines()
    assert lines[3].endswith("**[✓ supported]**[^check-1]")
    assert lines[4].endswith("**[✗ not supported]**[^check-2]")
    assert lines[5].endswith("**[~ partly supported]**[^check-3]")
    notes = {line.split(":", 1)[0]: line for line in lines if line.startswith("[^check-")}
    assert "cite instead: 000-07" in notes["[^check-2]"] and "25.00" in notes["[^check-3]"]
    assert ".txt:" in notes["[^check-1]"]  # the evidence sentence with file:line


PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.returncode, done.stdout.count('"verdict"'), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def test_a_200_page_tex_with_thousands_of_citations_is_checked_in_bounded_memory(seed_settings, tmp_path):
    import os
    import subprocess
    import sys

    from rag.index.corpus import parse_source
    from rag.resources import bundled_corpus

    ids = [p.id for path in bundled_corpus() for p in parse_source(path, path.name).papers]
    filler = "We report the mean over five seeds and the standard deviation for each method and dataset. " * 2
    body = "".join(
        f"{filler}Earlier work studies this setting in depth~\\cite{{{ids[n % len(ids)]}}}. {filler}\n\n"
        for n in range(2200)
    )
    tex = tmp_path / "thesis.tex"
    tex.write_text(
        f"\\documentclass{{book}}\n\\begin{{document}}\n{body}\\end{{document}}\n", encoding="utf-8"
    )
    assert tex.stat().st_size > 900_000  # about 200 pages
    env = {**os.environ, "CITELINE_DATA_DIR": str(seed_settings.data_dir), "CITELINE_LLM": "none",
           "CITELINE_LOG": "false"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", PEAK, "citeline", "check", str(tex), "--json"],
                          capture_output=True, text=True, env=env, timeout=600)  # fmt: skip
    code, claims, peak_kb = (int(x) for x in done.stdout.split())
    assert code == 1 and claims == 2200
    assert peak_kb < 1024 * 1024, f"peak RSS {peak_kb >> 10} MB"  # a 24-claim draft takes ~370 MB


def test_a_tex_draft_citing_through_citelines_own_bibtex_resolves_every_key(seed_settings, tmp_path):
    # The README's two examples chained: `papers show --bibtex > refs.bib`, then `check --bib`.
    # A seed entry has no authors and only its label as title; its id is in the entry's note.
    bib = run(["papers", "show", "000-02", "000-07", "--bibtex"], seed_settings)
    assert bib.returncode == 0, bib.stderr
    (tmp_path / "refs.bib").write_text(bib.stdout, encoding="utf-8")
    keys = dict(re.findall(r"@\w+\{(\w+),[^@]*?citeline entry ([\w-]+)", bib.stdout))
    cite = {pid: key for key, pid in keys.items()}
    tex = tmp_path / "paper.tex"
    tex.write_text(
        "AdaSCALE adapts the percentile threshold of activation scaling to each sample "
        f"\\cite{{{cite['000-02']}}}.\nDead features in sparse autoencoders come from "
        f"dimension-level activation outliers \\citep{{{cite['000-07']}}}.\n",
        encoding="utf-8",
    )
    result = run(["check", str(tex), "--bib", str(tmp_path / "refs.bib"), "--json"], seed_settings)
    claims = json.loads(result.stdout)["claims"]
    assert [(c["papers"], c["unresolved"]) for c in claims] == [(["000-02"], []), (["000-07"], [])]


def test_a_method_swapped_in_a_claim_is_found_against_a_real_conferences_terms():
    """ICML 2024 (2,634 papers): "reinforcement learning" is in 12% of its papers, a term of the
    field all the same; a claim that puts "imitation learning" in its place is not what the A2PR
    paper says, while a claim setting its subject apart from imitation learning says nothing wrong."""
    import gzip

    import pytest

    from rag.answer.check import _read, swapped_term
    from rag.records import Paper
    from rag.retrieval.relevance import Phrases

    from ..conftest import ICML2024

    if not ICML2024.exists():
        pytest.skip("../shared/corpora is not beside this checkout")
    with gzip.open(ICML2024, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    papers = [
        Paper(id=r["id"], abstract=r["abstract"], label="", source=ICML2024.name, line=n, title=r["title"])
        for n, r in enumerate(records, start=1)
    ]
    counted = Phrases.from_papers(papers)
    a2pr = _read(next(p for p in papers if p.id == "FV3kY9FBW6"))

    def swapped(claim: str) -> str:
        return swapped_term(claim, a2pr, lambda: counted)

    reason = swapped(
        "A2PR regularizes the policy toward high-advantage actions in offline imitation learning."
    )
    assert reason.startswith(
        "the paper says reinforcement learning, the claim imitation learning: “In offline"
    )
    assert not swapped("Unlike imitation learning, A2PR regularizes offline RL policies toward good actions.")
    assert not swapped("A2PR outperforms imitation learning baselines.")
    assert not swapped(
        "A2PR regularizes the policy toward high-advantage actions in offline reinforcement learning."
    )
