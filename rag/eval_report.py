"""Write and show eval results: results.json, a Markdown report, a PNG chart, and run diffs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rag.errors import CitelineError

ANSWER_METRICS = (
    "fact_coverage",
    "abstention_precision",
    "abstention_recall",
    "citation_precision",
    "citation_recall",
    "faithfulness",
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
    metrics = [k for k in results["retrieval"][0] if k != "mode"]
    return _transposed(results["retrieval"], "mode", metrics)


def answer_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    return _transposed(results["answers"], "llm", list(ANSWER_METRICS))


def markdown(results: dict) -> str:
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
    return "\n".join(parts)


def chart(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    metrics = [k for k in results["retrieval"][0] if k not in ("mode", "latency_median_s")]
    width = 0.8 / max(len(results["retrieval"]), 1)
    for n, row in enumerate(results["retrieval"]):
        left.bar(
            [i + n * width for i in range(len(metrics))],
            [row[k] or 0 for k in metrics],
            width,
            label=row["mode"],
        )
    left.set_xticks(
        [i + width * (len(results["retrieval"]) - 1) / 2 for i in range(len(metrics))], metrics, fontsize=8
    )
    left.set_ylim(0, 1)
    left.set_title("Retrieval by mode")
    left.legend()
    quality = ANSWER_METRICS[:6]
    width = 0.8 / max(len(results["answers"]), 1)
    for n, row in enumerate(results["answers"]):
        right.bar(
            [i + n * width for i in range(len(quality))],
            [row[k] or 0 for k in quality],
            width,
            label=row["llm"],
        )
    right.set_xticks([i + width * (len(results["answers"]) - 1) / 2 for i in range(len(quality))],
                     [q.replace("_", "\n") for q in quality], fontsize=7)  # fmt: skip
    right.set_ylim(0, 1)
    right.set_title(f"Answers by model (judge: {results['judge']})")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(results: dict, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "results.json", out_dir / "report.md", out_dir / "chart.png"]
    paths[0].write_text(json.dumps(results, ensure_ascii=False, indent=2))
    paths[1].write_text(markdown(results))
    chart(results, paths[2])
    return paths


def load(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CitelineError(f"{path}: not a citeline results.json ({exc.__class__.__name__})") from None


def compare(a: dict, b: dict) -> list[list[str]]:
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
                    rows.append([section, config, metric, _fmt(float(old)), _fmt(float(value)),
                                 f"{value - old:+.3f}"])  # fmt: skip
    return rows
