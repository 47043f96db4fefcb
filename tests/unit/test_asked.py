"""What a question asks for, and whether a reply names it rather than restating the question."""

import pytest

from rag.answer.asked import Asked, asked_for, expansion_in, names_answer, new_names, restates


def test_the_kind_of_answer_is_read_from_the_question():
    assert asked_for("What is RedVisor short for?") == Asked("expansion", "RedVisor")
    assert asked_for("What does the acronym C^3 stand for?") == Asked("expansion", "C3")
    assert asked_for("How many parameters does PlugGuard use?").kind == "number"
    assert asked_for("What detection AUC does ActHook achieve?").kind == "number"
    assert asked_for("Which optimizers does the attack target?").kind == "entity"
    assert asked_for("What protocol does SOPE exploit?").kind == "entity"
    assert asked_for("What causes feature death?").kind == "open"
    assert asked_for("What kind of model is SecCodePRM?").kind == "open"
    assert asked_for("Which paper proposes a window bandit?").kind == "open"  # the paper is the answer


def test_an_expansion_is_found_however_the_paper_writes_it():
    assert expansion_in("We study multi-armed bandits (MABs) here.", "MABs") == "multi-armed bandits"
    traces = "We propose **TraCeS** (Trajectory-based Constraint Estimation for Safety)."
    assert expansion_in(traces, "TraCeS") == "Trajectory-based Constraint Estimation for Safety"
    assert expansion_in(r"We introduce Cross-Context Consistency ($C^3$), a framework.", "C3") == (
        "Cross-Context Consistency"
    )
    assert expansion_in("Editing 3D Gaussian Splatting (3DGS).", "3DGS") == "3D Gaussian Splatting"
    assert expansion_in("Sparse autoencoders (SAEs) decompose activations.", "SAE") == "Sparse autoencoders"
    described = "We introduce `SOPE`, a Scenario-aware and zerO-click Privacy Exfiltration framework."
    assert expansion_in(described, "SOPE").startswith("Scenario-aware and zerO-click Privacy Exfiltration")
    assert expansion_in("SOPE remains highly effective against nine defenses.", "SOPE") is None
    # a coined name cut from the first words of its expansion, the last giving no letter
    coined = "We propose a parameterization called Adaptive Categorical Discretization (AdaCat)."
    assert expansion_in(coined, "AdaCat") == "Adaptive Categorical Discretization"
    assert expansion_in("We study multi-armed bandit regret (MAB).", "MAB") is None  # capitals: every word


def test_a_reply_that_restates_the_question_names_nothing():
    question = "Which models did DB-KSVD disentangle the embeddings of?"
    assert not names_answer("DB-KSVD disentangled the embeddings of the models [004-09].", question)
    assert names_answer("The Gemma-2-2B and Pythia-160M models [004-09].", question)


def test_an_open_question_is_not_answered_by_its_own_words_but_a_yes_no_question_may_be():
    question = "What does FastFlow scale adaptively for each input?"
    assert not names_answer("FastFlow scales adaptively for each input [k1].", question)
    assert names_answer("FastFlow scales the step size of its coupling layers [k1].", question)
    assert not names_answer("FastFlow trains flows faster [k1].", "How does FastFlow train flows faster?")
    assert names_answer("No, FastFlow does not need retraining [k1].", "Does FastFlow need retraining?")
    assert not names_answer("FastFlow scales adaptively for each input [k1].", question.lower())  # "fastflow"
    assert names_answer("It rises from 17% to 30% [k1].", "Recovery rises from 17% to what?")
    choice = "Which threat model is worse: Byzantine failures or poisoning?"
    assert names_answer("Byzantine failures do [k1].", choice)


def test_a_number_question_needs_a_figure_the_question_does_not_give():
    question = "How many vulnerability games are in the suite?"
    assert not names_answer("The suite contains vulnerability games [004-04].", question)
    assert names_answer("The suite has four vulnerability games [004-04].", question)
    assert not names_answer("It reaches 70% [x].", "Does it reach 70% on AlphaFold3 or how much?")


