"""The claim-checking benchmark of ``citeline check`` (issue #21), before → after in one run.

    python bench/check_claims.py                          # dev and test, --llm none, baseline 71d0006
    python bench/check_claims.py --llm none,local         # and with the embedded model
    python bench/check_claims.py --split dev --baseline HEAD~3 --data /tmp/check-data

The rows of ``eval/check-{dev,test}.jsonl`` (built by ``eval/build_check.py``) are turned into
drafts here: the rows of one ``draft`` become one file, each claim a sentence ending in its
citation, in its row's style (citeline's ``[003-02]``; ``\\cite{key}`` in a .tex with a .bib;
``(Surname et al., 2025)``; numbered ``[3]`` with a reference list), uncited claims as plain
sentences. Each draft is checked through the public API (``rag.Library(settings).check``) and each
row is matched to the claim record whose span holds its sentence.

Figures per split: precision and recall of the "not supported" verdicts (a row is flagged when its
claim is not supported, partly supported or unresolved; wrong-paper and altered rows are the
positives), the false-alarm rate on correct citations, detection per kind, the share of
wrong-paper rows whose right paper is among the suggestions, citations that resolved to no paper,
and time: per claim, and per draft of up to 30 claims (warm, in process; the first draft of a
run also pays for opening the index). A 30-claim draft is also timed as one cold ``citeline
check`` process. ``--memory`` adds peak RSS and time of ``citeline check`` on a generated ~1 MB
.tex (a 200-page paper) with one citation every few sentences. Outside the benchmark, each side
also judges the 1,465 authors' TL;DRs of ICLR 2017/2018 and CoRL 2022/2023 against their own
papers: a paraphrase its paper supports, so a contradiction found there is a false alarm
(:func:`tldr_alarms`).

Each side runs in its own process with ``PYTHONPATH`` at its checkout (the baseline is checked out
into a git worktree) running *this* file's ``--side`` mode, so both are measured by the same code;
both share one data dir, so the collections are embedded once. The COLM files are read from
``--corpora`` (``../shared/corpora``), never copied. Writes bench/results/check-claims.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "71d0006"  # the first slice of citeline check, as merged
COLM = ("colm2024.jsonl.gz", "colm2025.jsonl.gz")
FLAGGED = {"not supported", "partly supported", "unresolved"}
POSITIVE = {"wrong", "altered"}


def default_corpora() -> Path:
    """``../shared/corpora`` beside the checkout (or beside the folder of a git worktree)."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "corpora").is_dir():
            return base / "shared" / "corpora"
    return ROOT.parent / "shared" / "corpora"


def load_rows(split: str) -> list[dict[str, Any]]:
    path = ROOT / "eval" / f"check-{split}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- drafts ----------------------------------------------------------------------------------------


def _surname(paper: dict[str, Any]) -> str:
    authors = paper.get("authors") or []
    return authors[0].split()[-1] if authors else "Anonymous"


def _author_year(paper: dict[str, Any]) -> str:
    authors = paper.get("authors") or []
    if len(authors) == 2:
        return f"{authors[0].split()[-1]} and {authors[1].split()[-1]}, {paper['year']}"
    return f"{_surname(paper)}{' et al.' if len(authors) > 2 else ''}, {paper['year']}"


def _bib_key(paper: dict[str, Any]) -> str:
    word = next((w for w in re.findall(r"[A-Za-z]+", paper.get("title", "")) if len(w) > 3), "paper")
    return re.sub(r"[^a-z0-9]", "", f"{_surname(paper)}{paper['year']}{word}".lower())


def _braced(text: str) -> str:
    """A .bib field value: braces kept only when they balance."""
    depth = 0
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            break
    return text if depth == 0 else text.replace("{", "").replace("}", "")


