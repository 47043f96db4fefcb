"""The shared text helpers that the answer path and the eval both rely on."""

import pytest

from rag.text import (
    acronym_matches,
    cited_sentences,
    keys_in,
    loop_start,
    numbers_in,
    plain_text,
    sentence_role,
    split_sentences,
    supports,
    without_keys,
)


def test_sentences_split_at_stops_but_not_after_abbreviations():
    text = "We use priors, e.g. Gaussian ones. Results improve by 3%. Fig. 2 shows it."
    assert split_sentences(text) == [
        "We use priors, e.g. Gaussian ones.",
        "Results improve by 3%.",
        "Fig. 2 shows it.",
    ]


def test_markup_is_unwrapped_for_comparison():
    assert plain_text(r"by $\textbf{14.94}$\% and **KV Cache Reuse**") == "by 14.94% and KV Cache Reuse"


def test_keys_are_found_in_groups_and_removed_cleanly():
    text = "AdaSCALE wins [000-02]. Both do [003-01, 004-05][S3]."
    assert keys_in(text) == ["000-02", "003-01", "004-05", "S3"]
    assert without_keys(text) == "AdaSCALE wins. Both do."


def test_listing_lines_are_sentences_with_their_own_keys_and_headings_are_not_claims():
    answer = "Two papers:\n- AdaSCALE scales activations [000-02]\n- RedVisor defends agents [000-10]"
    assert cited_sentences(answer) == [
        ("AdaSCALE scales activations", ["000-02"]),
        ("RedVisor defends agents", ["000-10"]),
    ]


def test_support_needs_the_words_and_every_number():
    evidence = "Our approach outperforms the latest rival OptFS by 14.94% in near-OOD datasets."
    assert supports("AdaSCALE outperforms OptFS by 14.94% on near-OOD datasets.", evidence)
    assert not supports("AdaSCALE outperforms OptFS by 19.94% on near-OOD datasets.", evidence)
    assert numbers_in("27,216 cases and 0.5 ms") == {"27216", "0.5"}


def test_a_decimal_comma_and_a_count_in_words_are_read_as_the_figures_they_are():
    assert numbers_in("um 14,94 % besser") == {"14.94"}
    assert numbers_in("spanning six domains and 103 languages", spelled=True) == {"6", "103"}
    assert numbers_in("spanning six domains") == set()  # a reply's words are not figures to find
    assert numbers_in("one of the two", spelled=True) == {"2"}  # "one" is a pronoun first
    assert {"100", "100000"} <= numbers_in("contexts of 100,000 tokens", spelled=True)
    assert "100000" in numbers_in("at 100K context", spelled=True)
    evidence = "MixReward spans six domains, 103 languages"
    assert supports("MixReward covers 103 languages across 6 domains.", evidence)


def test_a_question_asks_its_settings_of_the_paper_but_not_its_bounds_years_orders_or_reply_size():
    from rag.text import asked_figures, without_bounds

    asked = {
        "How many videos from 20 generators does MintVid contain?": {"20"},
        "What AUC does it reach over 5 agent domains?": {"5"},  # "over" as "across"
        "What does it reach at 4-bit with 100 samples?": {"4", "100"},
        "Um wie viel übertrifft AdaSCALE OptFS mit 14,94 %?": {"14.94"},
        "Does SVGT reduce harmful scores by more than 50%?": set(),
        "Does it improve safety by at least 10%?": set(),
        "Is its AUC above 90 in the ICML 2026 paper?": set(),
        "Is it over 2x faster than Adam?": set(),
        "What happens in the 2nd stage?": set(),
        "Name 3 papers on watermarking.": set(),
        "What are the two components it introduces?": set(),  # describes the answer
        "How does it compare two distributions?": set(),  # a count in words is written loosely
        "What AUC does it reach with the 7B model?": {"7"},
        # A yes/no question puts its figures to the paper ("No: 2.3x"); they are not settings.
        "Does it achieve a 2x speedup?": set(),
        "Does it reach 90% accuracy on MedQA?": set(),
        "Is it evaluated on over 10 benchmarks?": set(),
        "Does it improve by 30-50%?": set(),
        "How does it compare against over 5 baselines?": set(),
        "How is it affected by 4-bit quantization?": {"4"},  # part of a compound: no bound
        "What does it do with 2048 tokens?": {"2048"},  # no year
        "Which paper from 2024 is about X?": set(),  # a year
    }
    for question, figures in asked.items():
        assert asked_figures(question) == figures, question
    bounded = "Does SVGT reduce harmful scores by more than 50%?"
    assert without_bounds(bounded) == "Does SVGT reduce harmful scores by ?"
    assert without_bounds("What AUC over 5 agent domains?") == "What AUC over 5 agent domains?"


