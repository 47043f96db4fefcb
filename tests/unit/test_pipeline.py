"""The answer pipeline's decisions, through a fake retriever and a scripted model (no index)."""

import pytest

from rag.answer.pipeline import AnswerChain
from rag.answer.refusal import refusal_sentence
from rag.llm.client import LLMHandle
from rag.settings import Settings

from ..fakes import FakeRetriever, ScriptedChatModel, paper

PAPERS = [
    paper("w1", "We propose AudioMark, a watermarking method for synthetic audio that survives compression."),
    paper("w2", "We present PanoMark, rotation-invariant watermarking of panoramic images."),
    paper("w3", "This paper introduces TrajMark, the first watermarking method for agent trajectories."),
    paper("b1", "We study sliding-window streaming bandits with limited memory and prove regret bounds."),
    paper("o1", "AdaSCALE beats OptFS by 14.94% in near-OOD FPR@95 on ImageNet with adaptive scaling."),
]


def _chain(replies):
    model = ScriptedChatModel(replies=list(replies), prompts=[])
    settings = Settings(llm="openai")
    return AnswerChain(settings, FakeRetriever(PAPERS), LLMHandle("openai", model, "scripted")), model


def test_listing_question_returns_every_paper_on_the_topic_and_asks_the_model_only_for_its_terms():
    chain, model = _chain(["audio watermark\nimage watermark"])
    answer = chain.ask("Which papers study watermarking?")
    assert answer.mode == "listing" and model.prompts == []  # a short list does not read the terms
    assert [c.paper.id for c in answer.citations] == sorted(
        (c.paper.id for c in answer.citations), key=[h.paper.id for h in answer.retrieved].index
    )
    assert {c.paper.id for c in answer.citations} == {"w1", "w2", "w3"}
    assert answer.context.keys() == {c.key for c in answer.citations}
    conference = Settings(llm="openai", topic_small_list=0)  # these papers read as a conference's
    chain = AnswerChain(conference, FakeRetriever(PAPERS, conference), LLMHandle("openai", model, "scripted"))
    assert chain.ask("Which papers study watermarking?").mode == "listing" and len(model.prompts) == 1
    assert '"watermarking"' in model.prompts[0][0].content  # the topic_terms prompt, nothing else


def test_off_topic_question_abstains_without_an_llm_call():
    chain, model = _chain([])
    answer = chain.ask("What accuracy does GPT-5 reach on MMLU?")
    assert answer.abstained and answer.mode == "abstained" and model.prompts == []


def test_the_model_sees_numbered_evidence_under_the_paper_key_and_a_stable_system_prompt():
    chain, model = _chain(["AdaSCALE beats OptFS by 14.94% [o1].", "AdaSCALE beats OptFS by 14.94% [o1]."])
    chain.ask("By how much does AdaSCALE beat OptFS?")
    chain.ask("How much better than OptFS is AdaSCALE?")
    system, user = model.prompts[0]
    assert "[o1]" in user.content and "\n1. AdaSCALE beats OptFS by 14.94%" in user.content
    assert model.prompts[1][0].content == system.content  # same prefix: the prompt cache reuses it


def test_a_refusal_with_strong_evidence_becomes_the_quoted_answer_once_the_model_confirms_it():
    chain, model = _chain([refusal_sentence(), "Yes."])
    answer = chain.ask("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?")
    assert answer.mode == "quoted" and "14.94" in answer.text and answer.citations[0].paper.id == "o1"
    check = model.prompts[1][0].content
    assert "Reply with one word: yes or no" in check and "AdaSCALE beats OptFS by 14.94%" in check


def test_quoted_evidence_the_model_says_does_not_answer_is_not_shown():
    chain, model = _chain([refusal_sentence(), "No"])
    answer = chain.ask("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?")
    assert answer.abstained and answer.citations == [] and len(model.prompts) == 2
    assert answer.withheld == "the quoted evidence does not answer what the question asks"


@pytest.mark.parametrize(("reply", "quoted"), [("Yes.", True), ("No", False), ("Perhaps", False)])
def test_a_paraphrased_question_the_words_fall_short_of_is_quoted_only_on_the_models_yes(reply, quoted):
    from rag.answer import evidence as ev
    from rag.answer.pipeline import _AskTrace

    chain, model = _chain([reply])
    proxy = paper("p1", "Proxy-tuning steers a large model. It closes 88% of the gap to the tuned model.")
    found = ev.Sentence("p1", 1, "It closes 88% of the gap to the tuned model.", 1.0, 0.4)
    near = ev.PaperEvidence("p1", proxy, [found], support=0.4, typed=True, constraint=0.45)
    far = ev.PaperEvidence("p2", paper("p2", "Unrelated."), [], support=0.1, typed=True)
    run = _AskTrace("Which paper steers a big model with a small one, and how much of the gap does it close?")
    run.evidence, run.context = [near, far], {"p1": proxy, "p2": far.paper}
    draft = chain._fallback(run, run.question, answers=False, withheld=None, streamed=None)
    assert (draft.mode == "quoted") is quoted and len(model.prompts) == 1  # one yes/no, asked once
    assert ("88%" in draft.text) is quoted
    assert not ev.nearly_answering([far], 0.3)  # too little of the question: not even asked
    elsewhere = ev.PaperEvidence("p1", proxy, [found], support=0.4, typed=True, constraint=0.45, gives=False)
    assert not ev.nearly_answering([elsewhere], 0.3)  # its figures are of something else
    assert ev.nearly_answering([near], 0.3, ("gap",)) == [near]  # a figure on the amount asked
    assert not ev.nearly_answering([near], 0.3, ("learn",))  # "What learning rate …?": not this 88%


def _evidence(question: str, abstract: str, rare: str = ""):
    """One paper's evidence for ``question``, every term as common as the others but ``rare``,
    which is a name few papers write (no embedder)."""
    from rag.answer import evidence as ev
    from rag.retrieval.relevance import TermWeights
    from rag.settings import AnswerSettings, RetrievalSettings
    from rag.text import lexical_terms

    terms = lexical_terms(question)
    counts = {t: 1 if t == rare else 500 for t in terms}
    weights = TermWeights.from_counts(terms, counts, 1000, RetrievalSettings())
    return ev.gather(question, {"p1": paper("p1", abstract)}, None, weights, tuning=AnswerSettings())[0]


def test_a_score_asked_of_a_benchmark_is_given_only_by_a_figure_in_a_sentence_on_that_benchmark():
    question = "What ArenaBench score does Zebra reach?"
    elsewhere = (
        "We train Zebra on 182,954 prompts from 4 datasets. Zebra greatly improves ArenaBench results."
    )
    assert not _evidence(question, elsewhere, rare="arenabench").answers  # figures of something else
    given = "We train Zebra on 182,954 prompts. Zebra reaches a score of 8.1 on ArenaBench."
    assert _evidence(question, given, rare="arenabench").answers


