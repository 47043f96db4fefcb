"""Summaries: topic selection recall/precision, citation validity, the context budget."""

from __future__ import annotations

import json
import re

import pytest

from rag.answer.pipeline import AnswerChain
from rag.answer.summarize import Summarizer, select_papers
from rag.index.corpus import parse_source
from rag.index.tokens import count_tokens
from rag.llm.client import LLMHandle
from rag.records import Hit
from rag.retrieval.topics import TopicSelection

from ..conftest import ICML2024
from ..fakes import ScriptedChatModel
from .test_cli import run


def unbudgeted(settings):
    """Without the time budget, as a summary with a model was written before it (and still is with
    `summary_seconds` 0): every paper condensed, every theme named, the lead from the notes."""
    return settings.replace(summary_seconds=0)


TOPICS = {
    "watermarking": {"003-09", "000-15", "000-14", "004-01"},
    "differential privacy": {"000-05", "004-17"},
    "sparse autoencoders": {"000-07", "004-09", "003-14"},
    "multi-armed bandits": {"003-19", "004-05"},
}


@pytest.fixture(scope="module")
def no_llm_chain(seed_settings, seed_retriever):
    return AnswerChain(seed_settings, seed_retriever, LLMHandle("none", None, "none"))


@pytest.mark.parametrize(("topic", "gold"), TOPICS.items())
def test_selection_covers_exactly_the_papers_on_the_topic(no_llm_chain, topic, gold):
    assert {h.paper.id for h in select_papers(no_llm_chain.retriever, topic, 30)} == gold


def test_broad_topic_covers_more_than_a_fixed_top_k(no_llm_chain):
    assert (
        len(select_papers(no_llm_chain.retriever, "reinforcement learning", 30)) > no_llm_chain.settings.top_k
    )


def test_no_llm_digest_cites_every_selected_paper_with_verbatim_key_sentences(no_llm_chain):
    summary = Summarizer(no_llm_chain.settings, no_llm_chain.retriever, no_llm_chain.llm).summarize(
        "watermarking"
    )
    assert {n.paper.id for n in summary.papers} == TOPICS["watermarking"]
    markdown = summary.to_markdown()
    for note in summary.papers:
        assert note.note in note.paper.abstract
        assert f"[{note.key}] {note.paper.display} ({note.paper.source}:{note.paper.line})" in markdown
    assert not summary.invalid_keys


@pytest.fixture(autouse=True)
def _no_term_call(request, monkeypatch):
    """These tests script the model's notes and lead; the subfield-terms call (cached in the shared
    seed data dir, so made by whichever test runs first) would take a scripted reply out of turn.
    It has a test of its own below."""
    if "term_call" not in request.node.name:
        monkeypatch.setattr(
            "rag.answer.summarize.subfield_terms", lambda llm, topic, settings, strict=False: []
        )


