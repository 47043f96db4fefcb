"""Topic selection learns a subfield's vocabulary from the collection and stops where the topic's own
scores say (fake bag-of-words embedder; the real index is tested in tests/integration)."""

from __future__ import annotations

import itertools

import numpy as np

from rag.retrieval.topics import likely_first, rank_topic, selected, topic_parts
from rag.settings import Settings, TopicSettings
from rag.text import lexical_sequence

from ..fakes import FakeEmbedder, paper

TUNING = TopicSettings()  # the defaults

NAMED = [
    paper("n0", "Graph neural networks pass messages over node features to predict molecule properties."),
    paper("n1", "We bound the expressive power of graph neural networks by the Weisfeiler-Lehman test."),
    paper("n2", "Graph neural networks for node classification aggregate node features from neighbours."),
    paper("n3", "A scalable sampler trains graph neural networks on large graphs with message passing."),
    paper("n4", "Graph neural networks oversmooth node features; we add edge features to message passing."),
    paper("n5", "Explaining graph neural networks by the edges that matter for node classification."),
    # Names the topic in passing: the weakest core paper, which sets where the topic stops.
    paper("n6", "Unlike graph neural networks, our sampling method for speech retrieval needs no structure."),
]
VOCABULARY = [  # the subfield's words, never its name ("graph neural network")
    paper(
        "v1",
        "Message passing over molecular graphs with node and edge features predicts molecule properties.",
    ),
    paper(
        "v2",
        "Node classification on citation graphs aggregates node features from neighbours by message passing.",
    ),
]
OTHER = [
    paper(f"o{i}", f"A {w} method for {x} reaches higher accuracy on standard {y} benchmarks.")
    for i, (w, x, y) in enumerate(
        itertools.product(("sampling", "pruning", "tokenizer", "bandit"), ("speech", "vision", "audio"),
                          ("retrieval", "translation"))
    )
]  # fmt: skip


def _rank(topic: str, papers, tuning: TopicSettings = TUNING):
    embedder = FakeEmbedder()
    vectors = np.asarray([embedder.embed_query(f"{p.title} {p.abstract}") for p in papers], np.float32)
    terms = [lexical_sequence(f"{p.title} {p.abstract}") for p in papers]
    ranking = rank_topic(embedder, topic, vectors, terms, tuning=tuning)
    return [papers[i].id for i in ranking.order], ranking


def test_papers_using_the_subfields_vocabulary_without_its_name_are_selected_and_others_are_not():
    chosen, ranking = _rank("graph neural networks", NAMED + VOCABULARY + OTHER)
    assert ranking.core == len(NAMED)
    assert set(chosen) == {p.id for p in NAMED + VOCABULARY}
    assert chosen.index("v1") < chosen.index("n6") and chosen.index("v2") < chosen.index("n6")


def test_a_topic_no_paper_names_selects_nothing():
    chosen, ranking = _rank("quantum error correction", NAMED + VOCABULARY + OTHER)
    assert chosen == [] and ranking.core == 0


def test_too_small_a_core_is_the_whole_selection():
    chosen, ranking = _rank("graph neural networks", NAMED[:2] + VOCABULARY + OTHER)
    assert set(chosen) == {"n0", "n1"} and ranking.core == 2


def test_the_stop_ignores_a_core_paper_far_below_the_rest_of_the_core():
    score = np.array([10.0, 9.5, 9.0, 9.2, 9.4, -20.0, 5.0, 1.0])
    core = np.array([True, True, True, True, True, True, False, False])
    order = selected(score, core, tuning=TUNING)
    assert list(order[:5]) == [0, 1, 4, 3, 2] and 5 in order  # the outlier stays (it names the topic)
    assert 6 not in order and 7 not in order  # a fence, not the outlier, sets the stop


def test_a_wider_fence_setting_moves_the_stop_down():
    score = np.array([10.0, 9.5, 9.0, 9.2, 9.4, -20.0, 5.0, 1.0])
    core = np.array([True, True, True, True, True, True, False, False])
    wide = Settings(topic_fence=10.0).topics  # the core's quartiles are 9.05 and 9.475
    order = selected(score, core, tuning=wide)
    assert 6 in order and 7 not in order