def test_a_which_paper_question_needs_a_sentence_that_says_what_the_paper_does_not_just_a_name():
    from rag.settings import AnswerSettings

    tuning = AnswerSettings()
    death = "Sparse autoencoder death rates are near zero on GPT-2 and over 70% on AlphaFold3."
    question = "Which paper proposes a protein structure predictor that outperforms AlphaFold3?"
    found = _evidence(question, death, rare="alphafold3")  # the name carries the weight
    assert found.support >= tuning.answer_coverage and not found.missing  # words alone would quote it
    assert found.constraint < tuning.constraint_coverage and not found.answers
    asked = "Which paper measures sparse autoencoder death rates on AlphaFold3?"
    assert _evidence(asked, death, rare="alphafold3").answers


def test_the_sentence_saying_what_is_asked_leads_not_the_ones_describing_the_paper():
    from rag.answer import evidence as ev

    abstract = (
        "Multimodal reward alignment remains a challenge for current frameworks. "
        "We propose a multimodal reward alignment framework. "
        "The reward alignment framework judges multimodal answers with rubrics. "
        "Its policy optimization technique cuts compute by half. "
        "Experiments on multimodal benchmarks confirm the gains."
    )
    question = "In the multimodal reward alignment framework, what technique cuts compute?"
    found = _evidence(question, abstract)
    best = max(found.sentences, key=lambda s: s.score)
    assert best.text.startswith("Its policy optimization technique")  # more shared words, lower
    assert "Its policy optimization technique" in ev.quoted_answer([found])


def test_a_quoted_answer_quotes_the_best_supported_paper_not_half_of_a_neighbour():
    from rag.answer import evidence as ev

    def evidence(key: str, support: float, *scores: float) -> ev.PaperEvidence:
        sentences = [ev.Sentence(key, n, f"{key} says {n}.", s, 0.6) for n, s in enumerate(scores)]
        return ev.PaperEvidence(key, paper(key, "x"), sentences, support=support, answers=True)

    about, neighbour = evidence("a", 1.0, 0.9, 0.5), evidence("b", 0.7, 0.8)
    assert ev.quoted_answer([neighbour, about]) == "a says 0 [a]. a says 1 [a]."
    assert ev.quoted_answer([neighbour, evidence("a", 1.0, 0.9)]) == "a says 0 [a]."  # no filling up
    # A question not in English was matched word for word untranslated: the best sentences of all.
    assert ev.quoted_answer([about, neighbour], one_paper=False) == "a says 0 [a]. b says 0 [b]."


def test_a_question_for_several_works_or_not_in_english_is_quoted_from_every_answering_paper():
    from rag.answer.evidence import about_one_paper as about_one

    assert about_one("What does SAE stand for in the feature death paper?")
    assert not about_one("Which works deal with 3D Gaussian Splatting?")
    assert not about_one("Welche Arbeiten beschäftigen sich mit 3D Gaussian Splatting?")


def test_the_words_a_question_is_built_with_need_not_be_in_the_answering_sentence():
    abstract = "AudioMark survives compression through a spread-spectrum code. It is fast."
    found = _evidence("What is used to make the AudioMark watermark survive compression?", abstract)
    assert found.answers  # "used", "make": grammar; AudioMark, survive, compression: said
    assert not _evidence("What makes the AudioMark watermark survive pruning?", abstract).answers


def test_a_how_much_question_is_answered_only_by_a_paper_giving_a_figure():
    question = "How many times faster is the memorized Anchors explainer than vanilla Anchors?"
    vague = "Our memorized Anchors explainer is much faster than vanilla Anchors at equal fidelity."
    assert not _evidence(question, vague).answers  # on the speed-up, but it never says how much
    for said in ("3.5 times faster", "twice as fast", "tenfold faster", "an order of magnitude faster"):
        given = f"Our memorized Anchors explainer is {said} than vanilla Anchors at equal fidelity."
        assert _evidence(question, given).answers, said
    manifold = "Our manifold sampler is much faster than MCMC on the data manifold."  # no figure
    assert not _evidence("How many times faster is the manifold sampler than MCMC?", manifold).answers
    # "How much ...?" may be answered in words no figure pattern reads.
    halves = "Sparse attention halves the memory of dense attention on long inputs."
    assert _evidence("How much memory does sparse attention save on long inputs?", halves).answers


def test_a_question_naming_by_acronym_what_its_paper_spells_out_is_answered():
    abstract = "We bound the stability of asynchronous stochastic gradient descent without smoothness."
    assert _evidence("Does asynchronous SGD need smoothness?", abstract).answers
    assert not _evidence("Does asynchronous PPO need smoothness?", abstract).answers
    # A rare name of the question is missing unless the paper writes it in either form.
    assert _evidence("Does asynchronous SGD need smoothness?", abstract, rare="sgd").missing == ()
    solver = "We route vehicles fast by finding the shortest path between depots."
    assert _evidence("How fast are TSP instances solved?", solver, rare="tsp").missing == ("tsp",)


def test_a_name_the_paper_writes_in_math_or_with_a_superscript_is_not_missing():
    abstract = "We introduce Cross-Context Consistency ($C^3$), a black-box sandbagging detector."
    assert _evidence("What is C3?", abstract, rare="c3").missing == ()


def test_no_llm_answers_with_quoted_evidence_or_refuses_when_it_does_not_answer():
    chain = AnswerChain(Settings(llm="none"), FakeRetriever(PAPERS), LLMHandle("none", None, "none"))
    assert chain.ask("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?").mode == "extractive"
    near_miss = chain.ask("What FPR@95 does AdaSCALE reach on CIFAR-10?")
    assert near_miss.abstained and near_miss.citations == []


# Ten watermarking papers of two kinds: five on speech audio, five on diffusion images.
_AUDIO = ["compression", "noise", "resampling", "editing", "re-recording"]
_IMAGES = ["cropping", "JPEG compression", "rotation", "inpainting", "upscaling"]
TWO_KINDS = [
    paper(f"a{n}", f"We propose a watermarking method for speech audio recordings that survives {attack}.")
    for n, attack in enumerate(_AUDIO)
] + [
    paper(f"i{n}", f"We propose a watermarking method for diffusion generated images that survives {attack}.")
    for n, attack in enumerate(_IMAGES)
]


def _listing_of(papers: list) -> AnswerChain:
    chain = AnswerChain(Settings(llm="none"), FakeRetriever(papers), LLMHandle("none", None, "none"))
    chain.retriever.search = lambda query, k=None, **kw: FakeRetriever.search(
        chain.retriever, query, k=len(papers), **kw
    )
    return chain


def _themes(lines: list[str]) -> dict[str, list[str]]:
    """Heading → the keys listed under it."""
    themes: dict[str, list[str]] = {}
    heading = ""
    for line in lines:
        if line.startswith("- "):
            themes[heading].append(line.rsplit("[", 1)[1].rstrip("].")[0])
        else:
            heading = line
            themes[heading] = []
    return themes


def test_a_long_listing_is_grouped_into_themes_named_as_their_papers_write_them():
    answer = _listing_of(TWO_KINDS).ask("Which papers study watermarking?")
    lines = answer.text.splitlines()
    assert lines[0] == "10 papers on watermarking:" and len(answer.citations) == 10
    themes = _themes(lines[1:])
    assert sorted(sorted(keys) for keys in themes.values()) == [["a"] * 5, ["i"] * 5]
    assert all(h.endswith(":") and h != "Other:" for h in themes), themes


