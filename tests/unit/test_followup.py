"""Follow-ups without a model: which questions lean on the conversation, and what they become."""

import pytest

from rag.answer.followup import leans_on_conversation, resolve
from rag.records import Turn

from ..fakes import paper


@pytest.mark.parametrize(
    "question",
    [
        "and on which benchmark?",
        "How many architectures?",
        "What about far-OOD?",
        "Does it beat the baseline?",
        "What does this method exploit?",
        "Which datasets?",
        "why?",
    ],
)
def test_fragments_continuations_and_references_back_lean_on_the_conversation(question):
    assert leans_on_conversation(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which papers study watermarking?",
        "What is GenAlign?",
        "What does the sandbagging detection framework exploit?",
        "Which papers show that transformers are robust?",
        "And which papers study diffusion model watermark robustness?",
    ],
)
def test_a_question_with_a_topic_of_its_own_stands_alone(question):
    assert not leans_on_conversation(question)


def test_a_follow_up_is_read_with_the_last_standalone_question_and_the_papers_cited_last():
    history = [
        Turn("What does the consistency detector exploit?", "It exploits ... [p1].", ("p1",)),
        Turn("and on which models?", "On three models [p1] [p2].", ("p1", "p2")),
    ]
    follow = resolve("and how many paraphrases?", history)
    assert follow is not None
    assert follow.standalone == "What does the consistency detector exploit? and how many paraphrases?"
    assert follow.papers == ("p1", "p2") and "(p1, p2)" in follow.refusal
    assert follow.own_terms == ("paraphras",)
    assert follow.about(paper("p1", "We check answers across many paraphrases of a question."))
    assert not follow.about(paper("p2", "We watermark audio."))


def test_no_history_or_a_new_topic_needs_no_resolving():
    assert resolve("and on which benchmark?", []) is None
    assert (
        resolve("Which papers study watermarking?", [Turn("What is AdaSCALE?", "... [a].", ("a",))]) is None
    )


@pytest.mark.parametrize(
    ("question", "text", "answered"),
    [
        ("and on which benchmark?", "It exploits an asymmetry in consistency [p1].", False),
        ("and on which benchmark?", "It beats OptFS on the ImageNet-1k benchmark [p1].", True),
        ("and on which benchmark?", "It is evaluated on three datasets [p1].", True),  # the same kind
        ("which metric?", "It reaches 91% accuracy [p1].", True),
        ("and how many paraphrases?", "It exploits an asymmetry [p1].", True),  # no kind asked for
        ("and on which benchmark?", "It exploits an asymmetry in the training data [p1].", False),
        ("and which architecture?", "It compares the model outputs across paraphrases [p1].", False),
        ("and which architecture?", "It uses a ViT backbone [p1].", True),
    ],
)
def test_a_which_kind_follow_up_is_answered_only_by_a_text_naming_that_kind(question, text, answered):
    earlier = Turn("What does the consistency detector exploit?", "It exploits [p1].", ("p1",))
    follow = resolve(question, [earlier])
    assert follow is not None and follow.answered_by(text) is answered


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("what about watermarking?", "watermarking"),
        ("And graph transformers?", "graph transformers"),
        ("how about diffusion models?", "diffusion models"),
        ("and on which benchmark?", ""),  # asks something
        ("what about its limitations?", ""),  # points back
        ("and the datasets?", ""),  # what one asks of a paper, no topic
        ("Which papers study watermarking?", ""),  # no continuation
    ],
)
def test_a_continuation_that_names_only_a_topic_gives_that_topic(question, topic):
    from rag.answer.followup import topic_alone

    assert topic_alone(question) == topic


def test_the_second_one_is_the_second_paper_of_the_latest_list_asked_about_as_it():
    history = [
        Turn("Which papers study pruning?", "2 papers on pruning: ... [p1] ... [p2].", ("p1", "p2")),
        Turn("what does the second one do?", "It prunes trees [p2].", ("p2",)),
    ]
    second = resolve("what does the second one do?", history[:1])
    assert second is not None and second.papers == ("p2",)
    assert second.standalone == "Which papers study pruning? what does it do?" and second.own_terms == ()
    first = resolve("and the first one?", history)  # the list, not the one paper cited since
    assert first is not None and first.papers == ("p1",)
    assert resolve("and the last paper?", history).papers == ("p2",)
    assert resolve("what about the fifth one?", history).papers == ()  # no fifth: refused
    # "the first paper to propose …" asks a question of its own
    assert resolve("Which was the first paper to propose attention for graphs?", history) is None


def test_a_follow_up_pointing_back_needs_half_its_own_words_in_the_paper_a_continuation_all():
    earlier = Turn("What is TrapMark?", "TrapMark embeds hooks ... AUC of 94.3 [p1].", ("p1",))
    trap = paper("p1", "TrapMark achieves an average detection AUC of 94.3.")
    reach = resolve("What detection AUC does it reach?", [earlier])  # "reach": the paper says "achieves"
    assert reach is not None and reach.own_terms == ("detect", "auc", "reach") and reach.about(trap)
    assert not resolve("Does it also work for watermarking?", [earlier]).about(trap)
    assert not resolve("what about watermarking?", [earlier]).about(trap)


def test_a_continuation_naming_something_new_carries_the_question_asked_of_it():
    earlier = Turn("What is AdaScale?", "AdaScale scales activations [p1].", ("p1",))
    assert resolve("What about TrapMark?", [earlier]).switched == "What is TrapMark?"
    assert resolve("and its limitations?", [earlier]).switched == ""  # points back
    assert resolve("and on which benchmark?", [earlier]).switched == ""  # names nothing new
    assert resolve("And on ImageNet?", [earlier]).switched == ""  # narrows it: no new subject


def test_the_authors_or_method_of_a_named_paper_point_at_it_not_back():
    from rag.answer.followup import is_fragment

    assert not is_fragment("Who are the authors of TreePrune?")
    assert not leans_on_conversation("What does the method in TreePrune prune?")
    assert is_fragment("Who are the authors?") and is_fragment("who are the authors of it?")
