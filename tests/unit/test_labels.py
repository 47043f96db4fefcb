"""Display labels for untitled seed entries: the method name an abstract introduces, else its start."""

from rag.index.labels import display_label, is_coined_name, method_name


def test_the_introduced_method_name_is_the_label():
    assert (
        method_name(r"In this work, we propose \textbf{AdaSCALE}, an adaptive scaling procedure.")
        == "AdaSCALE"
    )
    assert method_name("We introduce Cross-Context Consistency ($C^3$), a framework.") == "$C^3$"


def test_without_a_name_the_first_sentence_is_shortened():
    label = display_label(
        "Conformal prediction offers distribution-free uncertainty quantification for models. More."
    )
    assert label.startswith("Conformal prediction offers") and label.endswith("…") and len(label) <= 61


def test_generic_acronyms_are_not_method_names():
    assert (
        not is_coined_name("LLM", set())
        and is_coined_name("OptFS", set())
        and is_coined_name("d2-AnyOrder", set())
    )


def test_a_short_name_in_code_marks_introduced_with_an_apposition_is_the_label():
    abstract = "Servers leak data. We introduce `SOPE`, a Scenario-aware and zerO-click exfiltration tool."
    assert display_label(abstract) == "SOPE"
    assert display_label("Attention is costly. We propose DLA, a dynamic memory framework.") == "DLA"
