"""Per-paper relevance: names match whole, rare terms are names, phrases and alternatives."""

from rag.retrieval.relevance import TermWeights, compounds_of, has_phrase, judge, topic_of
from rag.retrieval.topics import topic_parts
from rag.settings import RetrievalSettings
from rag.text import lexical_sequence, lexical_terms

from ..fakes import paper

TUNING = RetrievalSettings()  # the defaults

GPT2 = paper("p1", "Death rates are near zero on GPT-2 and over 70% on AlphaFold3.")
ADA = paper(
    "p2", "Accordingly, we introduce Adalina, a linear-space algorithm with improved mean squared error."
)


def _weights(query, papers):
    terms = lexical_terms(query)
    docs = [set(lexical_terms(p.abstract)) for p in papers]
    return terms, TermWeights.from_counts(terms, {t: sum(t in d for d in docs) for t in terms}, 200, TUNING)


def test_a_versioned_name_matches_only_whole():
    query = "What accuracy does GPT-5 reach on MMLU?"
    terms, weights = _weights(query, [GPT2, ADA])
    assert compounds_of(query) == {"gpt": ["gpt-5"]}
    assert judge(query, terms, GPT2, 0.1, weights).names == ()


def test_a_rare_term_in_any_casing_is_a_name_match():
    query = "what does adalina explicitly minimize?"
    terms, weights = _weights(query, [GPT2, ADA])
    assert judge(query, terms, ADA, 0.05, weights).names == ("adalina",)


def test_phrases_alternatives_and_filler():
    assert has_phrase(lexical_sequence("reward models"), lexical_sequence("a process reward model for code"))
    assert not has_phrase(
        lexical_sequence("reward models"), lexical_sequence("reward distributions of models")
    )
    # "LLM-based agents" are LLM agents; a phrase holding the connector reads it as written.
    assert has_phrase(lexical_sequence("LLM agents"), lexical_sequence("attacks on LLM-based agents"))
    assert has_phrase(lexical_sequence("data-driven control"), lexical_sequence("a data-driven control law"))
    assert not has_phrase(lexical_sequence("base models"), lexical_sequence("the models we base it on"))
    assert topic_parts("supervised or unsupervised learning") == [
        "supervised or unsupervised learning",
        "supervised learning",
        "unsupervised learning",
    ]
    assert topic_parts("model compression (pruning and quantization)") == [
        "model compression (pruning and quantization)", "model compression", "pruning", "quantization",
    ]  # fmt: skip
    assert topic_of("new watermarking methods") == "watermarking"
    # the preposition its filler leaves in front is no part of the topic; a word it starts is
    assert topic_of("approaches to federated learning") == "federated learning"
    assert topic_of("methods for pruning") == "pruning"
    assert topic_of("on-device learning") == "on-device learning"
    assert topic_of("in context learning") == "in context learning"  # no filler went before it


def test_a_term_no_chunk_contains_weighs_most():
    _, weights = _weights("quantum watermarking", [paper("p", "watermarking of audio")])
    assert weights.weights["quantum"] > weights.weights["watermark"] and "quantum" in weights.absent


def test_a_coined_name_whose_stem_is_a_common_word_is_still_a_name_match():
    from rag.retrieval.relevance import with_coined

    traces = paper("t1", "We propose **TraCeS** (Trajectory-based Constraint Estimation for Safety).")
    logs = paper("t2", "We study execution traces of agents.")
    query = "What is TraCeS short for?"
    terms = lexical_terms(query)
    common = TermWeights.from_counts(terms, {"trace": 150, "short": 40}, 200, TUNING)  # "trace" is everywhere
    assert judge(query, terms, traces, 0.1, common).names == ()  # the stem alone is no name
    weights = with_coined(common, query, [traces.abstract, logs.abstract], TUNING)
    assert judge(query, terms, traces, 0.1, weights).names == ("TraCeS",)
    assert judge(query, terms, logs, 0.1, weights).names == ()


def test_a_coined_name_many_candidates_write_is_not_evidence_of_one_paper():
    from rag.retrieval.relevance import with_coined

    query = "What accuracy does TraCeS reach on ImageNet?"
    terms = lexical_terms(query)
    texts = [f"Paper {n} evaluates on ImageNet." for n in range(5)]
    weights = with_coined(TermWeights.from_counts(terms, {}, 200, TUNING), query, texts, TUNING)
    assert weights.coined == frozenset({"TraCeS"})


def test_a_capitalised_word_is_a_name_mid_sentence_but_not_where_a_sentence_starts():
    from rag.retrieval.relevance import name_terms

    question = (
        "There is a paper on 3DGS provenance. Besides statistical profiles, what does Anchors give the LLM?"
    )
    assert name_terms(question) == {"3dgs", "anchor", "llm"}
    assert name_terms("Does OptFS help? (Besides, is it fast?)") == {"optf"}
    # An abbreviation's or a colon's stop starts no sentence.
    assert name_terms("Does X beat baselines, e.g. Mamba, or FlashAttention vs. Mamba?") == {
        "mamba",
        "flashattent",
    }
    assert name_terms("Two explainers: Anchors and LIME") == {"anchor", "lime"}