def test_a_summary_asks_the_model_once_for_the_term_call_then_reads_its_cache(
    seed_settings, seed_retriever, tmp_path, monkeypatch
):
    monkeypatch.setattr(seed_retriever, "uses_expansions", lambda: True)  # as over a conference
    replies = ["private training\nmatrix factorization", "Note one.", "Note two.", "Lead [000-05][004-17]."]
    model = ScriptedChatModel(replies=replies * 2, prompts=[])
    settings = unbudgeted(seed_settings).replace(
        data_dir=tmp_path
    )  # the terms' cache only; the index is built
    chain = AnswerChain(settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    Summarizer(settings, chain.retriever, chain.llm).summarize("differential privacy")
    asked = [p for p in model.prompts if 'Terms for "differential privacy"' in p[0].content]
    assert len(asked) == 1 and (tmp_path / "topic-terms.json").is_file()
    Summarizer(settings, chain.retriever, chain.llm).summarize("differential privacy")
    assert len([p for p in model.prompts if 'Terms for "differential privacy"' in p[0].content]) == 1


def test_lead_citations_are_validated_and_invented_keys_removed(seed_settings, seed_retriever):
    notes = [
        "The first DP algorithm whose DP guarantees can be verified cheaper than training.",
        "DPIMF is a differentially private implicit matrix factorization framework for recommendation.",
    ]
    replies = [*notes, "Both study private training [000-05][004-17] and more [999-99]."]
    model = ScriptedChatModel(replies=replies, prompts=[])
    chain = AnswerChain(unbudgeted(seed_settings), seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("differential privacy")
    assert summary.lead == "Both study private training [000-05][004-17] and more."
    assert summary.invalid_keys == ["999-99"]
    assert [n.note for n in summary.papers] == notes


def test_every_prompt_fits_the_context_budget_on_a_large_topic(seed_settings, seed_retriever, monkeypatch):
    if not ICML2024.exists():
        pytest.skip("../shared/corpora is not beside this checkout")
    papers = parse_source(ICML2024).papers
    on_topic = [p for p in papers if "language model" in p.abstract]
    hits = [Hit(p, 1.0 - i / 1000, similarity=0.6) for i, p in enumerate(on_topic)]
    assert len(hits) > 120
    settings = unbudgeted(seed_settings).replace(context_tokens=2048, llm_max_tokens=256)
    replies = [f"Paper {i} contributes a method with a long result. " * 3 for i in range(400)]
    model = ScriptedChatModel(replies=replies, prompts=[])
    chain = AnswerChain(settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    monkeypatch.setattr(
        chain.retriever,
        "select_topic",
        lambda topic, venue=None, year=None, expansions=(): TopicSelection(hits),
    )
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize(
        "language models", max_papers=120
    )
    assert len(summary.papers) == 120 and summary.found == len(hits)  # the rest are named, not covered
    assert f"## {len(hits) - 120} more papers on this topic" in summary.to_markdown()
    budget = settings.context_tokens - settings.llm_max_tokens
    sizes = [count_tokens(m.content) for prompt in model.prompts for m in prompt]
    assert len(sizes) > 120 and max(sizes) <= budget


def test_summarize_command_writes_markdown_and_json(seed_settings, tmp_path):
    out = tmp_path / "dp.md"
    result = run(["summarize", "differential privacy", "--out", str(out)], seed_settings)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "[000-05]" in text and "[004-17]" in text and "## Papers covered" in text
    data = json.loads(run(["summarize", "watermarking", "--format", "json"], seed_settings).stdout)
    assert {c["id"] for c in data["citations"]} == TOPICS["watermarking"]


def test_a_summary_under_a_venue_no_paper_records_says_why_as_ask_does(seed_settings):
    done = run(["summarize", "watermarking", "--venue", "NeurIPS", "--no-log"], seed_settings)
    reason = "records the venue 'NeurIPS' (its papers record: ICML)"
    assert done.returncode == 0 and reason in done.stderr
    # The document says so too (--out keeps no warning), not "No indexed paper is on watermarking."
    assert (
        f"No paper in collection 'default' {reason}." in done.stdout
        and "is on watermarking" not in done.stdout
    )


def test_chat_summarize_command(seed_settings):
    result = run(["chat"], seed_settings, stdin="/summarize differential privacy\n/exit\n")
    assert result.returncode == 0 and "000-05" in result.stdout and "004-17" in result.stdout


def test_an_uncited_lead_from_the_model_is_replaced_by_the_cited_listing(seed_settings, seed_retriever):
    model = ScriptedChatModel(replies=["Note one.", "Note two.", "Both papers study privacy."], prompts=[])
    chain = AnswerChain(unbudgeted(seed_settings), seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("differential privacy")
    assert "[000-05]" in summary.lead and "[004-17]" in summary.lead


def test_a_paper_note_with_an_invented_figure_is_replaced_by_the_papers_own_sentence(
    seed_settings, seed_retriever
):
    replies = [
        "DP-SCO verification runs 1000x faster than training.",
        "DPIMF protects recommendation.",
        "Lead [000-05].",
    ]
    model = ScriptedChatModel(replies=replies, prompts=[])
    chain = AnswerChain(unbudgeted(seed_settings), seed_retriever, LLMHandle("openai", model, "scripted"))
    notes = {
        n.paper.id: n.note
        for n in Summarizer(chain.settings, chain.retriever, chain.llm)
        .summarize("differential privacy")
        .papers
    }
    assert "1000x" not in notes["000-05"] and notes["000-05"] in seed_retriever.paper("000-05").abstract


def test_a_lead_with_one_uncited_sentence_is_replaced_by_the_cited_listing(seed_settings, seed_retriever):
    notes = [
        "The first DP algorithm whose DP guarantees can be verified cheaper than training.",
        "DPIMF is a differentially private implicit matrix factorization framework for recommendation.",
    ]
    lead = "Both papers study privacy [000-05][004-17]. They differ in their focus."
    model = ScriptedChatModel(replies=[*notes, lead], prompts=[])
    chain = AnswerChain(unbudgeted(seed_settings), seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("differential privacy")
    assert summary.lead.startswith("2 papers on differential privacy") and "They differ" not in summary.lead


class _Clock:
    """A clock that only moves when the scripted model answers: each call takes ``per_call`` s."""

    def __init__(self, per_call: float) -> None:
        self.now, self.per_call = 0.0, per_call

    def perf_counter(self) -> float:
        return self.now


def _timed_model(replies: list[str], clock: _Clock) -> ScriptedChatModel:
    class Timed(ScriptedChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kw):
            clock.now += clock.per_call
            return super()._generate(messages, stop, run_manager, **kw)

    return Timed(replies=replies, prompts=[])


def test_within_its_time_budget_a_summary_cites_one_model_sentence_per_theme_and_condenses_the_best_papers(
    seed_settings, seed_retriever, monkeypatch
):
    clock = _Clock(per_call=1.0)
    monkeypatch.setattr("rag.answer.summarize.time", clock)
    notes = [
        "The first DP algorithm whose DP guarantees can be verified cheaper than training.",
        "DPIMF is a differentially private implicit matrix factorization framework for recommendation.",
    ]
    group = "These papers make training and recommendation differentially private."
    model = _timed_model([group, *notes], clock)
    chain = AnswerChain(seed_settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("differential privacy")
    keys = "".join(f"[{n.key}]" for n in summary.themes[0].notes)
    assert summary.lead.startswith("2 papers on differential privacy fall into one theme.")
    assert (
        f"{summary.themes[0].name}: {group.rstrip('.')} {keys}." in summary.lead and not summary.invalid_keys
    )
    assert sorted(n.note for n in summary.papers) == sorted(notes) and all(n.written for n in summary.papers)
    assert "titles" in model.prompts[0][-1].content.lower()  # the theme's sentence is written from its titles
    assert "key sentences" not in summary.to_markdown()


def test_when_the_budget_runs_out_the_other_papers_keep_their_own_key_sentences(
    seed_settings, seed_retriever, monkeypatch
):
    clock = _Clock(per_call=10.0)
    monkeypatch.setattr("rag.answer.summarize.time", clock)
    monkeypatch.setattr("rag.answer.summarize._READ_SECONDS", 0.0)  # the first guesses: free calls
    monkeypatch.setattr("rag.answer.summarize._WRITE_SECONDS", 0.0)
    note = "The first DP algorithm whose DP guarantees can be verified cheaper than training."
    replies = ["These papers make training and recommendation private.", note]
    model = _timed_model(replies, clock)
    settings = seed_settings.replace(summary_seconds=25)  # the theme's sentence and one note: 20 s
    chain = AnswerChain(settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(settings, chain.retriever, chain.llm).summarize("differential privacy")
    best, other = sorted(summary.papers, key=lambda n: -n.similarity)
    assert best.paper.id == "000-05" and best.written and best.note == note
    assert not other.written and other.note in other.paper.abstract  # its own key sentence
    assert len(model.prompts) == 2 and "the model's notes on 1" in summary.to_markdown()


def test_a_theme_sentence_naming_what_its_papers_do_not_is_replaced_by_the_themes_name(
    seed_settings, seed_retriever, monkeypatch
):
    clock = _Clock(per_call=1.0)
    monkeypatch.setattr("rag.answer.summarize.time", clock)
    replies = ["These papers apply GPT-7 to private training.", "Note one.", "Note two."]
    chain = AnswerChain(
        seed_settings, seed_retriever, LLMHandle("openai", _timed_model(replies, clock), "scripted")
    )
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("differential privacy")
    theme = summary.themes[0]
    assert "GPT-7" not in summary.lead
    assert f"{theme.name}: {''.join(f'[{n.key}]' for n in theme.notes)}." in summary.lead


def test_a_theme_sentence_is_cited_only_to_the_papers_that_write_its_words(seed_settings, seed_retriever):
    from rag.answer.summary import PaperNote, Theme
    from rag.records import Paper

    papers = [
        Paper("p1", "We make training differentially private with verifiable guarantees.", "a", "s.txt", 1),
        Paper("p2", "A private recommender built on implicit matrix factorization.", "b", "s.txt", 2),
        Paper("p3", "Differentially private training of recommenders at scale.", "c", "s.txt", 3),
    ]
    theme = Theme("Private training", [PaperNote(p.id, p, p.abstract, 0.5) for p in papers])
    sentence = "These papers make recommenders private with matrix factorization and verifiable guarantees."
    model = ScriptedChatModel(replies=[sentence, sentence], prompts=[])
    summarizer = Summarizer(seed_settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    said, about = summarizer.group_sentence("differential privacy", theme)
    assert said == sentence and [n.key for n in about] == ["p1", "p2", "p3"]
    # Only one paper writes it: no sentence, rather than one cited to papers that do not say it.
    others = [Paper("p4", "Auditing privacy of language models.", "d", "s.txt", 4)]
    others.append(Paper("p5", "Membership inference on images.", "e", "s.txt", 5))
    theme.notes[1:] = [PaperNote(p.id, p, "", 0.3) for p in others]
    model.replies.append("These papers make training private with verifiable guarantees.")
    assert summarizer.group_sentence("differential privacy", theme) == ("", [])


@pytest.mark.parametrize(
    "reply",
    [
        "These papers train private models, see [the docs](https://evil.example/x).",
        "These papers train private models <img src=x>.",
        "These papers train private models [000-05].",
    ],
)
def test_a_theme_sentence_with_a_link_markup_or_brackets_is_not_used(
    seed_settings, seed_retriever, monkeypatch, reply
):
    clock = _Clock(per_call=1.0)
    monkeypatch.setattr("rag.answer.summarize.time", clock)
    chain = AnswerChain(
        seed_settings, seed_retriever, LLMHandle("openai", _timed_model([reply, "n", "n"], clock), "scripted")
    )
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("differential privacy")
    markdown = summary.to_markdown()
    assert "evil.example" not in summary.lead and "<img" not in summary.lead
    assert "models [000-05]" not in summary.lead  # only the keys the summary adds
    assert "](" not in markdown and "<img" not in markdown


class Failing(ScriptedChatModel):
    """A model server that stopped answering: every call times out (and is recorded)."""

    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.prompts.append(messages)
        raise TimeoutError("the server stopped answering")


@pytest.mark.parametrize("flow", [lambda s: s, unbudgeted], ids=["within-the-budget", "unbudgeted"])
def test_a_model_that_fails_leaves_every_paper_its_own_key_sentence(seed_settings, seed_retriever, flow):
    model = Failing(replies=[], prompts=[])
    chain = AnswerChain(flow(seed_settings), seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(chain.settings, chain.retriever, chain.llm).summarize("watermarking")
    assert len(summary.papers) == 4 and not any(n.written for n in summary.papers)
    assert all(n.note in n.paper.abstract for n in summary.papers)
    assert len(model.prompts) == 1  # not called again once it failed (retries are the client's)
    assert all(f"[{n.key}]" in summary.lead for n in summary.papers)


def test_a_model_that_fails_the_term_call_is_not_called_again(seed_settings, seed_retriever, tmp_path):
    model = Failing(replies=[], prompts=[])
    settings = seed_settings.replace(data_dir=tmp_path)  # no cached terms
    chain = AnswerChain(settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    summary = Summarizer(settings, chain.retriever, chain.llm).summarize("watermarking")
    assert len(summary.papers) == 4 and not any(n.written for n in summary.papers)
    assert len(model.prompts) == 1  # the terms call only


def test_a_venue_no_paper_is_from_is_said_not_dropped_and_an_empty_summary_says_so(no_llm_chain):
    summarizer = Summarizer(no_llm_chain.settings, no_llm_chain.retriever, no_llm_chain.llm)
    elsewhere = summarizer.summarize("watermarking papers at NeurIPS 2019")
    assert not elsewhere.papers and not elsewhere.others
    assert elsewhere.lead.startswith("No indexed paper is from NeurIPS 2019; the papers here are from ICML")
    nothing = summarizer.summarize("medieval poetry")
    assert nothing.lead == "No indexed paper is on medieval poetry."
    assert "0 papers on" not in nothing.to_markdown()
    here = summarizer.summarize("watermarking papers at ICML 2026")
    assert {n.paper.id for n in here.papers} == TOPICS["watermarking"] and not here.scope


def test_a_summary_without_a_model_says_nothing_of_the_models_notes(no_llm_chain):
    handle = LLMHandle("none", None, "none (extractive)")
    summary = Summarizer(no_llm_chain.settings, no_llm_chain.retriever, handle).summarize("watermarking")
    assert not summary.budgeted and "the model's notes" not in summary.to_markdown()


def test_markdown_keeps_bracket_groups_of_cited_keys_only():
    from rag.answer.summary import md

    text = "A [000-05] B [000-05, 004-17] C [docs [x] here](https://evil.example/x) D [999-99]"
    out = md(text, keys={"000-05", "004-17"})
    assert "[000-05]" in out and "[000-05, 004-17]" in out
    assert re.search(r"(?<!\\)\]\(", out) is None  # no unescaped link
    assert "\\[docs \\[x\\] here\\](https" in out and "\\[999-99\\]" in out
    # a key made a link by the markup after it, or a link's definition, is text
    for linked in (
        "[000-05]\\textbf{(https://evil.example)}",
        "[000-05]: https://evil.example",
        "x\n[000-05]: h",
    ):
        assert "\\[000-05\\]" in md(linked, keys={"000-05"}), linked
    assert md("x [,] y", keys={"000-05"}) == "x \\[,\\] y"
    # math keeps its brackets as an interval, with keys or without
    assert md("on $[0,1]^d$ [000-05]", keys={"000-05"}) == "on \\[0,1\\]ᵈ [000-05]"
    assert md("\\textbf{[Oral]} Deep nets") == "\\[Oral\\] Deep nets"


def test_a_theme_sentence_some_of_its_papers_write_cites_them_and_names_the_others_after_it(
    seed_settings, seed_retriever, monkeypatch
):
    from rag.answer.summary import PaperNote, Theme
    from rag.records import Paper

    papers = [
        Paper("p1", "Private training of recommenders with matrix factorization.", "a", "s.txt", 1),
        Paper("p2", "Recommenders trained privately by matrix factorization at scale.", "b", "s.txt", 2),
        Paper("p3", "Auditing the privacy of language models.", "c", "s.txt", 3),
    ]
    theme = Theme("Private recommenders", [PaperNote(p.id, p, p.abstract, 0.5) for p in papers])
    monkeypatch.setattr(Summarizer, "themes", lambda self, topic, notes, by_model=True: [theme])
    sentence = "These papers train recommenders privately with matrix factorization."
    model = ScriptedChatModel(replies=[sentence, "n1", "n2", "n3"], prompts=[])
    summarizer = Summarizer(seed_settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    hits = [Hit(p, 1.0, similarity=0.5) for p in papers]
    _, lead = summarizer._within("privacy", {p.id: p for p in papers}, hits, 3, 1e12, {})
    assert (
        "Private recommenders: These papers train recommenders privately with matrix factorization [p1][p2]."
        in lead
    )
    assert "See also [p3]." in lead


def test_a_theme_of_one_paper_costs_no_model_call(seed_settings, seed_retriever, monkeypatch):
    from rag.answer.summary import PaperNote, Theme
    from rag.records import Paper

    paper = Paper("p1", "We train recommenders privately with matrix factorization.", "a", "s.txt", 1)
    theme = Theme("Private recommenders", [PaperNote("p1", paper, paper.abstract, 0.5)])
    monkeypatch.setattr(Summarizer, "themes", lambda self, topic, notes, by_model=True: [theme])
    model = ScriptedChatModel(replies=["We train recommenders privately."], prompts=[])
    summarizer = Summarizer(seed_settings, seed_retriever, LLMHandle("openai", model, "scripted"))
    summarizer._within("privacy", {"p1": paper}, [Hit(paper, 1.0, similarity=0.5)], 1, 1e12, {})
    assert len(model.prompts) == 1 and "titles" not in model.prompts[0][-1].content.lower()  # the note only
