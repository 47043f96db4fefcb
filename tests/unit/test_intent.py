"""Question intent: listing questions get every paper on the topic; the rest get an answer."""

import pytest

from rag.answer.intent import classify


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Which papers study watermarking?", "watermarking"),
        ("List the papers about differential privacy.", "differential privacy"),
        ("What work is there on multi-armed bandits?", "multi-armed bandits"),
        ("Give me an overview of the work on reward modeling.", "reward modeling"),
        ("Summarize the work on mechanistic interpretability.", "mechanistic interpretability"),
        ("Are there any papers on conformal prediction?", "conformal prediction"),
        ("Which papers propose watermarking methods, and for what kind of content?", "watermarking methods"),
        ("Which papers involve diffusion models?", "diffusion models"),
        ("Which papers work with point clouds?", "point clouds"),
        # a verb of how research is done frames the topic, as "study" does
        ("Which papers derive regret bounds for contextual bandits?", "regret bounds for contextual bandits"),
        ("Which papers develop defenses against jailbreaks?", "defenses against jailbreaks"),
        ("Which papers analyze or improve optimizers for transformers?", "optimizers for transformers"),
        # how else researchers ask, and where the papers are kept, are no part of the topic
        ("What is there on federated learning?", "federated learning"),
        ("What has been published here on model merging?", "model merging"),
        ("Are there papers with clinical applications?", "clinical applications"),
        ("Give me an overview of the fairness work in this list.", "fairness"),
        ("Summarize the work involving vision-language models.", "vision-language models"),
        ("What else is there on federated learning?", "federated learning"),
        ("Papers with medical applications?", "medical applications"),
        # after "on"/"about" a word of the frame's verbs is a noun of the topic
        ("Which papers are about report generation?", "report generation"),
        ("Are there papers on design of experiments?", "design of experiments"),
        ("Which papers use covering numbers?", "covering numbers"),
        # as a new user asked them (they were answered as factoids, or with "papers on" in the topic)
        ("Show me everything on meta-learning", "meta-learning"),
        ("What has been done on meta-learning?", "meta-learning"),
        ("What work has been done on meta-learning?", "meta-learning"),
        ("Anything on meta-learning?", "meta-learning"),
        ("What are the papers about meta-learning?", "meta-learning"),
        ("Which are the papers on meta-learning?", "meta-learning"),
        ("What are the meta-learning papers?", "meta-learning"),
        ("What are papers on meta-learning?", "meta-learning"),
        ("What are approaches to OOD detection?", "OOD detection"),
        ("Which approaches to OOD detection are there?", "OOD detection"),
        ("What are the federated learning papers?", "federated learning"),  # a participle in a topic
        ("What are the test-time adaptation papers?", "test-time adaptation"),
    ],
)
def test_listing_questions_are_recognised_with_their_topic(question, topic):
    intent = classify(question)
    assert intent.is_listing and intent.topic == topic


@pytest.mark.parametrize(
    "question",
    [
        "Which paper proposes a new protein structure predictor?",  # one paper: a factoid
        "By how much does AdaSCALE beat OptFS in near-OOD FPR@95?",
        "What does SOPE stand for?",
        "Which work trains a generative model on activations?",
        "What are the limitations of the papers?",  # "… papers" after a question of them
        "What are the two papers?",
        "What has been done to reduce memory in training?",  # "to": an end, not a topic
        # about one paper, or its results, however the new listing phrasings read them (a review)
        "What are the limitations of current methods?",
        "What are the results of the ablation studies?",
        "What are AdaSCALE's baseline methods?",
        "What are the methods on which AdaSCALE builds?",
        "What are the compared papers?",
        "What are the related works?",
        "What are the most cited papers?",
        "What are the top 5 papers?",
        # pointing back at the conversation: a follow-up, not a topic named "it"
        "What has been done on it?",
        "Anything on that?",
        "What are the papers about them?",
        "What has been done on its limitations?",
        "Anything on the same problem?",
        # papers ranked or judged, not named by a topic (a second review)
        "What are the best papers?",
        "What are the newest papers?",
        "What are the previous papers?",
        "What are the proposed works?",
    ],
)
def test_other_questions_are_factoids(question):
    assert not classify(question).is_listing


@pytest.mark.parametrize(
    ("question", "venue", "year"),
    [
        ("list all papers", None, None),
        ("What papers are there?", None, None),
        ("Which papers do you have?", None, None),
        ("What papers are in the collection?", None, None),
        ("Which papers are from ICML 2026?", "ICML", 2026),
        ("Show me all ICLR 2024 papers", "ICLR", 2024),
        ("Which papers are in this corpus?", None, None),
        ("What recent papers are there?", None, None),
        ("Which recent papers do you have?", None, None),
        ("Find all papers", None, None),
        ("How many papers are there?", None, None),
        ("How many recent papers are there?", None, None),
        ("How many papers?", None, None),
        ("Can you list all papers?", None, None),
        ("All ICML 2026 papers, please", "ICML", 2026),
        ("Which papers were published in ICML 2026?", "ICML", 2026),
        ("papers", None, None),
        ("What is there on the list?", None, None),
        ("What else is there in the collection?", None, None),
    ],
)
def test_a_question_for_the_papers_on_no_topic_asks_for_the_collection(question, venue, year):
    intent = classify(question)
    assert intent.is_catalogue and not intent.is_listing
    assert (intent.topic, intent.venue, intent.year) == ("", venue, year)