def test_a_yes_no_question_with_a_bound_is_answered_by_the_figure_not_by_repeating_the_bound():
    question = "Is the method compared against more than five baseline methods?"
    assert asked_for(question).kind == "number"
    assert not names_answer("Yes, it is compared against more than five baseline methods.", question)
    assert names_answer("Yes, against six baseline methods.", question)


def test_how_many_counts_the_things_it_names_and_only_a_sentence_counting_them_answers():
    from rag.answer.asked import counts_what_is_asked

    asked = asked_for("How many human participants took part in the VR study?")
    assert asked.counted == "particip"
    assert not counts_what_is_asked("Our model consists of three stacked components.", asked)
    assert counts_what_is_asked("Twelve participants wore the headset.", asked)
    stream = asked_for("On how many residual stream activations were the meta-models trained?")
    assert counts_what_is_asked("We train on one billion residual stream activations.", stream)
    assert asked_for("How many times faster is it?").counted == ""  # a factor, not things
    # An acronym counted after a word may be written as one acronym: "multimodal LLMs" are MLLMs.
    models = asked_for("How many multimodal LLMs were aligned?")
    assert counts_what_is_asked("It improves three MLLMs on seven benchmarks.", models)
    assert not counts_what_is_asked("It improves three VLMs on seven benchmarks.", models)
    assert counts_what_is_asked("Any sentence.", asked_for("How much does it improve?"))


def test_a_model_dataset_or_benchmark_asked_for_is_a_name_even_after_a_preposition():
    assert asked_for("On which dataset was FooNet evaluated?").kind == "name"
    assert asked_for("Which base language model did the games train?").kind == "name"
    assert asked_for("What benchmarks does BarBench extend?").kind == "name"
    assert asked_for("In which venue did FooNet appear?").kind == "entity"  # not a model or dataset
    assert asked_for("Which model of computation does FooNet describe?").kind == "entity"
    assert asked_for("What kind of model is FooNet?").kind == "open"
    assert asked_for("Which types of benchmarks did FooNet report?").kind == "entity"  # kinds, not names
    assert asked_for("Which papers train diffusion models?").kind == "open"  # the paper is the answer


def test_a_name_asked_for_is_answered_only_by_a_name_the_question_lacks():
    question = "Which base language model was trained in the FooGames?"
    assert not names_answer("The base language model was trained in the FooGames [k1].", question)
    assert not names_answer("Most AI alignment work trains an LLM with SFT [k1].", question)  # the field's
    mllms = "Which MLLMs were run in the FooGames?"
    assert not names_answer("The base model of the FooGames was an MLLM [k1].", mllms)
    assert names_answer("The FooGames trained Qwen2.5-7B [k1].", question)
    assert names_answer("The FooGames trained the base model of Gemma [k1].", question)  # capitalised
    spelled = "Which LLM is used to judge fairness in conformal prediction?"
    assert not names_answer("Conformal prediction (CP) is distribution-free [k1].", spelled)
    languages = "Which programming languages are covered by the FooEdit benchmark?"
    assert asked_for(languages).noun == "languag"
    assert not names_answer(
        "FooEdit is a benchmark of code editing tasks used to evaluate LLMs [k1].", languages
    )
    assert names_answer("FooEdit covers Python and Rust [k1].", languages)
    choice = "Which model is larger: FooNet or BarNet?"
    assert names_answer("BarNet is [k1].", choice)  # picking one answers a choice


def test_an_acronym_asked_about_is_answered_by_its_expansion_or_else_by_what_it_is():
    assert asked_for("What are FRMs in the FooAlign paper?") == Asked("expansion", "FRMs", described=True)
    assert asked_for("What are FRMs used for?").kind != "expansion"  # a use, not a name
    assert asked_for("What is FooAlign?").kind == "open"  # a coined name, no acronym
    question = "What are FRMs?"
    assert names_answer("Fast Reward Models (FRMs) score answers [k1].", question)
    assert names_answer("FRMs score answers with a rubric [k1].", question)  # what they are
    assert not names_answer("FRMs are FRMs [k1].", question)