def render(
    rows: list[dict[str, Any]], papers: dict[str, dict[str, Any]]
) -> tuple[str, str, str | None, list]:
    """One draft from its rows: (text, suffix, .bib text or None, [(row, start, end)])."""
    styles = {r["citation"] for r in rows} - {"none"}
    tex = "cite" in styles
    head = (
        "\\documentclass{article}\n\\begin{document}\n\\section{Related work}\n\n"
        if tex
        else "# Related work\n\n"
    )
    text, spans, numbers, bib = head, [], {}, {}
    for n, row in enumerate(rows):
        cited = papers.get(row["cited"]["id"]) if row["cited"] else None
        style = row["citation"]
        if style == "key":
            mark = f" [{row['cited']['id']}]"
        elif style == "cite":
            key = _bib_key(cited)
            bib[key] = cited
            mark = f"~\\cite{{{key}}}"
        elif style == "author-year":
            mark = f" ({_author_year(cited)})"
        elif style == "numbered":
            number = numbers.setdefault(row["cited"]["id"], len(numbers) + 1)
            mark = f" [{number}]"
        else:
            mark = ""
        claim = row["claim"].replace("%", "\\%") if tex else row["claim"]  # % starts a TeX comment
        start = len(text)
        text += f"{claim}{mark}."
        spans.append((row, start, len(text)))
        text += "\n\n" if n % 4 == 3 else " "
    if numbers:
        text += "\n\n## References\n\n"
        for pid, number in numbers.items():
            paper = papers[pid]
            authors = ", ".join(paper.get("authors") or [])
            text += (
                f'[{number}] {authors}. "{paper["title"]}". COLM {paper["year"]}. {paper.get("url") or ""}\n'
            )
    if tex:
        text += "\n\\end{document}\n"
    entries = None
    if bib:
        entries = "".join(
            f"@inproceedings{{{key},\n  title = {{{_braced(p['title'])}}},\n"
            f"  author = {{{_braced(' and '.join(p.get('authors') or []))}}},\n"
            f"  booktitle = {{COLM}},\n  year = {{{p['year']}}},\n  url = {{{p.get('url') or ''}}}\n}}\n\n"
            for key, p in bib.items()
        )
    return text, ".tex" if tex else ".md", entries, spans