def test_in_a_conference_a_tight_core_also_takes_papers_scoring_a_share_of_its_first_quartile():
    rng = np.random.default_rng(0)
    score = np.concatenate([[20.0, 21.0, 22.0, 23.0, 24.0], [9.0, 7.0], rng.normal(0.0, 1.0, 400)])
    core = np.zeros(len(score), dtype=bool)
    core[:5] = True
    z_topic = np.concatenate([[5.0] * 5, [4.0, 4.0], rng.normal(0.0, 1.0, 400)])
    order = selected(score, core, z_topic, tuning=TUNING)  # the fence: 21 - 1.5 * 2 = 18
    assert 5 in order and 6 not in order  # 9 is over 0.38 of 21 (8.0), 7 is not
    off = selected(score, core, z_topic, tuning=Settings(topic_floor_share=1.0).topics)
    assert 5 not in off and len(off) == 5


def test_in_a_conference_core_papers_and_the_top_scorers_come_first_as_likely_and_the_rest_follow():
    rng = np.random.default_rng(1)
    score = np.concatenate([[30.0, 3.0, 25.0, 24.0, 23.0], [22.0, 9.0, 8.5], rng.normal(0.0, 1.0, 392)])
    core = np.zeros(len(score), dtype=bool)
    core[:5] = True  # one core paper (3.0) scores below two papers outside the core
    order = np.array([0, 2, 3, 4, 5, 6, 7, 1])  # as selected: best first
    ranked, likely = likely_first(order, score, core, tuning=TUNING)
    # 97th percentile of 400 scores: the twelfth best, about 1.9; 8.5 and 9 are above it too
    assert likely == 8 and list(ranked) == [0, 2, 3, 4, 5, 6, 7, 1]
    strict = Settings(topic_likely_percentile=98.75).topics  # the bar: between 9 and 22
    ranked, likely = likely_first(order, score, core, tuning=strict)
    assert likely == 6 and list(ranked) == [0, 2, 3, 4, 5, 1, 6, 7]  # the core paper first
    small = score[:8]  # a short list is never split
    ranked, likely = likely_first(order, small, core[:8], tuning=strict)
    assert np.array_equal(ranked, order) and likely == 8
    few = np.zeros(len(score), dtype=bool)
    few[:2] = True  # a core too small to learn from: the selection is not split either
    ranked, likely = likely_first(order, score, few, tuning=strict)
    assert np.array_equal(ranked, order) and likely == 8


def test_topic_parts_split_alternatives_and_borrow_the_head_noun():
    assert topic_parts("offline or online reinforcement learning") == [
        "offline or online reinforcement learning",
        "offline reinforcement learning",
        "online reinforcement learning",
    ]


def test_a_parenthesis_inside_a_topic_is_an_aside_of_its_phrase_not_a_part_of_its_own():
    # A modifier: another way to say the same head ("optimization" alone was a part).
    assert topic_parts("minimax or adversarial (robust) training") == [
        "minimax or adversarial (robust) training",
        "minimax training",
        "adversarial training",
        "robust training",
    ]
    # An acronym the words before it spell is left out; "for molecules" stays in the phrase.
    spelled = topic_parts("graph neural networks (GNNs) for molecules")
    assert spelled[1:] == ["graph neural networks for molecules"]
    # After "or", as in front: optional; an aside of examples is left out.
    either = topic_parts("pruning or (structured) sparsity")
    assert either[1:] == ["pruning", "structured sparsity", "sparsity"]
    assert topic_parts("diffusion (e.g. DDPM) for audio")[1:] == ["diffusion for audio"]
    # In front, an optional modifier.
    assert topic_parts("(robust) graph matching")[1:] == ["robust graph matching", "graph matching"]
    # At the end, a parenthesis still lists alternatives.
    assert topic_parts("model compression (pruning)")[1:] == ["model compression", "pruning"]