def test_a_noun_that_modifies_another_or_is_not_followed_by_the_questions_verb_asks_for_no_name():
    for question in (
        "What happens to small models under pruning?",
        "Which tokens does the model attend to?",
        "Which model architectures are used?",  # architectures are asked for
        "Which dataset properties matter?",
        "Which method uses diffusion models?",
    ):
        assert asked_for(question).kind != "name", question


def test_names_are_found_in_short_replies_and_pairs_but_a_size_or_a_table_is_none():
    question = "Which base model was fine-tuned in FooTune?"
    assert new_names("The judge is Llama [k1].", question) == ["Llama"]
    assert new_names("FooTune fine-tunes Mistral and Gemma [k1].", question) == ["Mistral", "Gemma"]
    assert new_names("FooTune fine-tunes a 7B base model, as Table 2 shows [k1].", question) == []
    # whole words of the question, not its letters; a longer name is a new one
    assert new_names("It was trained on the Pile [k1].", "Which dataset was compiled for FooTune?") == [
        "Pile"
    ]
    assert new_names("It is ImageNet-C [k1].", "Which dataset is derived from ImageNet?") == ["ImageNet-C"]


_GAUSS = "Does GaussTrace depend on editing histories?"


@pytest.mark.parametrize(
    ("reply", "question", "bare"),
    [
        ("No, GaussTrace does not depend on editing histories [3].", _GAUSS, True),
        ("No, GaussTrace doesn't depend on editing histories [3].", _GAUSS, True),
        ("No, GaussTrace can’t and won't depend on editing histories.", _GAUSS, True),
        ("Yes, the actor keeps up with SAC.", "Can the actor keep up with SAC?", True),
        ("No: it infers provenance from the 3DGS weights alone [3].", _GAUSS, False),
        ("Yes, by 14.94% [1].", "Does AdaSCALE beat OptFS?", False),
        ("GaussTrace needs no editing histories [3].", "Which method needs no editing histories?", False),
    ],
)
def test_a_reply_is_a_bare_yes_or_no_only_when_it_adds_nothing_to_a_yes_no_question(reply, question, bare):
    assert restates(reply, question) is bare


def test_a_measurement_asked_for_is_named_only_by_a_figure_not_a_list_marker_or_a_count():
    question = "What transfer success rate do MoCo-EA's perturbations reach?"
    assert asked_for(question).measured and not asked_for("How many findings does it report?").measured
    assert not names_answer("We demonstrate three findings: (1) mode connectivity; (2) transfer.", question)
    assert names_answer("Its perturbations transfer with a 61.5% success rate.", question)
    assert names_answer("It reports three findings.", "How many findings does MoCo-EA report?")
    speed = "What speed-up does FlashX reach over FlashAttention?"
    assert names_answer("FlashX runs three times faster than FlashAttention [f1].", speed)


def test_a_score_asked_for_is_not_given_by_a_figure_inside_a_name_a_size_a_date_or_a_marker():
    question = "What ArenaBench score does Zebra-7B obtain?"
    assert (
        asked_for(question).measured
        and asked_for("What ArenaBench and ChatEval scores does it reach?").measured
    )
    for reply in (
        "On ArenaBench, Zebra-7B surpassed Llama2-Chat-70B [z1].",
        "Zebra-7B is state of the art among 7B models in terms of pass@1 [z1].",
        "It has three steps: 1) tuning, 2) distilling [z1].",
        "It leads ArenaBench as of May 24, 2024 [z1].",
    ):
        assert not names_answer(reply, question), reply
    assert names_answer("Zebra-7B scores 7.34 on ArenaBench, above Llama2-Chat-70B [z1].", question)
    assert names_answer("It beats Llama2-Chat-70B by 3.5x on ArenaBench [z1].", question)
    assert names_answer("It reaches ArenaBench (score 8) [z1].", question)  # no list marker in brackets
    speed = "What speed-up does FlashX achieve over FlashAttention?"
    assert names_answer("FlashX achieves a speed-up of 2.4x [f1].", speed)  # a unit before the stop
    for computed in ("What anomaly score does X compute?", "What score-based generative model does X use?"):
        assert not asked_for(computed).measured, computed  # a score it computes or uses, not gets