def test_papers_that_share_no_theme_are_listed_without_headings():
    """Ten papers each on its own medium: clusters of one paper, or of papers no phrase names, are
    no theme ("Images:" over one paper, "Other:" twice), so the listing has none."""
    kinds = ["audio", "images", "video", "text", "code", "models", "datasets", "speech", "3D scenes", "maps"]
    papers = [
        paper(f"m{n}", f"We propose a watermarking method for {kind} that survives editing.")
        for n, kind in enumerate(kinds)
    ]
    lines = _listing_of(papers).ask("Which papers study watermarking?").text.splitlines()
    assert lines[0] == "10 papers on watermarking:"
    assert len(lines) == 11 and all(line.startswith("- ") for line in lines[1:])


def test_a_listing_counts_the_papers_likely_on_the_topic_and_lists_the_rest_after_the_themes():
    from dataclasses import replace

    papers = TWO_KINDS[:4] + TWO_KINDS[5:8] + [TWO_KINDS[4], *TWO_KINDS[8:]]  # 4 + 3 first, then 3
    # Seven likely papers are grouped into themes (more than four), the other three follow them.
    settings = Settings(llm="none", listing_group_above=4)
    chain = AnswerChain(settings, FakeRetriever(papers), LLMHandle("none", None, "none"))
    real = chain.retriever.select_topic
    # As in a conference where only the best seven scored like the subfield (topics.likely_first).
    chain.retriever.select_topic = lambda *a, **kw: replace(real(*a, **kw), likely=7)
    answer = chain.ask("Which papers study watermarking?")
    lines = answer.text.splitlines()
    assert lines[0] == "7 papers likely on watermarking, and 3 more that share some of its vocabulary:"
    assert (answer.found, answer.likely) == (10, 7) and len(answer.citations) == 10
    tail = lines.index("Sharing some of its vocabulary:")
    themes = [line for line in lines[1:tail] if not line.startswith("- ")]
    assert len(themes) >= 2 and sum(line.startswith("- ") for line in lines[1:tail]) == 7
    assert len(lines) - tail - 1 == 3 and all(line.startswith("- ") for line in lines[tail + 1 :])
    assert answer.to_dict()["likely"] == 7
    chain.retriever.select_topic = lambda *a, **kw: replace(real(*a, **kw), likely=9)
    assert chain.ask("Which papers study watermarking?").text.startswith(
        "9 papers likely on watermarking, and 1 more that shares some of its vocabulary:"
    )


def test_a_listing_of_papers_without_abstract_sentences_names_each_paper():
    from rag.answer.listing import listing_answer
    from rag.retrieval.relevance import TermWeights
    from rag.settings import AnswerSettings, RetrievalSettings

    keyed = {"k1": paper("a1", ""), "k2": paper("a2", "")}
    weights = TermWeights.from_counts(["watermark"], {"watermark": 1}, 10, RetrievalSettings())
    text = listing_answer(
        "Which papers study watermarking?", "watermarking", keyed, None, weights, tuning=AnswerSettings()
    )
    assert text.splitlines() == ["2 papers on watermarking:", "- a1 [k1]", "- a2 [k2]"]


def test_a_listing_line_states_what_the_paper_contributes_not_the_background_it_opens_with():
    from rag.answer.listing import listing_answer
    from rag.retrieval.relevance import TermWeights
    from rag.settings import AnswerSettings, RetrievalSettings

    # The title names the topic, so every sentence holds its words: the role decides.
    opening = "Graph-structured data are ubiquitous in science."
    abstract = (
        f"{opening} Most graph neural networks aggregate messages from neighbours. "
        "We propose DAGNN, a graph neural network that follows the partial order of a DAG. "
        "Experiments on source code show gains."
    )
    keyed = {
        "k1": paper("a1", abstract, title="Directed Acyclic Graph Neural Networks"),
        # No contribution verb: the authors' own voice still beats the background.
        "k2": paper("a2", f"{opening} In this paper, we distinguish two roles.", title="Graph roles"),
        "k3": paper("a3", opening, title="Graph data"),  # one sentence: it is the line
    }
    weights = TermWeights.from_counts(["graph"], {"graph": 3}, 10, RetrievalSettings())
    text = listing_answer(
        "Which papers work on graph neural networks?", "graph neural networks", keyed, None, weights,
        tuning=AnswerSettings(),
    )  # fmt: skip
    lines = text.splitlines()[1:]
    assert lines[0].startswith("- Directed Acyclic Graph Neural Networks: We propose DAGNN")
    assert lines[1] == "- Graph roles: In this paper, we distinguish two roles [k2]."
    assert lines[2].startswith(f"- Graph data: {opening[:-1]}")


def test_a_listing_asked_something_of_each_paper_adds_the_sentence_that_says_it():
    from rag.answer.listing import listing_answer
    from rag.retrieval.relevance import TermWeights
    from rag.settings import AnswerSettings, RetrievalSettings

    abstract = (
        "Protecting media from misuse is hard. We propose MarkIt, a watermarking framework. "
        "MarkIt marks speech recordings in the spectral domain. Experiments on three benchmarks show "
        "robustness to compression."
    )
    keyed = {"k1": paper("a1", abstract, title="Protecting media from misuse is…")}
    terms = ["watermark", "mark", "speech", "record"]  # common words, no rare names
    weights = TermWeights.from_counts(terms, dict.fromkeys(terms, 5), 10, RetrievalSettings())

    def line(question: str, each: str) -> str:
        tuning = AnswerSettings()
        return listing_answer(
            question, "watermarking", keyed, None, weights, each=each, tuning=tuning
        ).splitlines()[1]

    # The contribution, then (in reading order) the sentence saying what is marked; the cut
    # first sentence still names what the paper is about.
    asked = "Which papers study watermarking, and what recordings does each mark?"
    assert line(asked, "what recordings does each mark") == (
        "- Protecting media from misuse is…: We propose MarkIt, a watermarking framework [k1]. "
        "MarkIt marks speech recordings in the spectral domain [k1]."
    )
    # How each is evaluated is told in the words of its experiments.
    assert line(
        "Which papers study watermarking and how are they evaluated?", "how are they evaluated"
    ).endswith("Experiments on three benchmarks show robustness to compression [k1].")
    alone = line("Which papers study watermarking?", "")
    assert alone == "- We propose MarkIt, a watermarking framework [k1]."


def test_a_paper_only_sharing_the_topics_vocabulary_shows_why_it_is_listed():
    from rag.answer.listing import VOCABULARY_ONLY, listing_answer
    from rag.retrieval.relevance import TermWeights
    from rag.settings import AnswerSettings, RetrievalSettings

    keyed = {
        "k1": paper("a1", "We propose DAGNN, a graph neural network for DAGs.", title="DAG networks"),
        "k2": paper(
            "a2", "We propose a faster optimizer. It also trains graph neural networks.", title="Fast"
        ),
    }
    weights = TermWeights.from_counts(["graph"], {"graph": 2}, 10, RetrievalSettings())
    text = listing_answer(
        "Which papers work on graph neural networks?", "graph neural networks", keyed, None, weights,
        likely=1, tuning=AnswerSettings(),
    )  # fmt: skip
    lines = text.splitlines()
    assert lines[2] == f"{VOCABULARY_ONLY}:" and lines[1].startswith("- DAG networks: We propose DAGNN")
    assert lines[3] == "- Fast: It also trains graph neural networks [k2]."  # not its contribution