def colm_papers(corpora: Path) -> dict[str, dict[str, Any]]:
    import gzip

    papers = {}
    for name in COLM:
        with gzip.open(corpora / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                papers[record["id"]] = record
    return papers


def big_tex(papers: list[str], target_bytes: int = 1_000_000) -> str:
    """A ~1 MB .tex (about 200 pages) whose paragraphs cite the bundled papers by own key."""
    filler = (
        "We follow the usual protocol of the field and report the mean over five seeds, with the "
        "standard deviation in parentheses, for every method and dataset in the tables below. "
    )
    parts = ["\\documentclass{article}\n\\begin{document}\n"]
    size, n = 0, 0
    while size < target_bytes:
        if n % 40 == 0:
            parts.append(f"\\section{{Part {n // 40 + 1}}}\n")
        pid = papers[n % len(papers)]
        piece = f"{filler}Prior work studies this setting in depth~\\cite{{{pid}}}. {filler}\n\n"
        parts.append(piece)
        size += len(piece)
        n += 1
    parts.append("\\end{document}\n")
    return "".join(parts)


# --- one side (runs with PYTHONPATH at the checkout under test) ----------------------------------


def _settings(llm: str, collection: str):
    import rag

    settings = rag.load_settings().replace(collection=collection)
    if hasattr(settings, "llm"):
        settings = settings.replace(llm=llm)
    return settings.replace(log=False) if hasattr(settings, "log") else settings


def side(splits: list[str], corpora: Path, llm: str, out_dir: Path) -> dict[str, Any]:
    """Check every draft of ``splits``; per-row outcomes and per-draft times."""
    import rag

    for collection in ("default", "check-colm"):
        settings = _settings("none", collection)
        if collection == "default":
            rag.ensure_index(settings)
        else:
            rag.ingest([corpora / name for name in COLM], settings)
    libraries = {c: rag.Library(_settings(llm, c)) for c in ("default", "check-colm")}
    warm = out_dir / "warm-up.md"
    warm.write_text("A warm-up claim about conformal prediction [000-03].\n", encoding="utf-8")
    libraries["default"].check(str(warm))  # open the index and load the embedder before timing
    libraries["check-colm"].retriever.search("warm-up", k=1)
    papers = colm_papers(corpora)
    outcomes, drafts = [], []
    for split in splits:
        rows = load_rows(split)
        for name in dict.fromkeys(r["draft"] for r in rows):
            members = [r for r in rows if r["draft"] == name]
            text, suffix, bib, spans = render(members, papers)
            path = out_dir / f"{name}{suffix}"
            path.write_text(text, encoding="utf-8")
            bib_path = None
            if bib:
                bib_path = out_dir / f"{name}.bib"
                bib_path.write_text(bib, encoding="utf-8")
            library = libraries[members[0]["collection"]]
            started = time.perf_counter()
            report = library.check(str(path), str(bib_path) if bib_path else None)
            seconds = time.perf_counter() - started
            records = report.to_dict()["claims"]
            drafts.append(
                {
                    "split": split,
                    "draft": name,
                    "claims": len(members),
                    "cited": sum(r["cited"] is not None for r in members),
                    "seconds": seconds,
                }
            )
            for row, start, end in spans:
                record = next((c for c in records if c["start"] < end and start < c["end"]), None)
                outcomes.append(_outcome(split, row, record))
    return {"outcomes": outcomes, "drafts": drafts}


TLDR = ("iclr2017.jsonl.gz", "iclr2018.jsonl.gz", "corl2022.jsonl.gz", "corl2023.jsonl.gz")


def tldr_alarms(corpora: Path) -> dict[str, Any]:
    """False alarms outside the benchmark: every paper's TL;DR, written by its authors, judged
    against that paper alone (as a claim citing it, the paper being the closest match). A TL;DR
    is a paraphrase its paper supports, so "turned around" (a contradiction found) is a false
    alarm; "flagged" adds the TL;DRs that name a figure or a name the abstract lacks or share too
    few words with it (some of those are honest: a TL;DR may say more than its abstract). IDF
    weights from the TL;DR's own conference. Through ``rag.answer.check.judge``, the per-paper
    judgement ``Library.check`` makes."""
    import collections
    import gzip

    from rag.answer.check import SUPPORTED, judge
    from rag.records import Paper
    from rag.retrieval import relevance
    from rag.retrieval.relevance import TermWeights, paper_terms
    from rag.settings import Settings
    from rag.text import lexical_terms

    phrases = getattr(relevance, "Phrases", None)  # a baseline before the swapped-term test has none

    settings = Settings()
    total = turned = flagged = 0
    for name in TLDR:
        with gzip.open(corpora / name, "rt", encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines]
        papers = [
            Paper(
                id=r["id"],
                abstract=r.get("abstract") or "",
                label="",
                source=name,
                line=i + 1,
                title=r.get("title") or "",
            )
            for i, r in enumerate(records)
        ]
        df: collections.Counter[str] = collections.Counter()
        for paper in papers:
            df.update(paper_terms(paper))
        counted = phrases.from_papers(papers) if phrases else None
        for record, paper in zip(records, papers, strict=True):
            claim = (record.get("tldr") or "").strip()
            if not claim or not paper.abstract:
                continue
            weights = TermWeights.from_counts(lexical_terms(claim), df, len(papers), settings.retrieval)
            extra = {"phrases": lambda counted=counted: counted} if counted is not None else {}
            judged = judge(claim, paper, weights, settings.answer, closest=True, **extra)
            total += 1
            turned += bool(judged.contradiction)
            flagged += judged.verdict != SUPPORTED
    return {"tldrs": total, "turned_around": _share(turned, total), "flagged": _share(flagged, total)}


def _outcome(split: str, row: dict[str, Any], record: dict[str, Any] | None) -> dict[str, Any]:
    verdict = record["verdict"] if record else "none"
    suggested = [s["id"] for s in (record or {}).get("suggestions", [])]
    return {
        "split": split,
        "id": row["id"],
        "kind": row["kind"],
        "alteration": row.get("alteration"),
        "collection": row["collection"],
        "citation": row["citation"],
        "verdict": verdict,
        "flagged": verdict in FLAGGED,
        "unresolved": bool(record and record.get("unresolved")),
        "suggested_gold": bool(row["suggestion"]) and row["suggestion"][0]["id"] in suggested,
        "suggestions": len(suggested),
        "model": (record or {}).get("model"),
        "reason": (record or {}).get("reason", ""),
    }


_PEAK = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr + "\\n" + json.dumps({"exit": done.returncode,
                 "peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def _cli(path: Path) -> dict[str, Any]:
    """One cold ``citeline check PATH --json`` process: wall time, peak RSS, exit, claims."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "cli", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        cwd=os.environ.get("PYTHONPATH", ROOT),
    )
    seconds = time.perf_counter() - started
    status = json.loads(done.stderr.strip().splitlines()[-1])
    claims = len(json.loads(done.stdout)["claims"]) if done.stdout.strip().startswith("{") else None
    errors = done.stderr.strip().splitlines()[-2:-1] if claims is None else []
    return {
        "file": path.name,
        "bytes": path.stat().st_size,
        "claims": claims,
        "seconds": seconds,
        "peak_rss_mb": status["peak_kb"] / 1024,
        "exit": status["exit"],
        "error": errors,
    }


def memory_run(out_dir: Path) -> dict[str, Any]:
    """Peak RSS and wall time of one ``citeline check`` process on a generated ~1 MB .tex."""
    from rag.index.corpus import parse_source
    from rag.resources import bundled_corpus

    ids = [p.id for path in bundled_corpus() for p in parse_source(path, path.name).papers]
    path = out_dir / "long-paper.tex"
    path.write_text(big_tex(ids), encoding="utf-8")
    return _cli(path)


def cold_run(out_dir: Path, draft: str) -> dict[str, Any]:
    """One cold ``citeline check`` process on the draft ``draft`` (written by :func:`side`)."""
    return {"draft": draft, **_cli(next(out_dir.glob(f"{draft}.*")))}


# --- scoring ---------------------------------------------------------------------------------------


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def score(outcomes: list[dict[str, Any]], drafts: list[dict[str, Any]]) -> dict[str, Any]:
    """The split's figures from its rows' outcomes and its drafts' times."""
    flagged = [o for o in outcomes if o["flagged"]]
    positives = [o for o in outcomes if o["kind"] in POSITIVE]
    correct = [o for o in outcomes if o["kind"] == "correct"]
    wrong = [o for o in outcomes if o["kind"] == "wrong"]
    uncited = [o for o in outcomes if o["kind"] == "uncited"]
    true_pos = sum(o["flagged"] for o in positives)
    detected = {
        key: _share(sum(o["flagged"] for o in group), len(group))
        for key, group in {
            "wrong": wrong,
            **{
                f"altered-{a}": [o for o in positives if o["alteration"] == a]
                for a in ("number", "method", "direction")
            },
        }.items()
    }
    cited_claims = sum(d["cited"] for d in drafts)
    seconds = sum(d["seconds"] for d in drafts)
    full = [d for d in drafts if d["claims"] >= 25]
    return {
        "rows": len(outcomes),
        "precision": _share(sum(o["kind"] in POSITIVE for o in flagged), len(flagged)),
        "recall": _share(true_pos, len(positives)),
        "false_alarms": _share(sum(o["flagged"] for o in correct), len(correct)),
        "detected": detected,
        "suggestion_accuracy": _share(sum(o["suggested_gold"] for o in wrong), len(wrong)),
        "uncited_flagged": _share(sum(o["flagged"] for o in uncited), len(uncited)),
        "uncited_suggested": _share(sum(o["suggested_gold"] for o in uncited), len(uncited)),
        "unresolved": sum(o["unresolved"] for o in outcomes),
        "seconds_per_claim": seconds / cited_claims if cited_claims else None,
        "seconds_30_claim_draft": max((d["seconds"] / d["claims"] * 30 for d in full), default=None),
        "drafts": drafts,
    }


# --- orchestration ---------------------------------------------------------------------------------


def measure(checkout: Path, splits: list[str], llm: str, data: Path, corpora: Path, memory: bool) -> dict:
    """One side's outcomes, with ``rag`` imported from ``checkout``."""
    env = {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "CITELINE_DATA_DIR": str(data),
        "CITELINE_LOG": "false",
        "CITELINE_LLM": llm,
    }
    with tempfile.TemporaryDirectory(prefix="check-drafts-") as tmp:
        args = [
            sys.executable,
            __file__,
            "--side",
            "--split",
            ",".join(splits),
            "--llm",
            llm,
            "--corpora",
            str(corpora),
            "--drafts",
            tmp,
        ] + (["--memory"] if memory else [])
        done = subprocess.run(args, env=env, capture_output=True, text=True, cwd=checkout)
        if done.returncode:
            raise SystemExit(f"{checkout}: the benchmark failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def _pct(value: float | None) -> str:
    return "  n/a" if value is None else f"{100 * value:5.1f}%"


def table(name: str, s: dict[str, Any]) -> str:
    d = s["detected"]
    per_draft = f"{s['seconds_30_claim_draft']:.2f}s" if s["seconds_30_claim_draft"] is not None else "n/a"
    return (
        f"  {name:<14} precision {_pct(s['precision'])}  recall {_pct(s['recall'])}  false alarms "
        f"{_pct(s['false_alarms'])}  suggestion {_pct(s['suggestion_accuracy'])}  "
        f"(wrong {_pct(d['wrong'])}, number {_pct(d['altered-number'])}, method {_pct(d['altered-method'])}, "
        f"direction {_pct(d['altered-direction'])}; uncited flagged {_pct(s['uncited_flagged'])}, "
        f"suggested {_pct(s['uncited_suggested'])}; unresolved {s['unresolved']})  "
        f"{1000 * s['seconds_per_claim']:.0f} ms/claim, 30-claim draft {per_draft}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev,test", help="dev, test or dev,test")
    parser.add_argument("--llm", default="none", help="none, local or none,local (the current code only)")
    parser.add_argument("--baseline", default=BASELINE, help="a commit, or 'none' to skip it")
    parser.add_argument(
        "--baseline-dir", type=Path, help="where to check the baseline out (default: a temp dir)"
    )
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "results" / "check-data")
    parser.add_argument("--corpora", type=Path, default=default_corpora())
    parser.add_argument("--memory", action="store_true", help="also a ~1 MB .tex: peak RSS and time")
    parser.add_argument("--side", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--drafts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    splits = args.split.split(",")
    if args.side:
        result = side(splits, args.corpora, args.llm, args.drafts)
        full = next((d["draft"] for d in result["drafts"] if d["claims"] >= 25), None)
        if full:
            result["cold"] = cold_run(args.drafts, full)
        if args.memory:
            result["memory"] = memory_run(args.drafts)
        result["tldr"] = tldr_alarms(args.corpora)
        print(json.dumps(result))
        return 0
    args.data.mkdir(parents=True, exist_ok=True)
    sides: dict[str, dict] = {}
    if args.baseline != "none":
        # Kept between runs, so named by commit: a worktree named "HEAD" measured whatever HEAD
        # was when it was made, however many commits ago.
        commit = subprocess.run(
            ["git", "rev-parse", "--verify", f"{args.baseline}^{{commit}}"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        base = args.baseline_dir or Path(tempfile.gettempdir()) / f"citeline-check-baseline-{commit[:12]}"
        if not base.exists():
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(base), commit],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
        sides[f"before ({args.baseline})"] = measure(
            base, splits, "none", args.data, args.corpora, args.memory
        )
    for llm in args.llm.split(","):
        sides[f"after, llm {llm}"] = measure(ROOT, splits, llm, args.data, args.corpora, args.memory)
        if llm == "local":  # the embedded model's resident server: stop it rather than wait for idle
            env = {**os.environ, "PYTHONPATH": str(ROOT), "CITELINE_DATA_DIR": str(args.data)}
            subprocess.run(
                [sys.executable, "-m", "cli", "llm", "stop"], env=env, cwd=ROOT, capture_output=True
            )
    report: dict[str, Any] = {
        "splits": {},
        "cold": {},
        "memory": {},
        "tldr": {},
        "cores": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    for split in splits:
        print(f"{split}:")
        for name, result in sides.items():
            outcomes = [o for o in result["outcomes"] if o["split"] == split]
            drafts = [d for d in result["drafts"] if d["split"] == split]
            figures = score(outcomes, drafts)
            report["splits"].setdefault(split, {})[name] = {**figures, "outcomes": outcomes}
            print(table(name, figures))
    for name, result in sides.items():
        report["cold"][name] = result.get("cold")
        report["memory"][name] = result.get("memory")
        report["tldr"][name] = tldr = result.get("tldr")
        if tldr:
            print(
                f"  {name}: authors' TL;DRs against their own papers ({tldr['tldrs']}): turned around "
                f"{_pct(tldr['turned_around'])}, flagged {_pct(tldr['flagged'])} (outside the benchmark)"
            )
        cold = result.get("cold")
        if cold:
            print(
                f"  {name}: cold `citeline check` of {cold['draft']} ({cold['claims']} claims): "
                f"{cold['seconds']:.1f}s, peak RSS {cold['peak_rss_mb']:.0f} MB (exit {cold['exit']})"
            )
        mem = result.get("memory")
        if mem:
            print(
                f"  {name}: ~1 MB .tex ({mem['bytes'] / 1e6:.2f} MB, {mem['claims']} claims): "
                f"{mem['seconds']:.1f}s, peak RSS {mem['peak_rss_mb']:.0f} MB {mem['error'] or ''}"
            )
    print(f"load average {report['load_average'][0]:.1f} on {report['cores']} cores (the machine is shared)")
    out = ROOT / "bench" / "results" / "check-claims.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