@pytest.mark.parametrize(
    ("question", "listing"),
    [
        ("Which papers study the index?", True),  # a topic after the verb, however it reads
        ("What papers use a library?", True),
        ("Which papers are about the index?", True),  # ... or after a preposition saying so
        ("List papers regarding the corpus", True),
        ("Which papers are related to the collection?", True),
        ("What papers are there on the index?", True),
        ("List corpus papers", True),
        ("Can you list the papers on watermarking?", True),
        ("How many papers study GNNs?", True),  # a count of a topic's papers: the listing says it
        ("Summarize the recent papers", False),  # a summary needs a subject: no catalogue
    ],
)
def test_a_topic_or_a_summary_frame_is_no_catalogue(question, listing):
    intent = classify(question)
    assert not intent.is_catalogue and intent.is_listing is listing


@pytest.mark.parametrize(
    ("question", "topic", "venue", "year"),
    [
        ("spiking network papers at NeurIPS 2019", "spiking network", "NeurIPS", 2019),
        ("the ICML 2022 work on causal discovery", "causal discovery", "ICML", 2022),
        ("Which ICLR 2019 papers use normalizing flows?", "normalizing flows", "ICLR", 2019),
        ("What did COLM 2025 publish on tokenizers?", "tokenizers", "COLM", 2025),
        ("recent work on neural radiance fields", "neural radiance fields", None, None),
        ("What has been published on symbolic regression?", "symbolic regression", None, None),
        ("list the graph transformer papers", "graph transformer", None, None),
        ("Summarize the kernel methods papers.", "kernel methods", None, None),
        ("point cloud segmentation at CVPR 2021", "point cloud segmentation", "CVPR", 2021),
        ("NIPS'17 papers on capsules", "capsules", "NeurIPS", 2017),
        # Words between "which/what" and "papers" are the topic, unless they only count or point.
        ("What speech recognition papers are there?", "speech recognition", None, None),
        (
            "Which graph neural network papers study oversmoothing?",
            "graph neural network oversmoothing",
            None,
            None,
        ),
        ("What robotics papers appeared at CoRL 2023?", "robotics", "CoRL", 2023),
        ("Which two papers study watermarking?", "watermarking", None, None),
        ("What other papers use LoRA?", "LoRA", None, None),
        ("What new pruning methods are proposed?", "pruning methods", None, None),
        ("Which GNN papers are in this collection?", "GNN", None, None),
        ("What methods do papers propose for pruning?", "pruning", None, None),  # many papers' methods
        ("Which GNN methods do the papers propose?", "GNN methods", None, None),
        ("What GNN papers are there, and which datasets do they use?", "GNN", None, None),
    ],
)
def test_listing_questions_as_researchers_phrase_them_give_the_topic_and_venue_year_filters(
    question, topic, venue, year
):
    intent = classify(question)
    assert (intent.kind, intent.topic, intent.venue, intent.year) == ("listing", topic, venue, year)


@pytest.mark.parametrize(
    "question",
    [
        "What accuracy does the model reach on ICLR benchmarks in 2021?",
        "How was the ICML 2024 test of time award chosen?",
    ],
)
def test_a_factoid_that_names_a_venue_stays_a_factoid(question):
    assert not classify(question).is_listing


@pytest.mark.parametrize(
    "question",
    [
        "What evaluation methods does AdaSCALE use?",  # one paper's methods
        "What methods does the sandbagging detector rely on?",
        "Which existing methods does AdaSCALE beat?",
        "What data augmentation methods are used in the paper?",
        "Which pruning methods were compared in the SparseGPT paper?",  # one named paper's methods
        "Which decoding methods are used by the TriForce paper?",
        "Which baselines methods does the recent study on pruning report?",
        "What recent papers are there?",  # no subject to list
        "What papers are there?",
        "What datasets do the papers use?",  # about the papers' contents, not a topic before "papers"
        "What evaluation metrics do the papers use?",
        "What percentage of papers use PyTorch?",
        "What kind of papers are in the collection?",
        "recent papers",  # framing words alone are no subject either
        "the latest work",
    ],
)
def test_methods_of_one_thing_and_a_listing_without_a_subject_are_not_listings(question):
    assert not classify(question).is_listing


def test_a_body_of_work_named_by_its_subject_is_still_listed():
    """ "the X work" is many papers; "the X paper" one, but papers building on it are many."""
    assert classify("Which methods are used in the recent work on pruning?").is_listing
    assert classify("Which pruning methods do the surveyed papers use?").is_listing
    assert classify("Which GNN papers build on the original GCN paper?").is_listing


