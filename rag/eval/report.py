"""Write and show eval results: results.json, a Markdown report, a PNG chart, and run diffs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rag.errors import BadInput

ANSWER_METRICS = (
    "refusal_on_answerable",
    "fact_coverage",
    "abstention_precision",
    "abstention_recall",
    "citation_precision",
    "citation_recall",
    "faithfulness",
    "gold_citation_precision",
    "gold_citation_recall",
    "listing_precision",
    "listing_recall",
    "quoted_fallbacks",
    "latency_median_s",
    "latency_p95_s",
    "tokens_mean",
)


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _transposed(configs: list[dict], key: str, metrics: list[str]) -> tuple[list[str], list[list[str]]]:
    """One row per metric, one column per configuration: readable however many metrics there are."""
    return ["metric", *(c[key] for c in configs)], [[m, *(_fmt(c.get(m)) for c in configs)] for m in metrics]


def retrieval_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    """The retrieval table: one row per metric, one column per mode."""
    metrics = [k for k in results["retrieval"][0] if k != "mode"]
    return _transposed(results["retrieval"], "mode", metrics)


def answer_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    """The answer table: one row per metric, one column per LLM."""
    return _transposed(results["answers"], "llm", list(ANSWER_METRICS))


TAG_METRICS = (
    "questions",
    "abstention_on_unanswerable",
    "refusal_on_answerable",
    "fact_coverage",
    "gold_citation_precision",
    "gold_citation_recall",
    "quoted_fallbacks",
)


def by_tag(rows: list[dict]) -> dict[str, dict[str, Any]]:
    """The answer figures per tag (``near-miss``, ``entity``, ...) and per kind of question.

    Computed from the per-question rows, so a results.json written before tags existed is read
    the same way: a tag's questions are few, and an overall mean hides them.
    """
    from rag.eval.metrics import mean

    groups: dict[str, list[dict]] = {}
    for row in rows:
        for tag in row.get("tags") or []:
            groups.setdefault(tag, []).append(row)
    for row in rows:
        groups.setdefault(f"kind: {row['kind']}", []).append(row)
    out = {}
    for name, members in groups.items():
        answerable = [r for r in members if r["kind"] != "unanswerable"]
        unanswerable = [r for r in members if r["kind"] == "unanswerable"]
        out[name] = {
            "questions": len(members),
            "abstention_on_unanswerable": mean([float(r["abstained"]) for r in unanswerable]),
            "refusal_on_answerable": mean([float(r["abstained"]) for r in answerable]),
            "fact_coverage": mean([r.get("fact_coverage") for r in members]),
            "gold_citation_precision": mean([r.get("gold_citation_precision") for r in answerable]),
            "gold_citation_recall": mean([r.get("gold_citation_recall") for r in answerable]),
            "quoted_fallbacks": sum(r.get("answer_mode") == "quoted" for r in members),
        }
    return out


def tag_rows(answers: dict) -> tuple[list[str], list[list[str]]]:
    """One row per tag or kind, one column per metric, for one LLM's answers."""
    table = by_tag(answers.get("questions", []))
    return ["tag", *TAG_METRICS], [[name, *(_fmt(f[m]) for m in TAG_METRICS)] for name, f in table.items()]


def markdown(results: dict) -> str:
    """report.md: what was run, and both tables."""

    def table(header: list[str], rows: list[list[str]]) -> str:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])

    kinds = ", ".join(f"{v} {k}" for k, v in results["kinds"].items() if v)
    parts = [
        "# citeline grounding evaluation",
        "",
        f"Eval set `{results['eval_set']}` ({results['questions']} questions: {kinds}); "
        f"collection `{results['collection']}`; top-k {results['top_k']}; "
        f"support judge **{results['judge']}**.",
        "",
        "## Retrieval",
        "",
        table(*retrieval_rows(results)),
        "",
        "## Answers",
        "",
        table(*answer_rows(results)),
        "",
    ]
    for answers in results["answers"]:
        parts += [f"## Answers by tag and kind: {answers['llm']}", "", table(*tag_rows(answers)), ""]
    return "\n".join(parts)