def test_verification_off_keeps_the_draft_and_only_validates_its_keys():
    model = ScriptedChatModel(replies=["AdaSCALE was trained on Mars [o1][KEY-A]."], prompts=[])
    settings = Settings(llm="openai", verify_answers=False)
    chain = AnswerChain(settings, FakeRetriever(PAPERS), LLMHandle("openai", model, "scripted"))
    answer = chain.ask("By how much does AdaSCALE beat OptFS?")
    assert answer.text == "AdaSCALE was trained on Mars [o1]." and answer.invalid_keys == ["KEY-A"]
    assert answer.mode == "generated" and answer.attribution == []


def test_a_topic_no_paper_is_on_gives_an_empty_summary_not_a_crash():
    from rag.answer.summarize import Summarizer

    model = ScriptedChatModel(replies=[], prompts=[])
    summarizer = Summarizer(
        Settings(llm="openai"), FakeRetriever(PAPERS), LLMHandle("openai", model, "scripted")
    )
    summary = summarizer.summarize("zzzz qqqq")
    assert summary.themes == [] and "No indexed paper is on zzzz qqqq." in summary.to_markdown()


def test_a_summary_covers_only_papers_likely_on_the_topic_and_names_the_others_apart():
    from dataclasses import replace

    from rag.answer.summarize import Summarizer

    kinds = ["audio", "images", "video", "text", "code", "models"]
    papers = [paper(f"m{n}", f"We propose a watermarking method for {kind}.") for n, kind in enumerate(kinds)]
    retriever = FakeRetriever(papers)
    real = retriever.select_topic
    retriever.select_topic = lambda *a, **kw: replace(real(*a, **kw), likely=4)
    summary = Summarizer(Settings(llm="none"), retriever, LLMHandle("none", None, "none")).summarize(
        "watermarking", max_papers=3
    )
    assert len(summary.papers) == 3 and len(summary.others) == 3 and (summary.found, summary.likely) == (6, 4)
    text = summary.to_markdown()
    assert "## 1 more paper on this topic (not covered above)" in text
    (other,) = summary.others[:1]
    assert f"(id {other.id}, {other.source}:{other.line})" in text  # each named by id, to ask for it
    assert "## 2 more that share some of its vocabulary" in text and "_3 of 4 papers" in text
    # The lead's number is the covered share of the topic, not the topic's size.
    assert summary.lead.startswith("The 3 best-matching of the 4 papers likely on watermarking fall into")
    covered = {n.paper.id for n in summary.papers}
    summarizer = Summarizer(Settings(llm="none"), retriever, LLMHandle("none", None, "none"))
    wide = summarizer.summarize("watermarking")
    assert {n.paper.id for n in wide.papers} >= covered and len(wide.papers) == 4  # never the last two
    assert wide.to_dict()["likely"] == 4 and "papers on this topic (not covered" not in wide.to_markdown()
    assert wide.lead.startswith("4 papers on watermarking fall into")


def test_over_long_or_empty_questions_and_topics_are_one_clear_error_before_any_model_call():
    import pytest

    from rag.answer.summarize import Summarizer
    from rag.errors import CitelineError

    chain, model = _chain([])
    with pytest.raises(CitelineError, match="the question is 20,000 characters long; use at most 2,000"):
        chain.ask("x" * 20_000)
    with pytest.raises(CitelineError, match="the question is empty"):
        chain.ask("  ")
    summarizer = Summarizer(
        Settings(llm="openai"), FakeRetriever(PAPERS), LLMHandle("openai", model, "scripted")
    )
    with pytest.raises(CitelineError, match="the topic is 5,000 characters long"):
        summarizer.summarize("y" * 5000)
    assert model.prompts == []


def test_an_abstention_never_starts_the_model_a_listing_asks_it_once_per_topic_and_a_factoid_once():
    model = ScriptedChatModel(
        replies=["audio watermark", "AdaSCALE beats OptFS by 14.94% [o1].", "Compression [w1]."], prompts=[]
    )
    started = []

    def start_model() -> LLMHandle:
        started.append(True)
        return LLMHandle("openai", model, "scripted")

    conference = Settings(llm="openai", topic_small_list=0)  # a listing asks the model for terms
    chain = AnswerChain(conference, FakeRetriever(PAPERS, conference), start_model)
    off_topic = chain.ask("What accuracy does GPT-5 reach on MMLU?")
    assert started == [] and off_topic.model == "no model call"
    listing = chain.ask("Which papers study watermarking?")
    again = chain.ask("Which papers study watermarking?")  # the subfield's terms come from the cache
    assert started == [True] and listing.model == "scripted" and len(model.prompts) == 1
    assert again.citations == listing.citations and "terms" in listing.timings
    chain.ask("By how much does AdaSCALE beat OptFS?")
    chain.ask("What does AudioMark survive?")
    assert started == [True] and len(model.prompts) == 3


KSVD = paper(
    "k1",
    "We propose Double-Batch KSVD (DB-KSVD), a scalable dictionary learning algorithm. We demonstrate its"
    " efficacy by disentangling text embeddings of the Gemma-2-2B and Pythia-160M models.",
)


def test_a_draft_that_restates_the_question_is_withheld_and_the_sentence_naming_the_answer_quoted():
    model = ScriptedChatModel(
        replies=["DB-KSVD disentangled the embeddings of the models [k1].", "yes"], prompts=[]
    )
    handle = LLMHandle("openai", model, "scripted")
    chain = AnswerChain(Settings(llm="openai"), FakeRetriever([KSVD, *PAPERS]), handle)
    answer = chain.ask("Which models did DB-KSVD disentangle the embeddings of?")
    assert answer.mode == "quoted" and "does not name what the question asks for" in answer.withheld
    assert "Gemma-2-2B and Pythia-160M" in answer.text and answer.citations[0].paper.id == "k1"


def test_an_acronym_is_answered_with_the_expansion_the_paper_gives():
    mabs = paper("m1", "We study streaming multi-armed bandits (MABs). We prove regret bounds.")
    model = ScriptedChatModel(replies=["MABs stands for Many Agent Bandits [m1].", "yes"], prompts=[])
    handle = LLMHandle("openai", model, "scripted")
    chain = AnswerChain(Settings(llm="openai"), FakeRetriever([mabs, *PAPERS]), handle)
    answer = chain.ask("What is MABs short for?")
    assert answer.mode == "quoted" and "multi-armed bandits (MABs)" in answer.text


def test_a_draft_naming_a_benchmark_no_paper_writes_is_withheld_even_when_the_question_names_it():
    model = ScriptedChatModel(replies=["AdaSCALE beats OptFS by 14.94% on OpenOOD-v2 [o1]."], prompts=[])
    handle = LLMHandle("openai", model, "scripted")
    chain = AnswerChain(Settings(llm="openai"), FakeRetriever(PAPERS), handle)
    answer = chain.ask("By how much does AdaSCALE beat OptFS on OpenOOD-v2?")
    assert answer.withheld == "names found in no retrieved paper: OpenOOD-v2"
    assert "OpenOOD-v2" not in answer.text


