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
    ],
)
def test_other_questions_are_factoids(question):
    assert not classify(question).is_listing