def _grouped_bars(axis, configs: list[dict], key: str, metrics: list[str], title: str) -> None:
    """One group of bars per metric, one bar per configuration, on a 0–1 scale."""
    width = 0.8 / max(len(configs), 1)
    for n, row in enumerate(configs):
        positions = [i + n * width for i in range(len(metrics))]
        axis.bar(positions, [row.get(m) or 0 for m in metrics], width, label=row[key])
    centers = [i + width * (len(configs) - 1) / 2 for i in range(len(metrics))]
    axis.set_xticks(centers, [m.replace("_", "\n") for m in metrics], fontsize=7)
    axis.set_ylim(0, 1)
    axis.set_title(title)
    axis.legend()


def chart(results: dict, path: Path) -> None:
    """chart.png: retrieval by mode and answer quality by model, on a 0-1 scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    retrieval = [k for k in results["retrieval"][0] if k not in ("mode", "latency_median_s")]
    _grouped_bars(left, results["retrieval"], "mode", retrieval, "Retrieval by mode")
    quality = [
        m for m in ANSWER_METRICS if m not in ("quoted_fallbacks", "tokens_mean") and "latency" not in m
    ]
    _grouped_bars(right, results["answers"], "llm", quality, f"Answers by model (judge: {results['judge']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_results(results: dict, out_dir: Path) -> list[Path]:
    """results.json, report.md and chart.png in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "results.json", out_dir / "report.md", out_dir / "chart.png"]
    paths[0].write_text(json.dumps(results, ensure_ascii=False, indent=2))
    paths[1].write_text(markdown(results))
    chart(results, paths[2])
    return paths


def signal_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    """Known-item search by mode, one row per metric."""
    by_mode = results["known_item"]["by_mode"]
    return _transposed(by_mode, "mode", [k for k in by_mode[0] if k != "mode"])


def write_signals(results: dict, out_dir: Path) -> list[Path]:
    """signals.json and signals.md in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    lists = results["topical_lists"]
    header, rows = signal_rows(results)
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]
    text = "\n".join(
        [
            "# External signals",
            "",
            f"Indexed {results['papers_indexed']} papers ({', '.join(results['files'])}).",
            "",
            f"## Known item: {results['known_item']['queries']} of {results['known_item']['of']} TLDRs",
            "",
            *lines,
            "",
            f"## Topical lists: {lists['questions']} of {lists['of']} author keywords (5-40 papers)",
            "",
            f"listing recall {_fmt(lists['recall'])}, precision {_fmt(lists['precision'])} (a lower bound:"
            " author keywords are incomplete)",
            "",
        ]
    )
    paths = [out_dir / "signals.json", out_dir / "signals.md"]
    paths[0].write_text(json.dumps(results, ensure_ascii=False, indent=2))
    paths[1].write_text(text)
    return paths


def load_results(path: Path) -> dict:
    """A results.json written by :func:`write_results`; anything else is one clear error."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadInput(f"{path}: not a citeline results.json ({exc.__class__.__name__})") from None


def compare_results(a: dict, b: dict) -> list[list[str]]:
    """Rows of (section, config, metric, A, B, B−A) for the metrics both runs have."""
    rows = []
    for section, key in (("retrieval", "mode"), ("answers", "llm")):
        left = {r[key]: r for r in a.get(section, [])}
        for config, right in ((r[key], r) for r in b.get(section, [])):
            if config not in left:
                continue
            for metric, value in right.items():
                old = left[config].get(metric)
                if (
                    isinstance(value, int | float)
                    and isinstance(old, int | float)
                    and not isinstance(value, bool)
                ):
                    rows.append(
                        [section, config, metric, _fmt(float(old)), _fmt(float(value)), f"{value - old:+.3f}"]
                    )
    return rows