def test_a_draft_from_papers_that_never_write_the_questions_model_size_is_withheld_as_a_near_miss():
    # The paper reports its detector on a 7B model; the question asks about a 70B one.
    text = (
        "ProbeGuard finds backdoors (AUC 94.3) on Qwen-7B and Qwen2.5-1.5B in 12 ImageNet tasks and"
        " four ImageNet tasks of its own."
    )
    probe = paper("p1", text)
    reply = "ProbeGuard reaches an AUC of 94.3 [p1]."
    asked = {
        "What AUC does ProbeGuard reach on Llama-70B?": "the cited papers never write the figures of "
        "Llama-70B",
        "What AUC does ProbeGuard reach on Qwen-7B?": None,
        "What AUC does ProbeGuard reach on Qwen2.5-1.5B?": None,  # a version's decimals are kept
        "What AUC does ProbeGuard reach on ImageNet-1k?": None,  # the papers write the name bare
        "What AUC does ProbeGuard reach with the 70B model?": "the cited papers never write the figures "
        "of 70B",
        # A count the question sets, in digits or in the paper's words.
        "What AUC does ProbeGuard reach on 20 ImageNet tasks?": "the cited papers never write 20",
        "What AUC does ProbeGuard reach on 4 ImageNet tasks?": None,  # "four ImageNet tasks"
        # A bound, a venue's year, an order and a decimal comma are not conditions on the paper.
        "Does ProbeGuard reach an AUC above 90 in the ICML 2026 paper?": None,
        "Is ProbeGuard the 2nd detector to reach an AUC of 94,3 on 12 tasks?": None,
    }
    for question, withheld in asked.items():
        model = ScriptedChatModel(replies=[reply, "yes"], prompts=[])
        handle = LLMHandle("openai", model, "scripted")
        answer = AnswerChain(Settings(llm="openai"), FakeRetriever([probe, *PAPERS]), handle).ask(question)
        if withheld:
            assert answer.abstained and answer.withheld == withheld, question
        else:
            assert answer.mode == "generated" and answer.withheld is None and "94.3" in answer.text, question


def test_a_draft_writing_an_acronym_in_the_plural_is_not_withheld_for_it():
    model = ScriptedChatModel(replies=["AdaSCALE beats OptFS by 14.94% in near-OOD FPRs [o1]."], prompts=[])
    handle = LLMHandle("openai", model, "scripted")
    chain = AnswerChain(Settings(llm="openai"), FakeRetriever(PAPERS), handle)
    answer = chain.ask("By how much does AdaSCALE beat OptFS?")
    assert answer.mode == "generated" and answer.withheld is None


def test_a_reply_that_falls_into_a_loop_is_cut_where_it_starts_and_no_longer_read():
    looping = "AdaSCALE beats OptFS by 14.94% in near-OOD FPR@95 [o1]. On CIFAR-10 it reaches 0." + "0" * 1500
    chain, model = _chain([looping])
    answer = chain.ask("By how much does AdaSCALE beat OptFS in near-OOD FPR@95?")
    assert "14.94" in answer.text and "000" not in answer.text
    assert model.pieces_sent < 60  # the stream was closed at the loop, not read to its end (~400)


def test_every_model_call_stops_reading_a_reply_that_falls_into_a_loop():
    model = ScriptedChatModel(replies=["Themes: watermarking, " + "audio " * 300], prompts=[])
    reply = LLMHandle("openai", model, "scripted").invoke("Name the themes.", max_tokens=400)
    assert reply == "Themes: watermarking, audio" and model.pieces_sent < 40  # of ~460


def test_a_draft_saying_yes_to_a_claim_in_words_its_paper_never_writes_is_withheld():
    # A yes/no question puts a claim to the papers; repeating it is no evidence for it.
    asked = {
        "Does AudioMark survive pruning and fine-tuning of the audio model?": (
            "AudioMark survives pruning and fine-tuning of the audio model [w1].",
            "the cited papers never write pruning, fine-tuning",
        ),
        "Does AudioMark survive compression?": ("Yes, AudioMark survives compression [w1].", None),
        # One word the paper puts otherwise is the answer's paraphrase ("synthesized" / "synthetic").
        "Does AudioMark survive compression of synthesized audio?": (
            "Yes, AudioMark survives compression of synthesized audio [w1].",
            None,
        ),
        # A wh-question's words are what the asker presupposes: repeating them is how one answers.
        "Which watermarking method for synthetic audio survives pruning and fine-tuning?": (
            "AudioMark, a watermarking method for synthetic audio, survives compression [w1].",
            None,
        ),
    }
    for question, (reply, withheld) in asked.items():
        chain, _ = _chain([reply, "no"])
        answer = chain.ask(question)
        assert answer.withheld == withheld, question
        assert answer.abstained if withheld else answer.mode == "generated", question


def test_a_draft_asserting_the_effect_of_what_its_paper_never_writes_is_withheld():
    # "How does X affect Y?" presupposes X, as a yes/no question puts a claim: a paper that never
    # writes X says nothing of its effect, and repeating the question asserts it.
    mark = paper(
        "a1", "AudioMark watermarks synthetic audio. Its watermark survives compression at every bit rate."
    )
    asked = {
        "How does adding dropout regularisation affect how AudioMark survives compression?": (
            "Adding dropout regularisation does not affect how AudioMark survives compression at every "
            "bit rate [a1].",
            "the cited papers never write dropout, regularisation",
        ),
        "How does the bit rate affect how AudioMark survives compression?": (
            "AudioMark's watermark survives compression at every bit rate [a1].",
            None,
        ),
    }
    for question, (reply, withheld) in asked.items():
        model = ScriptedChatModel(replies=[reply, "no"], prompts=[])
        chain = AnswerChain(
            Settings(llm="openai"), FakeRetriever([mark, *PAPERS]), LLMHandle("openai", model, "s")
        )
        answer = chain.ask(question)
        assert answer.withheld == withheld, question
        assert answer.abstained if withheld else answer.mode == "generated", question


def test_a_draft_naming_with_a_capital_what_no_retrieved_paper_writes_is_withheld():
    scanner = paper(
        "s1",
        "We propose SecScan, a process reward model that finds vulnerabilities in C code.",
    )
    for reply, withheld in {
        "SecScan finds vulnerabilities in Python code and in Rust code [s1].": "names found in no retrieved "
        "paper: Python, Rust",
        "SecScan finds vulnerabilities in C code with its Reward model [s1].": None,  # "reward", written
        # The field's acronyms name nothing a paper must write, here or in the question.
        "SecScan, a process reward model for LLMs, finds vulnerabilities in C code [s1].": None,
        "SecScan, an LLM-based reward model, finds vulnerabilities in C code [s1].": None,
        "SecScan finds vulnerabilities in C code with CNNs trained by SGD [s1].": None,
    }.items():
        model = ScriptedChatModel(replies=[reply, "no"], prompts=[])
        chain = AnswerChain(
            Settings(llm="openai"), FakeRetriever([scanner, *PAPERS]), LLMHandle("openai", model, "s")
        )
        answer = chain.ask("What code does SecScan find vulnerabilities in?")
        assert answer.withheld == withheld, reply