def test_unwritten_variants_are_names_whose_sibling_alone_the_paper_writes():
    from rag.text import unwritten_variants

    text = (
        "We disentangle DINOv2-S and DINOv2-B, Llama-3-70B, GPT-4, ImageNet and Qwen2.5-7B-Instruct,"
        " use ResNet50, multi-step LLM-powered agents and non-convex losses, and test on CIFAR-10."
    )
    asked = {"DINOv2-L": ["DINOv2-L"], "Llama-3-8B": ["Llama-3-8B"], "GPT-4o": ["GPT-4o"],
             "ImageNet-1k": [], "Qwen2.5-7B": [], "Llama-3": [], "CIFAR-10": [], "ResNet-50": [],
             "Multi-Agent": [], "LLM-based": [], "Non-IID": []}  # fmt: skip
    for name, unwritten in asked.items():
        assert unwritten_variants(f"How does it do on {name}?", text) == unwritten, name


def test_printable_removes_every_control_sequence_and_bidi_character_but_keeps_text_and_newlines():
    from rag.text import printable

    # Whole sequences go (CSI, OSC to BEL or ST, one-byte CSI, two-byte ESC), not only their ESC.
    assert printable("a\x1b[2J\x1b]0;t\x07b\u202ec\u2066d\x00e\x9b1mf\x7f\tg\nh") == "abcdef\tg\nh"
    assert printable("Evil\x1b]0;PWNED\x1b\\ Title \x1b[31mRED\x1b[0m \x1bc!") == "Evil Title RED !"
    # A C1 byte that starts no finished sequence (mojibake of "”" is "â\x80\x9d") takes nothing with it.
    assert printable("Quote â\x80\x9d rest of the abstract.") == "Quote â rest of the abstract."


def test_markdown_literal_shows_links_emphasis_and_html_as_text():
    from rag.text import markdown_literal

    assert markdown_literal("see [x](http://e) *b* <i>") == "see \\[x\\](http://e) \\*b\\* \\<i\\>"


def test_inline_math_is_typeset_as_unicode_text_for_people():
    text = r"as $\gamma = \|\boldsymbol{\mu}\|/\|\boldsymbol{\sigma}\|$ (Spearman $\rho = 0.89$), over 70\%"
    assert plain_text(text, symbols=True) == "as γ = ‖μ‖/‖σ‖ (Spearman ρ = 0.89), over 70%"
    assert plain_text(r"Spearman \rho = 0.89", symbols=True) == "Spearman ρ = 0.89"
    assert plain_text(r"$\frac{1}{\sqrt{d}}$, $x_{t+1} \in \mathbb{R}^d$, $C^3$", symbols=True) == (
        "1/√d, xₜ₊₁ ∈ ℝᵈ, C³"
    )
    assert plain_text(r"$O(n^{1/2})$ and $\tilde{O}(\sqrt{T})$", symbols=True) == "O(n^(1/2)) and Õ(√T)"
    # A command between figures is math, though a figure follows its closing "$" (not a price).
    rises = r"rises from 17$\rightarrow$30\% (+78\%) and 24$\rightarrow$43\%, and 9$\rightarrow$19\%"
    assert plain_text(rises, symbols=True) == "rises from 17→30% (+78%) and 24→43%, and 9→19%"