def test_acronyms_the_collection_defines_are_learned_and_spelled_out_in_a_topic():
    from rag.retrieval.topics import expand_acronyms
    from rag.text import acronyms_in

    found = acronyms_in(
        [
            "We train graph neural networks (GNNs) on molecules.",
            "Multi-agent reinforcement learning (MARL) needs coordination; reinforcement learning (RL) too.",
            "Graph neural networks (GNN) again, and a stray (XYZ) with no expansion.",
            "A wide multilayer perceptron (MLP) and a variational autoencoder (VAE).",  # closed compounds
        ]
    )
    assert found["mlp"][0] == "multilayer perceptron" and found["vae"][0] == "variational autoencoder"
    assert (
        found["gnn"] == ("graph neural networks", 2)
        and found["marl"][0] == "multi-agent reinforcement learning"
    )
    assert "xyz" not in found
    assert expand_acronyms(["deep RL", "GNNs"], found) == [
        "deep RL", "GNNs", "deep reinforcement learning", "graph neural networks",
    ]  # fmt: skip


def test_in_a_conference_a_paper_using_a_term_the_model_named_joins_the_core_but_a_common_term_does_not():
    near = [  # near the topic in meaning, never naming it
        paper("m1", "Neural message passing on graphs classifies nodes."),
        paper("m2", "Message passing networks over graphs of molecules."),
    ]
    papers = NAMED[:3] + near + OTHER
    embedder = FakeEmbedder()
    vectors = np.asarray([embedder.embed_query(f"{p.title} {p.abstract}") for p in papers], np.float32)
    terms = [lexical_sequence(f"{p.title} {p.abstract}") for p in papers]
    conference = Settings(topic_small_list=0).topics  # these papers read as a conference's
    plain = rank_topic(embedder, "graph neural networks", vectors, terms, tuning=conference)
    helped = rank_topic(
        embedder, "graph neural networks", vectors, terms, expansions=["message passing"], tuning=conference
    )
    assert helped.core == plain.core + 2  # m1 and m2 pass messages
    # "accuracy" is in every paper: a guess that general adds nothing.
    general = rank_topic(
        embedder, "graph neural networks", vectors, terms, expansions=["higher accuracy"], tuning=conference
    )
    assert general.core == plain.core
    # In a short list the model's terms add no core paper: a few more took the fence's stop past
    # most of the list ("recurrent or state-space alternatives to Transformers": 127 of 299).
    short = rank_topic(
        embedder, "graph neural networks", vectors, terms, expansions=["message passing"], tuning=TUNING
    )
    assert short.core == rank_topic(embedder, "graph neural networks", vectors, terms, tuning=TUNING).core


def test_the_core_vocabulary_ranks_a_paper_speaking_it_above_one_that_does_not():
    from rag.retrieval.topics import core_vocabulary

    papers = NAMED + VOCABULARY + OTHER
    terms = [lexical_sequence(f"{p.title} {p.abstract}") for p in papers]
    core = np.array([p.id in {"n0", "n1", "n2", "n3", "n4", "n5"} for p in papers])
    uses, words = core_vocabulary(core, terms, TUNING)
    assert "node" in words and "accuraci" not in words
    assert uses[papers.index(VOCABULARY[1])] > uses[papers.index(OTHER[0])] == 0


def test_the_core_direction_ranks_papers_sharing_what_sets_the_core_apart_above_the_rest():
    from rag.retrieval.topics import core_direction

    rng = np.random.default_rng(1)
    vectors = rng.normal(0.0, 1.0, (400, 16))
    vectors[:20, 3] += 4.0  # the core and its unnamed peers stand apart in one dimension
    vectors[:, 5] *= 6.0  # a dimension in which every paper varies widely says nothing of the topic
    core = np.zeros(400, dtype=bool)
    core[:10] = True
    along = core_direction(vectors, core, TUNING)
    assert along[10:20].min() > np.median(along[20:])
    unwhitened = core_direction(vectors, core, TopicSettings(direction_shrinkage=1e6))
    whitened = core_direction(vectors, core, TopicSettings(direction_shrinkage=0.0))

    def above(along):  # share of the rest the weakest unnamed peer ranks above
        return np.mean(along[10:20].min() > along[20:])

    assert above(whitened) > above(unwhitened)  # the discriminant discounts the wide dimension


def test_the_core_direction_is_finite_for_fewer_papers_than_dimensions_and_for_a_core_of_all():
    from rag.retrieval.topics import core_direction

    vectors = np.random.default_rng(2).normal(0.0, 1.0, (30, 64)).astype(np.float32)
    few = np.zeros(30, dtype=bool)
    few[:3] = True
    assert np.isfinite(core_direction(vectors, few, TopicSettings(direction_shrinkage=0.0))).all()
    assert np.allclose(core_direction(vectors, np.ones(30, dtype=bool), TUNING), 0.0, atol=1e-4)