def test_a_dataset_asked_for_is_not_answered_by_evidence_that_names_none():
    grid = paper(
        "g1", "We trace the miscoverage-regret Pareto frontier of robust policies on real energy data."
    )
    chain = AnswerChain(Settings(llm="none"), FakeRetriever([grid, *PAPERS]), LLMHandle("none", None, "none"))
    answer = chain.ask("On which energy dataset was the miscoverage-regret Pareto frontier traced?")
    assert answer.abstained
    named = paper(
        "g2", "We trace the miscoverage-regret Pareto frontier of robust policies on the PJM energy data."
    )
    answer = AnswerChain(
        Settings(llm="none"), FakeRetriever([named, *PAPERS]), LLMHandle("none", None, "none")
    ).ask("On which energy dataset was the miscoverage-regret Pareto frontier traced?")
    assert not answer.abstained and "PJM" in answer.text


def test_a_draft_listing_points_or_naming_a_table_is_not_withheld_for_its_capitals():
    net = paper(
        "n1", "FooNet is a network with higher accuracy, a smaller size and cheaper training than BarNet."
    )
    reply = (
        "FooNet has three advantages over BarNet, as Table 2 shows [n1]:\n- Higher accuracy\n- Smaller size"
    )
    model = ScriptedChatModel(replies=[reply, "no"], prompts=[])
    chain = AnswerChain(
        Settings(llm="openai"), FakeRetriever([net, *PAPERS]), LLMHandle("openai", model, "s")
    )
    answer = chain.ask("What advantages does FooNet have over BarNet?")
    assert answer.withheld is None or "names found" not in answer.withheld


def test_a_count_taken_from_a_sentence_counting_other_things_is_withheld():
    fair = paper(
        "f1", "We align gradients across heterogeneous clients. Experiments on five datasets show gains."
    )
    counted = paper(
        "f2", "We align gradients across 100 heterogeneous clients. Experiments on five datasets show gains."
    )
    question = "How many clients take part in the gradient alignment experiments?"
    for source, reply, withheld in (
        (fair, "The experiments align gradients across 5 clients [f1].", True),  # its 5 counts datasets
        (counted, "The experiments align gradients across 100 clients [f2].", False),
    ):
        model = ScriptedChatModel(replies=[reply, "no"], prompts=[])
        chain = AnswerChain(
            Settings(llm="openai"), FakeRetriever([source, *PAPERS]), LLMHandle("openai", model, "s")
        )
        answer = chain.ask(question)
        assert (answer.withheld == "the draft does not name what the question asks for") is withheld, reply
        assert answer.abstained is withheld, reply


def test_a_topic_word_no_paper_writes_is_read_as_the_word_one_letter_away_and_the_listing_says_so():
    chain = _listing_of(PAPERS)
    typed = chain.ask("Which papers study watermrking?")
    spelled = chain.ask("Which papers study watermarking?")
    assert typed.mode == "listing" and typed.text.splitlines()[0].endswith(
        "(read “watermrking” as “watermarking”):"
    )
    assert [c.paper.id for c in typed.citations] == [c.paper.id for c in spelled.citations]


@pytest.mark.parametrize(
    ("topic", "read"),
    [
        ("watermrking for audio", ("watermarking for audio", {"watermrking": "watermarking"})),
        ("streaming banddits", ("streaming bandits", {"banddits": "bandits"})),
        # an English word no paper writes is no typo ("quantization" of "quantitation"), nor a name
        ("quantization", ("quantization", {})),
        ("Wattermarking", ("Wattermarking", {})),
        ("watermarking", ("watermarking", {})),
        ("watermarks", ("watermarks", {})),  # an ending is no typo
        ("quantitations", ("quantitations", {})),  # a word some paper writes is as typed, however rare
        # a long word of the field no English list holds; not a short one ("mixtral" as "mixtural")
        ("sparse autoencodres", ("sparse autoencoders", {"autoencodres": "autoencoders"})),
        ("mixtral", ("mixtral", {})),
        ("requantization", ("requantization", {})),  # a prefix swapped turns the meaning round
    ],
)
def test_only_a_lower_case_word_no_paper_writes_and_no_dictionary_holds_is_respelled(topic, read):
    from rag.retrieval.relevance import respelled

    papers = [
        *PAPERS,
        paper("q1", "Quantitation of errors in watermark detectors."),
        paper("s1", "Sparse autoencoders with mixtural priors find interpretable features."),
        paper("d1", "Dequantization of discrete data for normalizing flows."),
    ]
    assert respelled(topic, FakeRetriever(papers).term_weights) == read


def test_recent_work_on_a_topic_over_several_years_lists_the_latest_two_and_says_which():
    from dataclasses import replace

    papers = [replace(p, year=2019 + i) for i, p in enumerate(PAPERS)]  # w1..w3: 2019-2021
    papers += [
        replace(paper(f"n{i}", f"We propose a watermarking scheme for model {i}."), year=2023 - i % 2)
        for i in range(2)
    ]
    chain = _listing_of(papers)
    recent = chain.ask("Which recent papers study watermarking?")
    assert {c.paper.id for c in recent.citations} == {"n0", "n1"}
    assert "from 2022–2023, the latest here" in recent.text.splitlines()[0]
    assert {"w1", "w2", "w3"} <= {c.paper.id for c in chain.ask("Which papers study watermarking?").citations}


def test_recent_work_is_the_latest_years_of_the_papers_on_the_topic_not_of_the_whole_list():
    from dataclasses import replace

    papers = [replace(p, year=2019 + i) for i, p in enumerate(PAPERS[:3])]  # watermarking: 2019-2021
    papers += [replace(p, year=2023) for p in PAPERS[3:]]  # the rest of the list is newer
    recent = _listing_of(papers).ask("Which recent papers study watermarking?")
    assert {c.paper.id for c in recent.citations} == {"w2", "w3"}
    assert "from 2020–2021, the latest here" in recent.text.splitlines()[0]


def test_a_bare_yes_or_no_is_followed_by_the_quoted_sentence_that_settles_it_also_when_streamed():
    honeytrace = paper(
        "h1",
        "Stealing deployed classifiers is a growing threat. We propose Neural Honeytrace, a plug-and-play"
        " watermarking framework that operates without retraining the protected model.",
    )
    reply = "No, Neural Honeytrace does not need to retrain the protected model [h1]."
    model = ScriptedChatModel(replies=[reply, reply], prompts=[])
    handle = LLMHandle("openai", model, "scripted")
    chain = AnswerChain(Settings(llm="openai"), FakeRetriever([honeytrace, *PAPERS]), handle)
    question = "Does Neural Honeytrace need to retrain the protected model?"
    shown: list[str] = []
    for on_token in (None, shown.append):
        answer = chain.ask(question, on_token=on_token)
        assert answer.mode == "generated" and answer.text.startswith(reply)
        quote = answer.text[len(reply) :]
        assert quote.startswith(" The paper writes: “") and quote.endswith("” [h1].")
        assert "a plug-and-play watermarking framework that operates without retraining" in quote
    assert "".join(shown).strip() == answer.text and not answer.revised  # streamed, not rewritten


def test_a_yes_or_no_that_says_more_than_the_question_or_a_wh_answer_gets_no_quote():
    replies = {
        "Does AudioMark survive compression?": "Yes, it survives compression of synthetic audio [w1].",
        "Which watermarking method survives compression?": "AudioMark survives compression [w1].",
    }
    for question, reply in replies.items():
        chain, _ = _chain([reply])
        answer = chain.ask(question)
        assert answer.mode == "generated" and "The paper writes" not in answer.text, question


