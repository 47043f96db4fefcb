"""Citation keys, key validation, refusal and language detection: pure functions, no index."""

from rag.answer.citations import assign_keys, check_citations
from rag.answer.language import needs_translation
from rag.answer.refusal import is_refusal, refusal_sentence
from rag.records import Hit, Paper


def _paper(pid: str) -> Paper:
    return Paper(id=pid, abstract=f"Abstract of {pid}.", label=pid, source="s.txt", line=2)


def test_keys_are_short_paper_ids_and_long_ids_get_positional_keys():
    long_id = "iclr2024-34f9a343f945196b66f807e0eb6249fd"  # 41 characters: a dozen tokens per citation
    hits = [Hit(_paper("000-02"), 1.0), Hit(_paper(long_id), 0.5)]
    assert list(assign_keys(hits)) == ["000-02", "S2"]


def test_the_corpora_slugs_and_openreview_ids_starting_with_an_underscore_are_their_own_keys():
    # "[S1]" in place of uai2022-596b56d1b0 named the paper nowhere: `papers show S1` finds nothing.
    ids = ["uai2022-596b56d1b0", "aistats2020-cb62e6a3a6", "icml2024-poster-12345", "_gZLyRGGuo"]
    keys = assign_keys([Hit(_paper(pid), 1.0) for pid in ids])
    assert list(keys) == ids
    assert check_citations("Planning [_gZLyRGGuo].", keys).citations[0].paper.id == "_gZLyRGGuo"
    miscopied = check_citations("Planning [uai2022-596b56d1b1].", keys)  # one character off
    assert miscopied.invalid == ["uai2022-596b56d1b1"] and "[" not in miscopied.text


def test_an_openreview_id_starting_with_a_dash_is_its_own_key():
    # A made-up [S5] names the paper nowhere else: `papers show S5` finds nothing.
    hits = [Hit(_paper("-qh0M9XWxnv"), 1.0), Hit(_paper("-"), 0.5), Hit(_paper("--x"), 0.4)]
    keys = assign_keys(hits)
    assert list(keys) == ["-qh0M9XWxnv", "S2", "S3"]
    assert check_citations("GNNs [-qh0M9XWxnv].", keys).citations[0].paper.id == "-qh0M9XWxnv"


def test_invalid_keys_are_removed_and_reported_and_valid_ones_resolved():
    keys = {"000-02": _paper("000-02"), "003-01": _paper("003-01")}
    checked = check_citations("AdaSCALE wins [000-02]. C3 detects it [003-01, 999-99]. Bogus [P7].", keys)
    assert checked.text == "AdaSCALE wins [000-02]. C3 detects it [003-01]. Bogus."
    assert [c.paper.id for c in checked.citations] == ["000-02", "003-01"]
    assert checked.invalid == ["999-99", "P7"]


def test_ordinary_brackets_are_not_taken_for_citations():
    checked = check_citations(
        "Values lie in [0, 1] and see [the appendix] [000-02].", {"000-02": _paper("000-02")}
    )
    assert checked.text == "Values lie in [0, 1] and see [the appendix] [000-02]."
    assert not checked.invalid


def test_refusal_is_recognised_exactly_and_when_paraphrased():
    assert is_refusal(refusal_sentence())
    assert is_refusal("The learning rate is not mentioned in the abstracts.")
    assert not is_refusal("AdaSCALE beats OptFS by 14.94% [000-02].")


def test_english_questions_are_not_sent_for_translation():
    assert not needs_translation("Which strategy lets RedVisor eliminate redundant prefill computation?")
    assert needs_translation("哪篇论文提出了检测沙袋行为的方法？")


def test_a_keyword_query_in_english_is_not_sent_for_translation_but_a_french_one_is():
    # with a model, a rewrite turned a listing into a factoid question it then declined
    assert not needs_translation("NeurIPS 2019 meta-learning papers")
    assert not needs_translation("contrastive learning survey ICML")
    assert needs_translation("Quels articles portent sur le tatouage numérique")
    assert needs_translation("Welche Arbeiten untersuchen digitale Wasserzeichen")
    # borrowed English words do not make a foreign question English
    assert needs_translation("Welche Paper untersuchen Wasserzeichen für Sprachmodelle")
    assert needs_translation("Quels sont les papers sur la distillation de connaissances")
    assert needs_translation("Welche Methoden verbessern die Performance von Transformern")
    assert needs_translation("Qué papers hablan de aprendizaje por refuerzo")