def test_the_core_direction_scores_a_conference_but_not_a_short_list():
    papers = NAMED + VOCABULARY + OTHER
    _, off = _rank("graph neural networks", papers, TopicSettings(weight_direction=0.0))
    _, on = _rank("graph neural networks", papers)
    assert np.allclose(off.score, on.score)  # a short list: the weight changes nothing
    _, off = _rank("graph neural networks", papers, TopicSettings(small_list=10, weight_direction=0.0))
    _, on = _rank("graph neural networks", papers, TopicSettings(small_list=10))
    assert not np.allclose(off.score, on.score)


def test_a_one_word_noun_part_is_a_topic_of_its_own_and_borrows_no_head():
    assert topic_parts("pruning, quantization and lottery tickets") == [
        "pruning, quantization and lottery tickets", "pruning", "quantization", "lottery tickets",
    ]  # fmt: skip
    assert topic_parts("distributed or federated learning")[1:] == [
        "distributed learning", "federated learning",
    ]  # fmt: skip


def test_an_acronym_the_collection_defines_once_is_read_as_the_field_writes_it():
    from rag.retrieval.topics import expand_acronyms

    once = {"gnn": ("gated neural networks", 1)}
    twice = {"gnn": ("gated neural networks", 2)}
    assert expand_acronyms(["GNN"], once) == ["GNN", "graph neural networks"]
    assert expand_acronyms(["GNNs"], twice) == ["GNNs", "gated neural networks"]  # the collection's usage
    assert expand_acronyms(["NAS"], {}) == ["NAS", "neural architecture search"]  # not "NA" + plural s
    assert expand_acronyms(["XYZ", "gnn"], once) == ["XYZ", "gnn"]  # unknown, or not written as one


def _conference(seed: int, nearer: dict[tuple[int, int], float], n: int = 400, dim: int = 32):
    """A synthetic conference: a topic vector, ``n`` random unit paper vectors of which the rows
    ``a:b`` of each ``nearer`` key are moved towards the topic by its value, and terms that name
    nothing (tests put the topic's words where they need them)."""
    rng = np.random.default_rng(seed)
    topic = np.zeros(dim, np.float32)
    topic[0] = 1.0
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    for (a, b), shift in nearer.items():
        vectors[a:b, 0] += shift
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return topic, vectors, [["other", f"w{i}"] for i in range(n)]


def test_a_conference_core_too_small_to_learn_from_is_topped_up_with_the_strongest_dense_matches():
    from rag.retrieval.topics import score_papers

    # two papers naming the topic, ten nearer it in meaning that do not name it, four near it but
    # less than the papers naming it
    topic, vectors, terms = _conference(0, {(0, 2): 4.0, (2, 12): 6.0, (12, 16): 2.0})
    terms[0] = terms[1] = ["lifelong", "learning", "agent"]
    parts_terms = [["lifelong", "learning"]]
    _, core, _ = score_papers(
        topic[None, :], parts_terms, vectors, terms, tuning=Settings(topic_core_least=0).topics
    )
    assert set(np.flatnonzero(core)) == {0, 1}  # as before: only the papers naming it
    _, core, _ = score_papers(topic[None, :], parts_terms, vectors, terms, tuning=TUNING)
    assert set(np.flatnonzero(core)) == set(range(12))  # topped up to topic_core_least by meaning,
    # with papers as near as those naming it (12-15, less near, are left to the stop to judge)
    _, core, _ = score_papers(
        topic[None, :], parts_terms, vectors, terms, tuning=Settings(topic_core_least=16).topics
    )
    assert set(np.flatnonzero(core)) == set(range(12))  # room for 16, but 12-15 are less near than 0-1 are
    small = [t[:] for t in terms[:200]]
    _, core, details = score_papers(topic[None, :], parts_terms, vectors[:200], small, tuning=TUNING)
    assert set(np.flatnonzero(core)) == {0, 1}  # a short list learns from the papers naming it alone
    # and lists with them the matches nearer the topic than both (paper 0: z 3.3), not 7 and 8 (3.1,
    # 3.2: above the two's median)
    assert set(np.flatnonzero(details["joined"])) == {2, 3, 4, 5, 6, 9, 10, 11}
    no_room = Settings(topic_core_least=0).topics  # no top-up: none joins (not all but the last two)
    _, _, details = score_papers(topic[None, :], parts_terms, vectors[:200], small, tuning=no_room)
    assert not details["joined"].any()