def test_where_the_papers_are_kept_is_no_part_of_a_topic():
    assert classify("Which papers do you have on GNNs?").topic == "GNNs"


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("How many papers study watermarking?", "watermarking"),
        ("How many GAN papers are there?", "GAN"),
        ("How many works are about graph neural networks?", "graph neural networks"),
        ("How many papers on watermarking are there?", "watermarking"),
    ],
)
def test_how_many_papers_on_a_topic_is_a_listing_which_says_how_many(question, topic):
    intent = classify(question)
    assert intent.is_listing and intent.topic == topic


@pytest.mark.parametrize(
    "question", ["How many parameters does plugguard use?", "How many methods does the paper compare?"]
)
def test_how_many_of_something_else_stays_a_factoid(question):
    intent = classify(question)
    assert not intent.is_listing and not intent.is_catalogue


@pytest.mark.parametrize(
    ("question", "recent"),
    [
        ("What is the recent work on watermarking?", True),
        ("Which are the latest papers on GNNs?", True),
        ("Which papers study watermarking?", False),
        ("Which papers from 2023 study watermarking?", False),  # a year says when instead
        ("What is recent about AdaSCALE?", False),  # no listing
        ("Which papers study forgetting of recently learned tasks?", False),  # a word of the topic
    ],
)
def test_a_listing_of_recent_or_latest_work_asks_for_the_latest_years(question, recent):
    assert classify(question).recent is recent


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Whcih papers study watermarking?", "watermarking"),
        ("Which paprs study watermarking?", "watermarking"),
        ("Which papers stduy watermarking?", "watermarking"),
        ("Show me the shop papers", "shop"),  # an English word is no typo of a frame word
    ],
)
def test_a_typo_in_the_words_that_frame_a_listing_is_read_as_those_words(question, topic):
    intent = classify(question)
    assert intent.is_listing and intent.topic == topic


@pytest.mark.parametrize(
    ("question", "topic", "each"),
    [
        ("Which papers study pruning, and which nets do they prune?", "pruning", "which nets do they prune"),
        ("Which papers use graph transformers and for what tasks?", "graph transformers", "for what tasks"),
        ("What work is there on active learning, and how is it run?", "active learning", "how is it run"),
        ("Which papers study pruning and quantization?", "pruning and quantization", ""),
        ("Which papers study pruning, sparsity, and KD?", "pruning, sparsity, and KD", ""),
        ("Which papers work on spectral clustering?", "spectral clustering", ""),
    ],
)  # fmt: skip
def test_a_listing_keeps_what_it_asks_of_each_paper_apart_from_its_topic(question, topic, each):
    intent = classify(question)
    assert intent.is_listing and (intent.topic, intent.each) == (topic, each)


def test_a_factoid_asks_nothing_of_each_paper():
    assert classify("How does SpecNet cluster graphs, and what does it cost?").each == ""


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Which papers evaluate on ImageNet?", "ImageNet"),
        ("Which papers compare against diffusion models?", "diffusion models"),
        ("Which papers study in-context learning?", "in-context learning"),  # "in-": a word's part
        ("Which papers focus on in vitro models?", "in vitro models"),  # "in" before no name
    ],
)
def test_the_preposition_a_frame_verb_takes_is_no_part_of_the_topic(question, topic):
    assert classify(question).topic == topic


@pytest.mark.parametrize(
    ("question", "author", "venue"),
    [
        ("Which papers did Yejin Choi write?", "Yejin Choi", None),
        ("papers by Noah A. Smith", "Noah A. Smith", None),
        ("What has Y. Choi published?", "Y. Choi", None),
        ("Graham Neubig's papers at COLM 2024", "Graham Neubig", "COLM"),
        ("list the papers co-authored by Maosong Sun", "Maosong Sun", None),
        ("Can you list the work by Ludwig van Beethoven, please?", "Ludwig van Beethoven", None),
        ("Show me Yejin Choi's papers", "Yejin Choi", None),
        ("papers by Smith et al.", "Smith", None),
        ("How many papers did Yejin Choi write?", "Yejin Choi", None),
    ],
)
def test_papers_asked_for_by_who_wrote_them_are_a_catalogue_of_that_author(question, author, venue):
    intent = classify(question)
    assert (intent.kind, intent.author, intent.venue) == ("catalogue", author, venue)


@pytest.mark.parametrize(
    "question",
    ["Which papers are motivated by Bayesian inference?", "papers by topic", "Who wrote AdaSCALE?",
     "Which papers are inspired by biological neurons?", "Which papers cite work by Hinton?",
     "Which papers are written by LLMs?", "Which works are authored by GPT-4?",
     "What is the main idea of the paper by Ada Lovelace?", "List Reinforcement Learning's methods"],
)  # fmt: skip
def test_by_a_word_that_is_no_name_asks_for_no_author(question):
    assert classify(question).author == ""
