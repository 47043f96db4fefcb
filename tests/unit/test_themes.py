"""Theme names in listings read as the papers write them: whole terms, acronyms in capitals."""

from rag.answer.themes import PaperNote, term_name
from tests.fakes import paper


def _notes(titles: list[str]) -> list[PaperNote]:
    papers = [paper(f"p{n}", "An abstract.", title) for n, title in enumerate(titles)]
    return [PaperNote(p.id, p, "", -n) for n, p in enumerate(papers)]


OTHERS = [f"Sparse Autoencoders for {thing}" for thing in ("Vision", "Speech", "Proteins", "Robotics")]


def test_a_term_ends_with_the_common_word_its_papers_write_after_it():
    theme = _notes([
        "Large Language Models as Optimizers",
        "Aligning Large Language Models with Human Preferences",
        "Large Language Models Can Self-Correct",
    ])  # fmt: skip
    assert term_name(theme, theme + _notes(OTHERS), "sparse autoencoders").startswith("Large language models")


def test_an_acronym_keeps_its_capitals_in_a_theme_name():
    theme = _notes(["Scaling GNNs to Large Graphs", "Expressive GNNs via Subgraphs", "GNNs Meet Attention"])
    assert "GNNs" in term_name(theme, theme + _notes(OTHERS), "graph learning")


def test_a_capital_inside_a_lower_case_word_is_no_name():
    theme = _notes(["Raidar: geneRative AI Detection", "Detecting geneRative Text", "geneRative Detectors"])
    name = term_name(theme, theme + _notes(OTHERS), "language models")
    assert name.lower().startswith("generative") and name[1:] == name[1:].lower(), name  # not "GeneRative"


def test_a_title_cased_compound_is_written_as_an_ordinary_word():
    theme = _notes(
        ["Few-Shot Dialogue with Memory", "Few-Shot Dialogue Agents", "Evaluating Few-Shot Dialogue"]
    )
    name = term_name(theme, theme + _notes(OTHERS), "continual learning")
    assert name.startswith("Few-shot dialogue"), name


def test_one_title_spelling_out_its_acronym_does_not_rename_a_common_word():
    theme = _notes(
        ["Language Grounding in Robots", "LAMOL: LAnguage Grounding", "Language Grounding for Maps"]
    )
    name = term_name(theme, theme + _notes(OTHERS), "continual learning")
    assert name.startswith("Language grounding"), name


def test_a_hyphenated_acronym_keeps_its_capitals_in_a_theme_name():
    theme = _notes(
        ["DB-KSVD Dictionaries at Scale", "Pruning DB-KSVD Dictionaries", "DB-KSVD Dictionaries for Speech"]
    )
    assert term_name(theme, theme + _notes(OTHERS), "dictionary learning").startswith("DB-KSVD")


def test_a_topic_written_as_a_field_acronym_names_no_theme_with_its_spelled_out_words():
    theme = _notes([
        "Graph Neural Networks for Molecules",
        "Molecules and Graph Neural Networks",
        "Graph Neural Networks Predict Molecules",
    ])  # fmt: skip
    name = term_name(theme, theme + _notes(OTHERS), "GNN")
    assert name.lower().startswith("molecules") and "neural" not in name.lower(), name


def test_a_shouted_title_writes_no_acronyms_into_a_theme_name():
    theme = _notes(
        ["ROBUST GAN TRAINING WITH SPECTRAL NORMS", "Spectral Norms in Discriminators", "On Spectral Norms"]
    )
    name = term_name(theme, theme + _notes(OTHERS), "generative models")
    assert name.startswith("Spectral norms") and "NORMS" not in name


def test_the_topics_own_acronym_and_title_filler_name_no_theme():
    theme = _notes(
        ["Towards Better GANs for Faces", "Deep GANs for Face Editing", "Fast GANs for Face Synthesis"]
    )
    name = term_name(theme, theme + _notes(OTHERS), "generative adversarial networks")
    assert name.lower().startswith("face") and not {"gans", "towards", "deep", "fast"} & set(
        name.lower().split()
    )


def test_one_subfields_papers_split_into_themes_of_comparable_size():
    # One diffuse cloud, as the papers of one subfield are: k-means started from the farthest
    # points (before) split it 15/8/4/3; on the 30 best papers of the 53 dev subfields its
    # largest group held 68% of them on average.
    import numpy as np

    from rag.answer.themes import _cluster

    rng = np.random.default_rng(0)
    centre = np.eye(32)[0]
    points = [centre + 0.25 * rng.standard_normal(32) for _ in range(30)]
    labels = _cluster([list(p / np.linalg.norm(p)) for p in points], 4)
    sizes = np.bincount(labels).tolist()
    assert len(sizes) == 4 and max(sizes) <= 10 and min(sizes) >= 5


def test_a_topic_with_hyphens_or_function_words_gives_no_theme_its_acronym():
    for topic, acronym in [
        ("out-of-distribution detection", "OOD"),
        ("long short-term memory", "LSTM"),
        ("mixture of experts", "MoE"),
    ]:
        theme = _notes(
            [f"{acronym} Scoring for Images", f"Better {acronym} Scoring", f"{acronym} Scoring at Scale"]
        )
        name = term_name(theme, theme + _notes(OTHERS), topic)
        assert acronym.lower() not in name.lower().split(), (topic, name)


def test_a_second_phrase_that_repeats_the_first_in_part_joins_no_theme_name():
    theme = _notes([
        "Meta-Reinforcement Learning for Robots",
        "Fast Meta-Reinforcement Learning with Reinforcement Priors",
        "Reinforcement Learning Meets Meta-Reinforcement Learning",
    ])  # fmt: skip
    name = term_name(theme, theme + _notes(OTHERS), "meta-learning")
    assert name.lower().count("reinforcement") == 1, name


def test_a_listing_of_thousands_is_clustered_from_its_best_papers_and_the_rest_join_the_nearest_group():
    import numpy as np

    from rag.answer.themes import _CLUSTERED, _cluster

    rng = np.random.default_rng(0)
    centres = np.eye(8)[:2]  # two far-apart subjects
    which = np.arange(_CLUSTERED + 600) % 2
    vectors = centres[which] + 0.05 * rng.normal(size=(len(which), 8))
    labels = np.asarray(_cluster(vectors.tolist(), 2))
    assert len(labels) == len(which) and set(labels) == {0, 1}
    # every paper, the ones past the cap too, is grouped with the papers of its own subject
    assert all(len(set(labels[which == side])) == 1 for side in (0, 1))


def test_a_words_form_in_theme_names_goes_to_the_ordinary_word_on_a_tie_and_keeps_named_compounds():
    from rag.answer.themes import _surface

    assert _surface(["Deep Learning for E-Commerce Search", "Fraud detection in e-commerce"]) == {}
    assert _surface(["U-Net Segmentation", "A Better U-Net"]) == {"u-net": "U-Net"}
    assert _surface(["COMET: COMmonsense Transformers", "Commonsense Reasoning"]) == {"comet": "COMET"}