def test_math_written_without_braces_or_with_doubled_backslashes_leaves_no_markup():
    # As abstracts write it: a font or accent on an unbraced argument, old switches, a backslash
    # doubled by a bad escape, an operator right after a letter, a set's braces.
    cases = {
        r"$\mathbb{E}[\\|\hat{\boldsymbol\phi}-\boldsymbol\phi\\|^{2}]$": "𝔼[‖φ̂-φ‖²]",
        r"$\tilde{\cal O}(\epsilon^{-1})$ and $\tilde\mathcal{O}(k)$": "Õ(ε⁻¹) and Õ(k)",
        r"$\mathcal Q$, $\textsc{BdInterp}$, $\textbf{M}odule$": "Q, BdInterp, Module",
        r"$5(d\log(4n/\alpha))$": "5(d log(4n/α))",
        r"$\min\{\rho, \frac 12\}$, $\tfrac d {\alpha^2}$": "min{ρ, 1/2}, d/α²",
        r"$\cdot\text{polylog}\,n$": "·polylog n",
        r"$\tilde{O}(\sqrt{T}\log T)$, $\|x\|\log n$": "Õ(√T log T), ‖x‖ log n",
        r"$\tilde\cal O$, $\mathcal AB$, $\mathrm dx$": "Õ, AB, dx",
        r"$\mathbb{I}_{\{y = k\}}$, $2^{\{0,1\}^n}$, $\frac{|\{i\}|}{n}$": "I_({y = k}), 2^({0,1}ⁿ), |{i}|/n",
        # No character of the input stands for a brace: not the NUL of corrupt text, nor private use.
        "$f(\x00(x\x00))$ and $f(\ue000x\ue001)$": "f(\x00(x\x00)) and f(x)",
    }
    for latex, shown in cases.items():
        assert plain_text(latex, symbols=True) == shown


def test_latex_text_markup_outside_math_is_shown_as_plain_text():
    # As OpenReview abstracts write it, outside any $...$.
    cases = {
        r"the \underline{P}roxy \underline{P}essimistic method": "the Proxy Pessimistic method",
        r"a {\it modular} approach, a {\bf new} one": "a modular approach, a new one",
        r"the ``what if'' question": "the “what if” question",
        r"as in \cite{korda2015td} and~\citep{a,b}.": "as in (korda2015td) and (a,b).",
        r"a rate\footnote{It hides log factors.} that holds": "a rate that holds",
        r"AdaGCN~(Adaboosting GCN), the policy.~(i) Each": "AdaGCN (Adaboosting GCN), the policy. (i) Each",
        r"primal-P{\L} conditions": "primal-PŁ conditions",
        "about ~5% faster": "about ~5% faster",  # "about", not a tie
        # found in review: ranges, distributions, primes and code are not LaTeX ties or quotes
        "a 2~3x speedup, 10~20% fewer, z~N(0,1)": "a 2~3x speedup, 10~20% fewer, z~N(0,1)",
        r"$f''(x)$ and f''(x), ``code``": "f''(x) and f''(x), ``code``",
        r"the ``model's own view''": "the “model's own view”",
        r"\cite{a} shows it, see \citealp{x}, \cite[p.~3]{k}": "(a) shows it, see (x), (k)",
        r"as Eq.~\eqref{e1} shows": "as Eq. (e1) shows",
        r"$O(\sqrt{T})$ \citep{auer02}, and $\alpha$~(the step)": "O(√T) (auer02), and α (the step)",
        r"the \L{}ojasiewicz and \L ojasiewicz conditions": "the Łojasiewicz and Łojasiewicz conditions",
    }
    for latex, shown in cases.items():
        assert plain_text(latex, symbols=True) == shown
    assert plain_text(r"\underline{P}roxy") == r"\underline{P}roxy"  # the index's tokens do not change
    assert "\\L_" in plain_text(r"$ \L_{CE} $ loss", symbols=True)  # math no span reads: left as it was