def test_one_core_paper_far_above_the_papers_holding_the_topics_words_does_not_stop_the_top_up():
    from rag.retrieval.topics import score_papers

    # the one paper writing the topic as a phrase, a far stronger match; thirty holding its words
    # apart, a little nearer than most; twelve nearer in meaning, without its words
    topic, vectors, terms = _conference(1, {(0, 1): 9.0, (1, 31): 0.8, (31, 43): 4.0})
    terms[0] = ["deep", "learn", "theori", "bound"]
    for i in range(1, 31):
        terms[i] = ["theori", "deep", "learn"]
    _, core, _ = score_papers(topic[None, :], [["deep", "learn", "theori"]], vectors, terms, tuning=TUNING)
    # Topped up to topic_core_least by meaning (the bar is the median of the papers naming it,
    # not the one core paper's own match), mostly with the twelve nearer papers.
    assert core[0] and core.sum() == TUNING.core_least and core[31:43].sum() >= TUNING.core_least - 2


def test_a_rare_word_of_a_topic_another_word_of_which_no_paper_writes_names_nothing():
    from rag.retrieval.topics import score_papers

    # "dark matter" in a conference: no paper writes "dark"; three write "no matter how", a little
    # nearer the topic than most; twelve are its strongest (still weak) dense matches
    topic, vectors, terms = _conference(2, {(0, 3): 0.8, (3, 15): 1.5})
    for i in range(3):
        terms[i] = ["matter", "how", "model"]
    _, core, _ = score_papers(topic[None, :], [["dark", "matter"]], vectors, terms, tuning=TUNING)
    assert not core.any()  # nothing names the topic, so nothing is topped up around it
    # one paper on "dark" data writes the other word: each word is written, the topic nowhere
    terms[20] = ["dark", "energy"]
    _, core, _ = score_papers(topic[None, :], [["dark", "matter"]], vectors, terms, tuning=TUNING)
    assert not core.any()
    # the same three papers name a topic some paper writes whole
    terms[20] = ["dark", "matter", "halo"]
    _, core, _ = score_papers(topic[None, :], [["dark", "matter"]], vectors, terms, tuning=TUNING)
    assert core[:3].all()


def test_a_rare_name_the_topic_writes_names_it_though_no_paper_writes_the_whole_topic():
    from rag.retrieval.topics import score_papers

    # "AutoML optimization" (a one-word part borrows the head): two papers write "AutoML", a
    # little nearer the topic than most; none writes both words
    topic, vectors, terms = _conference(2, {(0, 2): 0.8})
    terms[0] = terms[1] = ["automl", "search", "model"]
    parts = [["automl", "optim"]]
    _, core, _ = score_papers(topic[None, :], parts, vectors, terms, tuning=TUNING)
    assert not core[:2].any()
    named = frozenset({"automl"})
    _, core, _ = score_papers(topic[None, :], parts, vectors, terms, tuning=TUNING, names=named)
    assert core[:2].all()


def test_in_a_short_list_a_rare_word_alone_makes_no_core_paper_without_more_of_the_topic():
    from rag.retrieval.topics import score_papers

    # 57 papers on "segment tumours in medical images": paper 0 writes only its rare word
    # "medical" and is a little nearer the topic than most; paper 1 writes it too and is a strong
    # dense match; paper 2, as near as paper 0, writes most of the topic's words
    topic, vectors, terms = _conference(1, {(1, 2): 3.0}, n=57)
    terms[0] = ["fair", "semi", "supervis", "medic", "data"]
    terms[1] = ["medic", "scan", "model"]
    terms[2] = ["segment", "tumour", "imag", "organ"]
    parts_terms = [["segment", "tumour", "medic", "imag"]]
    _, core, _ = score_papers(topic[None, :], parts_terms, vectors, terms, tuning=TUNING)
    assert not core[0] and core[1] and core[2]
    # in a conference a rare word is a name: there the same paper 0 is core
    topic, vectors, terms = _conference(1, {}, n=400)
    terms[0] = ["fair", "semi", "supervis", "medic", "data"]
    terms[9] = ["segment", "tumour", "medic", "imag"]  # some paper writes the whole topic
    _, core, _ = score_papers(topic[None, :], parts_terms, vectors, terms, tuning=TUNING)
    assert core[0]