def test_what_an_acronym_is_is_answered_by_the_sentence_spelling_it_out_not_one_merely_naming_it():
    veritas = paper(
        "v1",
        "In this paper, we introduce VideoVeritas, a framework for detecting generated video with PPRL."
        " To mitigate bias, we introduce Perception Pretext Reinforcement Learning (PPRL)."
        " Experiments show VideoVeritas trained with PPRL achieves balanced performance.",
    )
    chain = AnswerChain(
        Settings(llm="none"), FakeRetriever([veritas, *PAPERS]), LLMHandle("none", None, "none")
    )
    answer = chain.ask("what's PPRL in VideoVeritas?")
    assert answer.mode == "extractive" and "Perception Pretext Reinforcement Learning (PPRL)" in answer.text


def test_a_measurement_no_paper_gives_in_figures_is_declined_but_a_function_asked_for_is_quoted():
    mocoea = paper(
        "m1",
        "We introduce MoCo-EA, an evolutionary attack with a Bezier crossover on perturbations. We"
        " demonstrate three findings: (1) perturbations exhibit mode connectivity; (2) intermediate"
        " points transfer better than endpoints.",
    )
    scorex = paper("s1", "ScoreX replaces the learned score function with a kernel density estimate.")
    none = LLMHandle("none", None, "none")
    chain = AnswerChain(Settings(llm="none"), FakeRetriever([mocoea, scorex, *PAPERS]), none)
    assert chain.ask("What transfer success rate do MoCo-EA's intermediate perturbations reach?").abstained
    assert chain.ask("What score function does ScoreX use?").mode == "extractive"


def test_the_settling_quote_keeps_the_best_sentence_whatever_its_score_and_a_question_mark():
    from rag.answer.evidence import PaperEvidence, Sentence, settling_quote

    sentences = [
        Sentence("k1", 0, "Can X be trained without data?", -0.2, 0.1),
        Sentence("k1", 1, "Yes.", -0.5, 0.0),
    ]
    quote = settling_quote([PaperEvidence("k1", paper("k1", "x"), sentences)], ["k1"])
    assert quote == "The paper writes: “Can X be trained without data?” [k1]."


def test_a_quoted_answer_leads_with_the_sentence_naming_what_is_asked_not_the_scene_setting_one():
    from rag.answer import evidence as ev

    mintvid = (
        "The growing capability of video generation poses escalating risks for detection. We introduce"
        " MintVid, a dataset of 3K videos from 9 generators for detection."
    )
    quoted = ev.quoted_answer([_evidence("How many generators are in MintVid for detection?", mintvid)])
    assert quoted.startswith("We introduce MintVid, a dataset of 3K videos from 9 generators")
    # ... unless it opens with a pronoun: "It" reads only after what it stands for.
    foonet = "We propose FooNet, a detector of generated videos. It is trained on videos from 9 generators."
    quoted = ev.quoted_answer([_evidence("How many generators is FooNet trained on?", foonet)])
    assert quoted.startswith("We propose FooNet")
    ksvd = (
        "We propose KSVD-X with Gemma-2 for dictionary learning and interpretability. We evaluate KSVD-X"
        " for interpretability on the SAEBench benchmark."
    )
    asked = (
        "There's a paper on dictionary learning for interpretability. Which benchmark does it evaluate on?"
    )
    best = max(_evidence(asked, ksvd).sentences, key=lambda s: s.score)
    assert "SAEBench benchmark" in best.text  # the name written with what is asked leads


@pytest.mark.parametrize("llm", ["none", "openai"])
def test_a_fragment_asked_with_no_conversation_is_refused_with_how_to_ask_but_a_full_question_is_not(llm):
    from rag.answer.followup import NO_CONVERSATION

    reply = "AdaSCALE beats OptFS by 14.94% [o1]."
    model = None if llm == "none" else ScriptedChatModel(replies=[reply], prompts=[])
    chain = AnswerChain(Settings(llm=llm), FakeRetriever(PAPERS), LLMHandle(llm, model, llm))
    fragment = chain.ask("does it beat OptFS?")
    assert fragment.abstained and fragment.text == NO_CONVERSATION and fragment.citations == []
    full = chain.ask("By how much does AdaSCALE beat OptFS, and on what does it do so?")
    assert not full.abstained and "14.94" in full.text


@pytest.mark.parametrize("llm", ["none", "openai"])
def test_a_continuation_naming_only_a_topic_asked_first_lists_the_papers_on_it(llm):
    model = None if llm == "none" else ScriptedChatModel(replies=[], prompts=[])
    chain = AnswerChain(Settings(llm=llm), FakeRetriever(TWO_KINDS), LLMHandle(llm, model, llm))
    answer = chain.ask("what about watermarking?")  # no conversation to continue: about the topic
    assert answer.mode == "listing" and answer.text.startswith("10 papers on watermarking:")
    assert chain.ask("and on which benchmark?").abstained  # a question, not a topic


def test_a_question_for_a_papers_main_idea_is_answered_with_what_it_proposes():
    papers = [
        paper("h1", "Agents leak memories to attackers. We propose HoneyMem, a defense that plants decoy "
              "documents in agent memory. HoneyMem adds no latency."),
        *PAPERS,
    ]  # fmt: skip
    chain = AnswerChain(Settings(llm="none"), FakeRetriever(papers), LLMHandle("none", None, "none"))
    for asked in ("What is the main idea of HoneyMem?", "What is the key contribution of HoneyMem?"):
        answer = chain.ask(asked)  # "main", "idea" are no words a sentence of it must share
        assert not answer.abstained and answer.text.startswith("We propose HoneyMem, a defense")


def test_what_a_named_paper_is_or_proposes_is_answered_with_its_contribution_not_its_background():
    papers = [
        paper("h1", "Large language models have shown the potential to plan. Yet they cannot issue motor "
              "commands. This paper proposes TapLoco, an interface of foot contact patterns between "
              "language and a locomotion controller. Results transfer to real robots.",
              title="TapLoco: Language to Quadrupedal Locomotion"),
        *PAPERS,
    ]  # fmt: skip
    chain = AnswerChain(Settings(llm="none"), FakeRetriever(papers), LLMHandle("none", None, "none"))
    for asked in ("What does TapLoco propose?", "What is TapLoco?"):
        answer = chain.ask(asked)
        assert answer.text.startswith("This paper proposes TapLoco"), (asked, answer.text)
    from rag.answer import evidence as ev

    # a concept no paper is named by is asked for its definition, background or not
    assert not ev._asks_what_a_paper_is("What is RLHF?", {"h1": papers[0]})
    assert ev._asks_what_a_paper_is("What is TapLoco?", {"h1": papers[0]})