def test_without_symbols_math_keeps_its_words_for_matching():
    # The lexical index tokenizes corpus text through plain_text: "\rho" must stay the word "rho".
    assert plain_text(r"Spearman $\rho = 0.89$") == r"Spearman \rho = 0.89"


def test_names_are_told_by_their_shape_before_any_stemming():
    from rag.text import coined_names, has_name

    question = "Does TraCeS beat DB-KSVD, C^3, S²IP or GPT-5 on LLMs in the Method section?"
    assert coined_names(question) == {"TraCeS", "DB-KSVD", "C3", "S2IP", "GPT-5", "LLMs"}
    assert has_name("We propose **TraCeS** (Trajectory-based ...)", "TraCeS")
    assert not has_name("Execution traces of the agent.", "TraCeS")  # the stem "trace", not the name
    assert has_name(r"Cross-Context Consistency ($C^3$)", "C3") and has_name("C³ detects it", "C3")
    assert has_name("dead-by-TopK", "TopK")


def test_a_name_in_the_possessive_or_with_a_word_hyphened_on_is_the_name_itself():
    from rag.text import coined_names, has_name

    assert coined_names("Unlike GCG's suffixes, AdaSCALE’s scores and the LLMs' replies") == {
        "GCG",
        "AdaSCALE",
        "LLMs",
    }
    assert has_name("AmpleGCG's model is trained on GCG suffixes", "AmpleGCG")
    assert has_name("the strongest open RLHF model", "RLHF-trained")
    assert has_name("judged by GPT-4 on MT-Bench", "GPT-4-based")
    assert not has_name("judged by GPT-4", "GPT-5-based")
    assert not has_name("an LSTM baseline", "x-LSTM")  # a word in front is part of the name
    assert not has_name("an LSTM baseline", "xLSTM-style")
    # a size or variant hyphened on is another model, not a use of this one
    assert not has_name("We fine-tune BERT-base on GLUE.", "BERT-large")
    assert not has_name("We evaluate Llama-2 base models.", "Llama-2-chat")
    assert has_name("performance of GPT-4 on MMLU", "GPT-4-level")
    assert not has_name("a Q-function and a Q-network", "Q-learning")  # a term, not a use of "Q"


def test_a_reply_repeating_one_unit_is_a_loop_but_prose_tables_and_key_lists_are_not():
    assert loop_start("It reaches 0." + "0" * 80) == len("It reaches 0.") + 1  # one unit kept
    assert loop_start("Cited [000-02]" + " [000-02]" * 10) == len("Cited [000-02]")
    said = "It works. The model is good at this task. "
    assert loop_start(said + "The model is good at this task. " * 3) == len(said)
    assert loop_start("x" + "\n" * 80) == 2
    assert loop_start("Gains of 1.0, 2.5, 3.1, 4.7, 5.2, 6.9, 7.3, 8.8, 9.4, 10.6 and 11.2 points.") is None
    assert loop_start("Both do it [003-01, 004-05, 004-06, 004-07, 002-01, 001-03].") is None
    assert loop_start("| a | b |\n" + "|------------" * 6 + "|") is None  # a wide table's rule
    assert loop_start("Short repeats like 0000 or haha are not loops.") is None