@pytest.mark.parametrize(
    "question",
    [
        "What score function does ScoreX use?",
        "What research gap does X address?",
        "What kind of error does X correct?",
        "What learning rate schedule does X use?",
        "What learning rate does X use?",
    ],
)
def test_a_question_naming_a_measure_word_as_something_else_asks_for_no_measurement(question):
    assert not asked_for(question).measured


def test_spelling_out_an_acronym_the_question_or_the_text_writes_names_nothing_new():
    question = "Which LLM does GaussTrace use for its provenance reasoning?"
    assert new_names("GaussTrace uses a Large Language Model (LLM) for its reasoning.", question) == []
    assert new_names("Using Large Language Models, GaussTrace reasons.", question) == []
    assert new_names("It prompts Large Language Models such as Qwen.", question) == ["Qwen"]
    assert not names_answer("GaussTrace uses a Large Language Model (LLM).", question)
    # Initials that happen to spell a field acronym (GAN) are still a model's name.
    assert names_answer(
        "GraphX builds on the Graph Attention Network [1].", "Which model does GraphX build on?"
    )
    assert not names_answer(
        "GraphX builds on a Generative Adversarial Network (GAN).", "Which model does GraphX build on?"
    )


def test_whats_an_acronym_asks_for_its_expansion():
    assert asked_for("what's PPRL in VideoVeritas?") == Asked("expansion", "PPRL", described=True)
    assert asked_for("What’s the acronym SOPE short for?").kind == "expansion"


def test_a_question_of_several_sentences_asks_in_its_last_after_what_it_sets_aside():
    two = "There's a paper on dictionary learning for interpretability. Which benchmark does it evaluate on?"
    assert asked_for(two).kind == "name"
    aside = "A paper handles gradient inversion. Besides Adam, which optimizers does it handle?"
    assert asked_for(aside).kind == "entity"
    assert asked_for("").kind == "open"
    assert asked_for("Which dataset does KSVD-X use? Answer briefly.").kind == "name"
    assert asked_for("What does PPRL stand for? Thanks!").kind == "expansion"


def test_the_terms_a_paper_spells_out_name_no_model_or_dataset_it_uses():
    from rag.answer.asked import defined_names

    abstract = (
        "3D Gaussian Splatting (3DGS) is a technique for 3D assets. We propose GaussTrace for 3DGS"
        " provenance. A Large Language Model (LLM) reasons over the cues; we test it with Qwen-2.5-7B."
    )
    defined = defined_names(abstract)
    assert {"3DGS", "3D", "Gaussian", "Splatting", "LLM"} <= defined and "Qwen-2.5-7B" not in defined
    question = "Which LLM does GaussTrace use?"
    assert not names_answer(
        "3D Gaussian Splatting (3DGS) is a technique for 3D assets.", question, defined=defined
    )
    assert names_answer("We test it with Qwen-2.5-7B.", question, defined=defined)
    # A benchmark spelled out by name is one all the same; a class of models is not a model.
    mmlu = "FooNet is evaluated on the Massive Multitask Language Understanding (MMLU) benchmark."
    assert defined_names(mmlu) == frozenset()
    assert names_answer(mmlu, "Which benchmark does FooNet evaluate on?", defined=defined_names(mmlu))
    assert "MLLMs" in defined_names("Aligning Multimodal Large Language Models (MLLMs) is hard.")


@pytest.mark.parametrize(
    ("question", "quantity"),
    [
        ("What is the batch size used by TreeNet?", ("batch",)),
        ("What FID score does TreeNet reach?", ("fid",)),
        ("What overhead does TreeNet add?", ()),  # the amount alone: any wording may give it
        ("What is the reported error of TreeNet?", ()),  # how it is taken, not which amount
        ("What is the top-1 error of TreeNet?", ("top",)),
        ("How many layers does TreeNet have?", ()),
    ],
)
def test_a_number_question_names_which_amount_it_asks_for(question, quantity):
    assert asked_for(question).quantity == quantity