def test_a_question_about_a_papers_code_is_answered_by_its_link_and_declined_without_one():
    papers = [
        paper("c1", "We propose GraphPrune, a pruning method for graph networks. "
              "Code is available at https://github.com/example/graphprune."),
        paper("c2", "We propose TreePrune, a pruning method for decision trees that keeps accuracy."),
        *PAPERS,
    ]  # fmt: skip
    chain = AnswerChain(Settings(llm="none"), FakeRetriever(papers), LLMHandle("none", None, "none"))
    linked = chain.ask("Is the code for GraphPrune available?")
    assert not linked.abstained and "https://github.com/example/graphprune" in linked.text
    assert chain.ask("Is the code for TreePrune available?").abstained  # no link: not "we propose"
    from rag.answer.evidence import _ASKS_FOR_CODE

    assert not _ASKS_FOR_CODE.search("How does GraphPrune detect malicious URLs?")
    assert not _ASKS_FOR_CODE.search("Does the code generation model find the tests?")


def test_a_continuation_naming_a_paper_the_conversation_did_not_cite_is_asked_of_that_paper():
    from rag.records import Turn

    chain = AnswerChain(Settings(llm="none"), FakeRetriever(PAPERS), LLMHandle("none", None, "none"))
    earlier = chain.ask("What is AudioMark?")
    history = [Turn("What is AudioMark?", earlier.text, tuple(c.paper.id for c in earlier.citations))]
    assert history[0].papers == ("w1",)
    switched = chain.ask("What about PanoMark?", history=history)  # "What is PanoMark?"
    assert not switched.abstained and [c.paper.id for c in switched.citations] == ["w2"]


@pytest.mark.parametrize("llm", ["none", "openai"])
def test_who_wrote_a_paper_is_answered_from_the_lists_authors_and_says_when_it_has_none(llm):
    from dataclasses import replace

    from rag.answer.intent import asks_for_authors

    tree = paper("t1", "We propose TreePrune, a pruning method for trees.", title="TreePrune")
    authored = replace(tree, authors=("Ada Lee", "Bo Chen"))
    bare = paper("m1", "We propose MarkNet, a watermark for speech.", title="MarkNet")
    rival = paper("r1", "We propose LeafCut, which beats TreePrune on forests.", title="LeafCut")
    model = None if llm == "none" else ScriptedChatModel(replies=[], prompts=[])  # no model call
    papers = [authored, bare, rival, *PAPERS]
    chain = AnswerChain(Settings(llm=llm), FakeRetriever(papers), LLMHandle(llm, model, llm))
    answer = chain.ask("Who are the authors of TreePrune?")  # not LeafCut's, which names it too
    assert answer.text == "“TreePrune” is by Ada Lee and Bo Chen [t1]."
    assert [c.paper.id for c in answer.citations] == ["t1"]
    assert chain.ask("Who wrote MarkNet?").text == "The paper list records no authors for “MarkNet” [m1]."
    assert not asks_for_authors("Who proposed dropout?")  # who had an idea: no author field says


def test_an_amount_a_paper_never_names_and_a_coined_acronym_another_paper_spells_do_not_answer():
    from rag.answer import evidence as ev
    from rag.retrieval.relevance import TermWeights
    from rag.settings import AnswerSettings, RetrievalSettings
    from rag.text import lexical_terms

    # It writes "size" and a figure, but never "batch": its "10 datasets" is no batch size.
    dla = "We propose DLA, a linear attention whose state size is bounded. We evaluate DLA on 10 datasets."
    asked = "What is the batch size used by DLA?"
    assert not _evidence(asked, dla, rare="dla").answers
    assert _evidence("How many datasets is DLA evaluated on?", dla, rare="dla").answers
    # Another paper's words spelling D-L-A do not name the DLA that a retrieved paper writes.
    spells = "We propose SparseDict, a scalable dictionary learning algorithm. It runs in 3 hours."
    question = "How long does DLA take to run?"
    terms = lexical_terms(question)
    weights = TermWeights.from_counts(
        terms, {t: 1 if t == "dla" else 500 for t in terms}, 1000, RetrievalSettings()
    )
    keyed = {"p1": paper("p1", dla), "p2": paper("p2", spells)}
    found = {e.key: e for e in ev.gather(question, keyed, None, weights, tuning=AnswerSettings())}
    assert found["p2"].missing == ("dla",) and not found["p2"].answers
    alone = ev.gather(question, {"p2": paper("p2", spells)}, None, weights, tuning=AnswerSettings())[0]
    assert alone.missing == ()  # with no paper naming DLA, the spelled-out words may be it


def test_a_question_with_no_word_at_all_says_so_rather_than_that_it_leans_on_another():
    from rag.answer.followup import NO_WORDS

    chain = AnswerChain(Settings(llm="none"), FakeRetriever(PAPERS), LLMHandle("none", None, "none"))
    answer = chain.ask("🔥🔥🔥?")
    assert answer.abstained and answer.text == NO_WORDS


def test_a_paper_id_in_a_question_is_read_as_the_papers_name():
    papers = [paper("mk-01", "We propose AudioMark, a watermark for speech.", title="AudioMark"), *PAPERS]
    chain = AnswerChain(Settings(llm="none"), FakeRetriever(papers), LLMHandle("none", None, "none"))
    assert chain.named_ids("What does [mk-01] propose?") == "What does AudioMark propose?"
    assert chain.named_ids("Does GPT-4 beat mk-02?") == "Does GPT-4 beat mk-02?"  # no such papers
    underscored = [paper("_gZLyRGGuo", "We propose AudioMark.", title="AudioMark"), *PAPERS]
    chain_ = AnswerChain(Settings(llm="none"), FakeRetriever(underscored), LLMHandle("none", None, "none"))
    assert chain_.named_ids("What does [_gZLyRGGuo] propose?") == "What does AudioMark propose?"
    answer = chain.ask("What does mk-01 propose?")
    assert not answer.abstained and [c.paper.id for c in answer.citations] == ["mk-01"]
    assert answer.question == "What does mk-01 propose?"  # as asked


def test_a_draft_citing_papers_that_never_write_a_name_the_question_asks_about_is_withheld():
    games = paper(
        "g1", "We propose PlayNet, an imitation learner that beats behaviour cloning on Connect4 games."
    )
    reply = "PlayNet beats behaviour cloning on Connect4 games [g1]."
    for question, withheld in {
        "How does PlayNet, the imitation learner, do against behaviour cloning on StarCraft games?": (
            "the cited papers never write “StarCraft”, which the question names"
        ),
        "How does PlayNet, the imitation learner, do against behaviour cloning on Connect4 games?": None,
    }.items():
        model = ScriptedChatModel(replies=[reply, "no"], prompts=[])
        chain = AnswerChain(
            Settings(llm="openai"), FakeRetriever([games, *PAPERS]), LLMHandle("openai", model, "s")
        )
        answer = chain.ask(question)
        assert answer.withheld == withheld and answer.abstained is (withheld is not None), question


def test_a_follow_up_asked_in_another_collection_says_the_conversations_papers_are_not_there():
    from rag.records import Turn

    chain = AnswerChain(
        Settings(llm="none", collection="other"), FakeRetriever(PAPERS), LLMHandle("none", None, "none")
    )
    earlier = Turn("What is Q-Transformer?", "Q-Transformer scales offline RL [zz-99].", ("zz-99",))
    answer = chain.ask("how does it represent Q-values?", history=[earlier])
    assert answer.abstained and not answer.citations
    assert answer.text.startswith(
        "The papers this conversation cited (zz-99) are not in the collection searched now (other)"
    )