def test_in_a_short_list_a_small_core_is_listed_with_the_stronger_dense_matches_near_its_papers():
    from rag.retrieval.topics import score_papers

    topic, vectors, terms = _conference(4, {}, n=57)
    basis = np.eye(32, dtype=np.float32)
    # paper 0 names the topic and is about something else too; paper 1 is nearer the topic than
    # paper 0 and close to it (a paper on the topic in other words); paper 2 is nearer still but
    # far from paper 0 (near the topic's words in meaning, on another subject)
    vectors[0] = basis[0] + 2.0 * basis[1]
    vectors[1] = basis[0] + 1.5 * basis[1]
    vectors[2] = basis[0] + 0.5 * basis[2] - 0.3 * basis[1]
    vectors[:3] /= np.linalg.norm(vectors[:3], axis=1, keepdims=True)
    terms[0] = ["embed", "watermark", "audio"]
    score, core, details = score_papers(
        topic[None, :], [["embed", "watermark"]], vectors, terms, tuning=TUNING
    )
    assert list(np.flatnonzero(core)) == [0]  # the two others learn nothing: the core stays one paper
    assert set(selected(score, core, details["z"], details["joined"], tuning=TUNING)) == {0, 1}


def test_a_topic_no_paper_names_takes_as_core_only_the_dense_matches_far_above_the_typical_paper():
    """A list where a third of the papers are within 0.5 cosine of the topic (language-model papers
    and "machine unlearning in language models"): only the two clearly nearer it are its core."""
    from rag.retrieval.topics import score_papers

    topic, vectors, _ = _conference(7, {(42, 200): 2.0}, n=200)  # the typical paper: cosine ~0.4
    basis = np.eye(32, dtype=np.float32)
    for i in range(40):  # the band: cosine ~0.55 to the topic
        vectors[i] = 0.66 * basis[0] + 0.75 * basis[1 + i % 31]
    vectors[40] = 0.95 * basis[0] + 0.3 * basis[1]
    vectors[41] = 0.93 * basis[0] + 0.35 * basis[2]
    vectors[:42] /= np.linalg.norm(vectors[:42], axis=1, keepdims=True)
    terms = [["word", f"w{i}"] for i in range(200)]
    _, core, _ = score_papers(
        topic[None, :], [["unlearn", "languag", "model"]], vectors, terms, tuning=TUNING
    )
    assert set(np.flatnonzero(core)) == {40, 41}
    # a reading list all on the topic: none stands out, and every strong match is the core
    reading = np.stack([0.75 * basis[0] + 0.6 * basis[1 + i] for i in range(12)])
    reading /= np.linalg.norm(reading, axis=1, keepdims=True)
    _, core, _ = score_papers(topic[None, :], [["unlearn"]], reading, terms[:12], tuning=TUNING)
    assert core.all()


def test_in_a_short_list_papers_writing_every_word_of_an_unnamed_topic_near_it_are_listed_alone():
    """No phrase, no rare word (each word in a fifth of the list): the three papers writing them all
    and near the topic are listed, not the ten far from it, nor what a core would reach."""
    from rag.retrieval.topics import score_papers

    topic, vectors, terms = _conference(6, {}, n=57)
    basis = np.eye(32, dtype=np.float32)
    for i in range(13):
        terms[i] = ["detect", "distribut", "out", f"w{i}"]  # every word, never in the topic's order
        # the first three near the topic (robust z 1-2, under a core's dense match), the rest away
        vectors[i] = (0.3 if i < 3 else -0.2) * basis[0] + basis[1 + i]
    vectors[:13] /= np.linalg.norm(vectors[:13], axis=1, keepdims=True)
    parts_terms = [["out", "distribut", "detect"]]
    score, core, details = score_papers(topic[None, :], parts_terms, vectors, terms, tuning=TUNING)
    assert core.sum() == 1  # one core paper: nothing is learned from the others
    assert set(selected(score, core, details["z"], details["joined"], tuning=TUNING)) == {0, 1, 2}