def test_a_name_written_as_an_acronym_on_one_side_and_spelled_out_on_the_other_matches():
    paper = "Asynchronous stochastic gradient descent (ASGD) scales; a teacher passes tricks on through SFT."
    assert acronym_matches("Does the analysis of asynchronous SGD need smoothness?", paper) == {"sgd"}
    spelled = acronym_matches("Do tricks pass on via supervised fine-tuning?", paper)
    assert spelled == {"supervis", "fine", "tune"}
    assert acronym_matches("Is it robust out-of-distribution?", "tested on OOD data") == {"out", "distribut"}
    # A closed compound gives two letters, and the question's plural is what the paper spells out.
    assert acronym_matches("Do MLPs learn it?", "multilayer perceptrons learn it") == {"mlps"}
    assert acronym_matches("Is the VAE sharper?", "a variational autoencoder") == {"vae"}
    # Two letters match too many word pairs by chance; words in another order spell nothing; and
    # a function word gives no letter ("the shortest path" is no TSP).
    assert acronym_matches("Is it an RL method?", "reinforcement learning") == set()
    assert acronym_matches("Does it use descent gradient stochastic?", "SGD") == set()
    assert acronym_matches("How fast does it solve TSP instances?", "it finds the shortest path") == set()


def test_a_query_loses_terminal_escapes_and_hidden_characters_but_keeps_script_joiners():
    from rag.text import checked_query

    assert checked_query("Which papers work on \x1b[31mdiffusion\x1b[0m models?") == (
        "Which papers work on diffusion models?"
    )
    assert checked_query("\x1b]0;title\x07diffusion \x1b[2Jmodels\x07") == "diffusion models"
    assert checked_query("diffusion\u202emodels") == "diffusion models"  # not one word
    assert checked_query("a\nmulti-line\tquestion") == "a multi-line question"
    assert checked_query("Переход\u200cкод") == "Переход\u200cкод"  # a joiner some scripts need
    # Pasted or typed as the papers do not write it: a zero-width space, full-width letters, "³".
    assert checked_query("What does O\u200bPUS stand for?") == "What does OPUS stand for?"
    assert checked_query("What is ＯＰＵＳ or C³?") == "What is OPUS or C3?"
    # ... but a zero-width space between words parts them, and math keeps its powers.
    assert checked_query("diffusion\u200bmodels in O(n²)") == "diffusion models in O(n²)"


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("We propose DAGNN, a network that follows the partial order of a DAG.", 0),
        ("This paper introduces TrajMark, a watermark for trajectories.", 0),
        ("In this paper, we distinguish the roles graphs play.", 1),
        ("Here we show that probing fails under shift.", 1),
        ("Graph-structured data are ubiquitous.", 2),
        ("Experiments on ImageNet show a 3% gain.", 2),
    ],
)
def test_an_abstract_sentence_is_told_apart_as_contribution_own_voice_or_background(sentence, role):
    assert sentence_role(sentence) == role


def test_digits_raised_after_a_letter_are_indexed_on_the_line():
    from rag.text import indexed_text, lexical_terms

    assert indexed_text("We propose $C^3$ and C^{3}; S²IP") == "We propose $C3$ and C3; S2IP"
    assert "c3" in lexical_terms("Cross-Context Consistency ($C^3$)")
    assert indexed_text("a rate of 10^{-3} and 2^10") == "a rate of 10^{-3} and 2^10"  # no letter before
    assert indexed_text("$x^{3n}$") == "$x^{3n}$"  # not a raised figure alone


def test_a_square_root_of_more_than_one_symbol_is_bracketed_and_colour_markup_is_dropped():
    from rag.text import plain_text

    assert plain_text(r"$\frac{\sqrt{m+n}C}{K^{1/4}}$ and $1/\sqrt{mn}$", symbols=True) == (
        "(√(m+n)C)/(K^(1/4)) and 1/√(mn)"
    )  # "√m+nC" read as √m plus nC
    assert plain_text(r"$\sqrt{2}$, $\sqrt n$, $\sqrt{\alpha}$", symbols=True) == "√2, √n, √α"
    assert plain_text(r"$\sqrt[3]{x+y}$", symbols=True) == "³√(x+y)"
    assert plain_text(r"the {\color{red} stored arms} are", symbols=True) == "the stored arms are"
    shown = plain_text(r"the \textcolor{red}{stored arms} and $\textcolor{blue}{x^2}$", symbols=True)
    assert shown == "the stored arms and x²"
