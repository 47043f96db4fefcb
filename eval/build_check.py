"""Build the claim-checking benchmark of ``citeline check`` (issue #21).

Each line of ``eval/check-{dev,test}.jsonl`` is one sentence of a draft that cites (or does not
cite) an indexed paper, of one of four kinds:

- ``correct``: a paraphrase of what the paper says, cited to that paper;
- ``wrong``: the same kind of paraphrase cited to its nearest neighbour (TF-IDF cosine over title and
  abstract, within the collection), the paper a hurried author confuses it with;
- ``altered``: a paraphrase of the paper, cited to it, with one thing changed: a number, a method or
  model name, or the direction of a result (``alteration`` says which);
- ``uncited``: a paraphrase of the paper with no citation at all.

The claims are written by hand below as data, in a researcher's words rather than the abstract's
(a copied sentence is trivially supported); only the wrong paper, the citation style and the
drafts are computed, so the files are reproducible::

    python eval/build_check.py --corpora ../shared/corpora

Two collections are used. ``default`` is the bundled ICML 2026 list (no titles or authors, so its
claims cite citeline's own keys, ``[003-02]``). ``check-colm`` is COLM 2024 and 2025 from the
shared corpora (717 real papers with titles, authors and OpenReview URLs), whose claims cite in
the other styles people use: ``\\cite{key}`` through a generated .bib, ``(Surname et al., 2025)``
and numbered ``[3]`` with a reference list. The split is by paper: test cites the bundled files
003 and 004 (entries 10-19) and COLM 2025; dev cites file 000, 004 (entries 1-9) and COLM 2024.
The test split is frozen: it was written and committed before the checker was tuned, and only
dev may be looked at while tuning.

A row names its papers by source file and id (``{"source": "colm2025.jsonl.gz", "id": ...}``); the
corpus files are read from ``--corpora``, never copied into the project. ``bench/check_claims.py``
turns the rows of one ``draft`` into a draft file (and a .bib), checks it and scores the verdicts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COLM = ("colm2024.jsonl.gz", "colm2025.jsonl.gz")
DRAFT_CLAIMS = 30  # claims per draft at most: the "30-claim draft"
STYLES = ("cite", "author-year", "numbered")  # how COLM claims cite, in turn

# fmt: off
# (source, paper id, kind, alteration, claim). Sources: a bundled seed file, or a corpus file.
ICML_000 = "000_888317b1d60d9493.txt"
ICML_003 = "003_354298e4bcd67e6b.txt"
ICML_004 = "004_65987e6d42e383e2.txt"
C24, C25 = COLM

TEST: list[tuple[str, str, str, str, str]] = [
    (ICML_003, "003-01", "correct", "",
     "Cross-Context Consistency detects sandbagging without any training data by checking whether a "
     "model's answers stay consistent across paraphrases of the same question"),
    (ICML_003, "003-02", "altered", "method",
     "For diffusion language models that support any-order decoding, d2-StepMerge computes the exact "
     "trajectory likelihood in a single model pass"),
    (ICML_003, "003-03", "wrong", "",
     "Attention heads of reasoning LLMs reveal a preplan-and-anchor pattern, which can be exploited to "
     "give reinforcement learning credit to the critical tokens"),
    (ICML_003, "003-04", "altered", "number",
     "OPUS scores pre-training data in the update space induced by the optimizer and costs only 14.7% "
     "additional compute"),
    (ICML_003, "003-05", "uncited", "",
     "A mechanistic model that chains an equivariant encoder, a neuro-symbolic object encoder and a "
     "recurrent decision agent reproduces human response times in mental rotation tasks"),
    (ICML_003, "003-06", "correct", "",
     "On implicit-risk tasks Meerkat-VL raises the safety of multimodal LLMs by 32%, while improving "
     "safety and helpfulness overall by 16% and 13%"),
    (ICML_003, "003-07", "altered", "number",
     "The MintVid dataset used to evaluate VideoVeritas holds 3K videos produced by 12 recent generators"),
    (ICML_003, "003-08", "wrong", "",
     "A multilingual reward dataset covering six domains and 103 languages supports a unified reasoning "
     "reward model that judges both pairwise and listwise data"),
    (ICML_003, "003-09", "altered", "direction",
     "Neural Honeytrace increases the number of queries needed to verify ownership compared with "
     "existing watermarking methods"),
    (ICML_003, "003-10", "correct", "",
     "Conditional Diffusion Sampling first samples an initial distribution with parallel tempering and "
     "then transports the samples with a closed-form SDE, so it needs no neural training"),
    (ICML_003, "003-11", "wrong", "",
     "Distributionally robust training over sets, with a barycentric adversary on simplex weights, "
     "keeps set representations robust when elements are corrupted at inference time"),
    (ICML_003, "003-12", "correct", "",
     "RankTuner weights each token of supervised fine-tuning by where the ground-truth token ranks "
     "relative to the rank the model expects, which helps mathematical reasoning and code generation"),
    (ICML_003, "003-13", "uncited", "",
     "Per-timestep violation credit can be learned from trajectory-level safety labels alone and used "
     "in constrained policy optimization without a known cost function"),
    (ICML_003, "003-14", "altered", "number",
     "Diffusion meta-models trained on 100 million residual stream activations have a loss that predicts "
     "how much their prior helps steering"),
    (ICML_003, "003-15", "wrong", "",
     "Dropping the redundancy assumption of multimodal self-supervised learning and aligning segments of "
     "the same subject improves fairness on heterogeneous data without hurting downstream accuracy"),
    (ICML_003, "003-16", "altered", "direction",
     "In robust distributed learning, data poisoning leads to strictly worse generalization rates than "
     "Byzantine failures"),
    (ICML_003, "003-17", "correct", "",
     "Distribution-free estimators can trace the Pareto frontier between miscoverage and regret of "
     "robust predict-then-optimize policies, which guides the choice of the robustness level"),
    (ICML_003, "003-18", "altered", "number",
     "Training a poisoned LLM to articulate its own trigger defends against backdoors, as shown on 9 "
     "backdoor attacks against 6 baseline defenses"),
    (ICML_003, "003-19", "wrong", "",
     "With a sliding window over a single-pass stream of arms, identifying the best arm is hard when "
     "memory is sublinear, but an approximately best arm can be found efficiently"),
    (ICML_004, "004-10", "correct", "",
     "AdLift protects 3D Gaussian Splatting assets from instruction-driven editing by lifting bounded 2D "
     "adversarial perturbations into safeguard Gaussians that hold across views"),
    (ICML_004, "004-11", "wrong", "",
     "A dual-prototype evidential fusion network for whole-slide images predicts survival intervals "
     "with their uncertainty and explains its predictions through prototypes"),
    (ICML_004, "004-12", "altered", "number",
     "DLA merges the states of multi-state linear attention dynamically and was evaluated on 12 "
     "datasets after pre-training two linear attention models"),
    (ICML_004, "004-13", "altered", "direction",
     "MoCo-EA finds that points in the middle of optimized paths between adversarial perturbations "
     "transfer worse than the endpoints"),
    (ICML_004, "004-14", "uncited", "",
     "Fair aggregation weights derived from the maximum entropy principle, together with step-wise "
     "model alignment, improve client-level fairness in federated learning while keeping global accuracy"),
    (ICML_004, "004-15", "altered", "number",
     "SVGT guides generation with a separate value module and bridge tokens, reducing harmful scores by "
     "over 90% while keeping outputs fluent"),
    (ICML_004, "004-16", "correct", "",
     "PlugGuard flags risky content while tokens stream out, adding under 0.5 ms of latency per token "
     "with 20M parameters and gaining 22.80% F1 over earlier streaming guardrails"),
    (ICML_004, "004-17", "wrong", "",
     "Objective perturbation with importance sampling makes differentially private implicit matrix "
     "factorization practical for cross-silo recommendation"),
    (ICML_004, "004-18", "correct", "",
     "Causal interventions on a Transformer re-parameterized as a RASP program recover small "
     "interpretable sub-programs from models that length-generalize"),
    (ICML_004, "004-19", "altered", "method",
     "A deep interactive multi-agent imitation learning algorithm for linear Markov games clearly beats "
     "GAIL on Tic-Tac-Toe and Connect4"),
    (C25, "OgWh4J7bkT", "correct", "",
     "Iterating DPO over a generator and a reward model that improve each other, with verifiable "
     "rewards, reaches RL-level mathematical reasoning at a fraction of the compute"),
    (C25, "pm9ykfhknK", "altered", "method",
     "CoLa learns automated guides from human demonstrations, and a small guide trained this way "
     "outperforms Claude 3 when it guides a reasoner"),
    (C25, "zLbmsdyTiN", "altered", "number",
     "MeMAD reuses structured memories of earlier debates and gains up to 7.3% accuracy over standard "
     "multi-agent debate without updating any parameters"),
    (C25, "bYu4DOqRY8", "wrong", "",
     "Writing each user's reward as a weighted combination of shared low-rank basis functions lets an "
     "LLM adapt to unseen users from a few examples"),
    (C25, "vBcGnragkr", "altered", "direction",
     "On synthetic factual recall, imbalanced training distributions lengthen the plateau language "
     "models go through before they acquire the facts"),
    (C25, "VSwRuGtB5n", "correct", "",
     "MapIQ evaluates multimodal LLMs on 14,706 question-answer pairs over choropleth maps, cartograms "
     "and proportional symbol maps"),
    (C25, "uzauWUW9u3", "uncited", "",
     "Keeping the morally charged words that journalists choose helps automatic news summaries "
     "preserve the moral framing of the article"),
    (C25, "x6evCULIOQ", "wrong", "",
     "A post-hoc energy-based refinement of reward models makes them robust to noisy preference labels "
     "and delays reward hacking without retraining the reward model"),
    (C25, "R94bCTckhV", "correct", "",
     "OpinioRAG writes personalized opinion highlights from thousands of reviews per entity by "
     "retrieving evidence for an LLM, without any training"),
    (C25, "wRcTCcb0H5", "altered", "number",
     "Sherkala-Chat adapts LLaMA-3.1-8B to Kazakh by training it on 145.3B tokens in four languages"),
    (C25, "XvCBtm5PgF", "wrong", "",
     "When a planner LM writes an inference program that small follower models execute, a 1B-scale "
     "follower can match GPT-4o on constrained generation"),
    (C25, "0zxugBcgF5", "correct", "",
     "Correcting the reward model off-policy with importance weights, without new labels, counters "
     "overoptimization in RLHF"),
    (C25, "17yFbHmblo", "altered", "method",
     "Noiser attributes the predictions of LLMs by adding bounded noise to the attention weights of "
     "every layer"),
    (C25, "ROtDZDUgvw", "altered", "number",
     "Coding 368 queries sent to an astronomy RAG bot and interviewing 21 astronomers shows how users "
     "judge LLM answers"),
    (C25, "uXR2KsA4L9", "correct", "",
     "Human grading of LLM-written proofs shows that current models rarely solve Olympiad-level "
     "problems and that their correct final answers often come from shortcuts rather than sound reasoning"),
    (C25, "c05qIG1Z2B", "wrong", "",
     "Pausing autoregressive generation to refine a semantic plan with latent diffusion improves "
     "narrative coherence, winning over 70% of LLM-as-judge comparisons"),
    (C25, "VGw1viYliK", "uncited", "",
     "Steering Gemma 2 in a sparse latent space works as well as dense activation steering while making "
     "the steering vectors easier to interpret and compose"),
    (C25, "52YBEzcI0l", "altered", "direction",
     "Loss spikes in LLM pre-training are avoided by making the sub-layers large and the shortcut small"),
    (C25, "9rwtezthwo", "correct", "",
     "Preference tuning on pairs whose chosen and rejected answers both come from weak models, of 3B and "
     "1.5B parameters, brings an 8B model to the level of Tülu 3"),
    (C25, "oHR862dpMC", "wrong", "",
     "Reasoning models spend far too many tokens on easy problems, and a training-free decoding method "
     "that cuts their thinking short improves calibration"),
    (C25, "kaPAalWAp3", "wrong", "",
     "Applying sparse autoencoder features dynamically, with a classifier deciding when to intervene, "
     "gives better forget-utility trade-offs than gradient-based unlearning"),
    (C25, "H6Ae8Po6fS", "wrong", "",
     "Training a policy with RL to find high-reward but low-quality responses and adding them to reward "
     "model training reduces reward hacking in RLHF"),
]

DEV: list[tuple[str, str, str, str, str]] = [
    (ICML_000, "000-01", "correct", "",
     "GenAlign combines a rubric-based generative reward model, debiased for answer position online, "
     "with a cheaper policy optimization to align multimodal LLMs with human preferences"),
    (ICML_000, "000-02", "altered", "number",
     "AdaSCALE lowers the average FPR@95 on ImageNet-1k relative to OptFS by 14.94% for near-OOD and "
     "25.28% for far-OOD data"),
    (ICML_000, "000-03", "wrong", "",
     "When people act on conformal prediction sets, equalizing set sizes rather than coverage goes "
     "with fairer downstream decisions"),
    (ICML_000, "000-04", "correct", "",
     "Reusing stored low-precision rules from earlier explanations makes Anchors much faster to compute "
     "without losing fidelity"),
    (ICML_000, "000-05", "uncited", "",
     "For DP stochastic convex optimization, privately minimizing a sequence of regularized objectives "
     "gives near-optimal privacy-utility trade-offs whose guarantees are cheaper to verify than training"),
    (ICML_000, "000-06", "altered", "direction",
     "Min-max fine-tuning toward equalized generative treatment gives less fair outcomes than the other "
     "approaches it was compared with"),
    (ICML_000, "000-07", "altered", "number",
     "Feature death in sparse autoencoders exceeds 90% on AlphaFold3 while staying near zero on GPT-2 "
     "with the same configuration"),
    (ICML_000, "000-08", "wrong", "",
     "Solving an MDP with noisy transitions can be equivalent to solving a noise-free MDP with a "
     "smaller discount factor"),
    (ICML_000, "000-09", "correct", "",
     "Adalina approximates semi-values such as the Shapley value in linear time and space and adapts "
     "to the utility function to lower the mean squared error"),
    (ICML_000, "000-10", "correct", "",
     "RedVisor detects prompt injection with a removable adapter on a frozen backbone that reasons "
     "about the attack, and reuses the KV cache to avoid a second prefill"),
    (ICML_000, "000-11", "wrong", "",
     "Networks trained on dihedral multiplication learn a divide-and-conquer algorithm whose neural "
     "representations correspond to Cayley graphs"),
    (ICML_000, "000-12", "altered", "method",
     "ProtoSAC places a prototype-based actor inside PPO so that continuous-control policies become "
     "interpretable"),
    (ICML_000, "000-13", "uncited", "",
     "Statistical profiles of Gaussian splatting parameters and simulated edits let an LLM infer which "
     "3DGS model was derived from which, without any training"),
    (ICML_000, "000-14", "altered", "number",
     "ActHook watermarks agent trajectory datasets with hook actions and reaches a detection AUC of 98.3 "
     "on Qwen-2.5-Coder-7B"),
    (ICML_000, "000-15", "wrong", "",
     "Shrinking the vocabulary through community detection makes token-level watermarks of "
     "autoregressive audio models robust without fine-tuning the tokenizer"),
    (ICML_000, "000-16", "correct", "",
     "AdamW-style Shampoo, which won the external tuning track of AlgoPerf, converges at a rate in the "
     "nuclear norm that parallels the optimal rate of SGD"),
    (ICML_000, "000-17", "altered", "number",
     "MemPot improves detection AUROC against memory extraction attacks by 50% and the true positive "
     "rate at a low false positive rate by 60%"),
    (ICML_000, "000-18", "wrong", "",
     "Linear probes on later-layer activations detect secrets that a fine-tuned LLM hides in its "
     "outputs with up to 33% higher accuracy than in the base model"),
    (ICML_000, "000-19", "altered", "direction",
     "The stability analysis of asynchronous SGD needs Lipschitz continuity and bounded gradient noise "
     "to bound its excess risk"),
    (ICML_004, "004-01", "correct", "",
     "Embedding watermarks in higher-order spherical harmonic coefficients and reading them from an "
     "invariant bispectrum lets panorama watermarks survive arbitrary 3D rotations"),
    (ICML_004, "004-02", "uncited", "",
     "The gap between an RL agent's rational risk in training and in deployment splits into an "
     "environment-shift part bounded by a Wasserstein distance and a part bounded by Rademacher complexity"),
    (ICML_004, "004-03", "wrong", "",
     "A process reward model that scores the security of every step of a code trajectory gives dense "
     "feedback for vulnerability detection and secure code generation"),
    (ICML_004, "004-04", "altered", "number",
     "In 6 vulnerability games, language models trained with RL learn to exploit loopholes to raise "
     "their reward without being told to"),
    (ICML_004, "004-05", "correct", "",
     "RCDP-UCB handles linear dueling bandits with post-serving contexts, delayed feedback and "
     "adversarial corruption, whatever the delay regime"),
    (ICML_004, "004-06", "altered", "number",
     "SOPE was evaluated on 27,216 test cases in which 524 transformed real-world MCP servers attacked "
     "LLM agents"),
    (ICML_004, "004-07", "wrong", "",
     "Seen as implicit Bayesian inference in the kernel regime, test-time training helps only when its "
     "updates match the prompt's signal-to-noise ratio"),
    (ICML_004, "004-08", "altered", "direction",
     "The update-matching objective built for adaptive optimizers gives weaker gradient inversion "
     "attacks than gradient matching when the model is trained with plain SGD"),
    (ICML_004, "004-09", "uncited", "",
     "A scaled-up KSVD dictionary learning algorithm matches sparse autoencoders on SAEBench metrics "
     "for embeddings of Gemma-2-2B and Pythia-160M"),
    (C24, "GC4mXVfquq", "altered", "number",
     "JailBreakV tests multimodal LLMs with 28,000 jailbreak cases built from 3,000 malicious queries"),
    (C24, "VHhwhmtx3b", "wrong", "",
     "Attention sinks on ubiquitous separator tokens can hurt the continual learning of pre-trained "
     "models, and scaling attention toward the other tokens first helps without replay"),
    (C24, "oRcYFm8vyB", "altered", "number",
     "Because of the softmax bottleneck, a few API queries suffice to estimate the embedding size of "
     "gpt-3.5-turbo at about 8192"),
    (C24, "zSf8PJyQb2", "correct", "",
     "Circuit faithfulness scores change a lot with seemingly minor choices of ablation method, so they "
     "reflect the researcher's methodology as much as the circuit"),
    (C24, "lVOw78nYXS", "altered", "direction",
     "Multimodal LLMs spontaneously make their own language more efficient as an interaction goes on, "
     "as the ICCA evaluation shows"),
    (C24, "PEQFHRUFca", "uncited", "",
     "Reparameterizing how samples are drawn from discrete diffusion processes gives a family of text "
     "diffusion models with better training and decoding"),
    (C24, "Zt1dwG8xrK", "wrong", "",
     "Language models trained on knowledge-graph data hallucinate less as they grow, but their "
     "hallucinations become harder to detect"),
    (C24, "Jd0bCD12DS", "correct", "",
     "For LLM fine-tuning, user-level differential privacy can be reached with group privacy or "
     "user-wise DP-SGD, and how data is selected matters for the privacy-utility trade-off"),
    (C24, "vL8BIGuFTF", "altered", "number",
     "Fine-tuning small LLMs on a task predicts whether models trained with up to 16x more compute will "
     "show emergent abilities"),
    (C24, "Zq9Dfj4nBo", "uncited", "",
     "Letting language models inspect information for a buyer while preventing its theft addresses the "
     "buyer's inspection paradox of information markets"),
    (C24, "amhPBLFYWv", "altered", "direction",
     "Recurrent models such as RWKV and Mamba fall short of transformers of the same size at predicting "
     "metrics of online human language comprehension"),
    (C24, "HDkNbfLQgu", "correct", "",
     "Training LLMs on reversed strings while keeping entities intact mitigates the reversal curse"),
    (C24, "aajyHYjjsk", "wrong", "",
     "LLMs represent whether a factual statement is true along a linear direction, and "
     "difference-in-mean probes find directions that are causally implicated"),
    (C24, "MLD1cwfjUb", "correct", "",
     "Transformers fail to length-generalize on parity because they cannot access arbitrary positions "
     "of their context, and content-based addressing helps"),
    (C24, "0oiG1KigYN", "altered", "number",
     "SPEER fine-tunes Mistral and Zephyr on about 267k hospital admissions to plan clinical summaries "
     "sentence by sentence"),
    (C24, "2cop2jmQVL", "altered", "number",
     "Pretraining on streams of search raises search accuracy on Countdown by 35% over training on "
     "optimal trajectories only"),
    (C24, "TZ0CCGDcuT", "altered", "method",
     "Circuits found by edge attribution patching with integrated gradients are more faithful than "
     "those found by ACDC"),
    (C24, "fib9qidCpY", "wrong", "",
     "Having an LLM interleave its output with symbolic references to fields of the input data makes "
     "human verification of the text easier"),
    (C24, "VWWzO3ewMS", "correct", "",
     "Deciding when to abstain from how far the model's label distribution is from the crowd's works "
     "well for hate speech detection and natural language inference"),
    (C24, "8TdcXwfNRB", "altered", "method",
     "PAPERCLIP fine-tunes a pre-trained SigLIP model on Hubble observing proposals to link telescope "
     "images with natural language"),
    (C24, "D06yk3DBas", "wrong", "",
     "Open code LLMs lag closed ones at following code-editing instructions, and fine-tuning on a "
     "curated, permissively licensed dataset narrows the gap"),
    (C24, "LzpaUxcNFK", "uncited", "",
     "Given in-context examples, GPT-4 and Claude 3 perform linear and non-linear regression on par with "
     "supervised methods such as random forests"),
    (C24, "4aqq9xTtih", "correct", "",
     "GRIFFIN keeps model quality with half of the feedforward parameters by selecting experts per "
     "sequence, needing neither training nor calibration"),
    # Dev, second round (2026-12-05): more method-name and direction changes, the kinds the first
    # round had too few of to learn from, and correct claims to count false alarms on.
    (C24, "uUIFTjBREk", "altered", "method",
     "SPADE puts an LSTM in the bottom layer of a transformer and efficient local attention in the "
     "layers above it, so long sequences get global information cheaply"),
    (C24, "B41hNBoWLo", "correct", "",
     "TOFU benchmarks unlearning on 200 made-up author profiles with 20 question-answer pairs each, "
     "part of which is the forget set"),
    (C24, "xm8zYRfrqE", "altered", "direction",
     "When the conflicting documents are real rather than synthetic, models fail to update their "
     "parametric knowledge more often than earlier studies reported"),
    (C24, "TrloAXEJ2B", "altered", "method",
     "LoraHub composes prefix-tuning modules trained on other tasks, with no extra parameters or "
     "gradients, to generalize to an unseen task from a few examples"),
    (C24, "3GhOWfSLrD", "correct", "",
     "All four LLMs tested on ReHeAT, a set of problems covering six kinds of representativeness "
     "heuristic, showed the bias"),
    (C24, "5B2K4LRgmz", "altered", "direction",
     "Keeping the real data and accumulating each generation's synthetic data on top of it does not "
     "prevent model collapse"),
    (C24, "kEVcNxtqXk", "altered", "method",
     "In the token-level MDP, DPO can be derived as a general inverse SARSA algorithm that satisfies "
     "the Bellman equation"),
    (C24, "uILyEJGKWw", "correct", "",
     "Adding human-in-the-loop synthetic dialogues to a small set of real call-center conversations "
     "raised information extraction F1 by 25% relative"),
    (C24, "KZd1EErRJ1", "altered", "direction",
     "Given the same problem in isomorphic forms, foundation models consistently do better with the "
     "image than with the text"),
    (C24, "yoVRyrEgix", "altered", "method",
     "Causal tracing in RWKV shows that factual recall is localized in middle-layer components at the "
     "subject's last token, much as in transformers"),
    (C24, "gpgMRWgv9Q", "correct", "",
     "TarGEN builds synthetic datasets by multi-step prompting without any seed examples and lets the "
     "LLM correct mislabeled instances itself"),
    (C24, "1eg6UnpYu7", "altered", "direction",
     "Pre-training the on-device model on LLM-synthesized data lowered next-word prediction accuracy "
     "on real Gboard users' data compared with a standard public dataset"),
    (C24, "xdg4CS5mkl", "altered", "method",
     "For instruction-tuned LLMs on graph tasks, describing the graph in YAML works better than "
     "natural language or code"),
    (C24, "C0j44uRPcl", "correct", "",
     "Steerable synthetic datasets and proxy tasks let one benchmark the robustness and accuracy of "
     "pretrained LMs on sentence classification without risking test-data leakage"),
    (C24, "ZZzXpyv65G", "altered", "direction",
     "The professional philosophers interviewed found language models useful for critical thinking "
     "thanks to their sense of selfhood and initiative"),
    (C24, "SwUsFTtM9h", "altered", "method",
     "Fine-tuned BLIP models, a multi-label classifier and GPT-4V together write prompts that "
     "reproduce stock and marketplace images for a fraction of their price"),
    (C24, "gUNeyiLNxr", "correct", "",
     "Circuit probing automatically uncovers the low-level circuits that compute a hypothesized "
     "intermediate variable, allowing causal analysis by targeted ablation of parameters"),
    (C24, "j3AAkO5xgr", "altered", "direction",
     "Long-form answers of LMs trained without retrieval augmentation are more attributable to the "
     "in-context documents than those of other LMs"),
    (C24, "lkrH6ovzsj", "altered", "method",
     "Multi-FAct evaluates the factuality of multilingual long-form generation by running BERTScore "
     "in many languages"),
    (C24, "yK8MT91dQY", "correct", "",
     "RESORT gives LLMs psychologically grounded reappraisal constitutions as instructions so that "
     "they can help people reappraise negative situations"),
    (C24, "2oHnsM9M9D", "altered", "direction",
     "On ACORN, larger models rating explanations lowered the agreement among annotators"),
    (C24, "F9tqgOPXH5", "altered", "method",
     "EnvGen has an LLM generate and adapt training environments so that small agents trained by "
     "imitation learning practise the skills they are weak at"),
    (C24, "Zu8OWNUC0u", "altered", "direction",
     "Reinterpreting pretrained transformers as nonparametric variational models and changing the "
     "initialisation hurts out-of-domain generalisation on NLP tasks"),
    # Dev, third round (2026-12-06): 20 more method-name and 20 more direction changes over 40
    # further COLM 2024 papers, and 20 correct claims on other statements of 20 of those papers.
    (C24, "7iaAlIlV2H", "altered", "method",
     "Because REINFORCE can make different gradient updates for batches that carry identical preference "
     "information, P3O instead learns from direct comparisons between responses"),
    (C24, "Hi8jKh4HE9", "altered", "direction",
     "Fine-tuning an aligned model on 100 benign examples chosen to lie near harmful data and far from "
     "benign data leaves it safer than fine-tuning on random benign data"),
    (C24, "7iaAlIlV2H", "correct", "",
     "P3O is a policy gradient algorithm for comparative RL that needs no value function and is "
     "invariant to reward functions carrying the same preference information"),
    (C24, "IW1PR7vEBf", "altered", "direction",
     "LLM2Vec finds that decoder-only LLMs become universal text encoders only through expensive "
     "adaptation and synthetic training data generated by GPT-4"),
    (C24, "kh9Zt2Ldmn", "correct", "",
     "Compared with earlier MCTS methods for controlled generation, value-guided PPO-MCTS reduces the "
     "mismatch between how partial outputs are scored in training and at test time"),
    (C24, "kh9Zt2Ldmn", "altered", "method",
     "PPO-MCTS reuses the reward model learned for PPO training to score partial outputs during "
     "Monte-Carlo tree search at decoding time, instead of throwing it away"),
    (C24, "aKkAwZB6JV", "correct", "",
     "On MT-Bench, the 7B Zephyr model distilled from AI feedback scored above Llama2-Chat-70B, at the "
     "time the strongest open RLHF-trained model"),
    (C24, "stmqBSW2dV", "altered", "method",
     "V-STaR improves test accuracy by 4% to 17% over prior self-improvement and verification methods "
     "on code generation and math reasoning with Mistral models"),
    (C24, "nqLAuMOF6n", "altered", "direction",
     "BTX trains its domain experts synchronously, with heavy communication between them, before "
     "combining their feedforward layers into mixture-of-experts layers"),
    (C24, "aKkAwZB6JV", "altered", "method",
     "Zephyr-7B was aligned to user intent with PPO on AI-feedback preferences ranked by a teacher "
     "model, in a few hours of training and without human annotation"),
    (C24, "46Zgqo4QIU", "altered", "direction",
     "Since STOP also updates the language model's weights, its self-improving scaffolding program "
     "amounts to full recursive self-improvement"),
    (C24, "IA8CWtNkUr", "correct", "",
     "Checkpoint averaging early in LLM pre-training helps most when learning rates are high and when "
     "the averaged checkpoints are spaced far apart"),
    (C24, "5u1GpUkKtG", "altered", "direction",
     "Reward model ensembles whose members differ only in their fine-tuning seeds generalize better "
     "than ensembles whose members differ in their pretraining seeds"),
    (C24, "MXLBXjQkmb", "correct", "",
     "In theory, minimizing the NPO loss moves a model toward catastrophic collapse exponentially more "
     "slowly than gradient ascent on the forget data"),
    (C24, "IA8CWtNkUr", "altered", "method",
     "The gains of early checkpoint averaging with high learning rates were shown by pre-training "
     "nanoGPT-2 models of 125M to 770M parameters on the C4 corpus"),
    (C24, "LKEJPySnlt", "correct", "",
     "Lory batches similar documents together to encourage expert specialization, and its experts end "
     "up capturing domain-level specialization without any supervision"),
    (C24, "MXLBXjQkmb", "altered", "method",
     "On WMDP, NPO variants were the first to unlearn reasonably when half or more of the training data "
     "must be forgotten, where earlier methods already struggled at 10%"),
    (C24, "G8LaO1P0xv", "altered", "direction",
     "A reward based purely on response length recovers little of the downstream improvement that RLHF "
     "brings over supervised fine-tuned models"),
    (C24, "LKEJPySnlt", "altered", "method",
     "Lory carries the fully differentiable expert-merging design of Soft MoE over to autoregressive "
     "language model pre-training, using causal segment routing"),
    (C24, "av0D19pSkU", "altered", "direction",
     "On Pile-trained language models from 160M to 12B parameters, membership inference attacks clearly "
     "beat random guessing across most model sizes and domains"),
    (C24, "FbhjirzvJG", "correct", "",
     "Unlike Medusa's draft heads, which guess each token independently, Hydra heads condition on the "
     "earlier tokens of the candidate continuation and speculate more accurately"),
    (C24, "MoitXWlXcS", "altered", "direction",
     "Small language models with a hidden size under roughly 1000 keep healthy latent representations "
     "late in pretraining, unaffected by the softmax bottleneck"),
    (C24, "rzQGHXNReU", "correct", "",
     "RAFT trains a model to answer from retrieved documents while ignoring distractors, quoting the "
     "relevant passage verbatim inside a chain-of-thought style answer"),
    (C24, "HVK6nl3i97", "altered", "method",
     "TriForce drafts with the target model's own weights over a quantized KV cache, itself speculated "
     "by a smaller model, to speed up long-sequence generation without loss"),
    (C24, "soGxskHGox", "correct", "",
     "Transformers linearized into RNNs by uptraining do competitively on standard benchmarks, yet even "
     "the largest of them keep falling short at in-context learning"),
    (C24, "FbhjirzvJG", "altered", "method",
     "The tuned Hydra++ recipe raises decoding throughput by up to 1.31x over EAGLE and 2.70x over "
     "plain autoregressive decoding"),
    (C24, "NikbrdtYvG", "altered", "direction",
     "Transformers easily learn to use meaningless filler tokens instead of chain-of-thought reasoning, "
     "without needing any specific or dense supervision"),
    (C24, "rzQGHXNReU", "altered", "method",
     "Retrieval-augmented fine-tuning that teaches a model to ignore distractor documents consistently "
     "improves in-domain RAG on PubMed, HotpotQA and TriviaQA"),
    (C24, "QJvfpWSpWm", "altered", "direction",
     "Even without unit tests, ranking several candidates from a smaller code model beats a single "
     "output from a larger model under the same compute budget"),
    (C24, "UfqzXg95I5", "correct", "",
     "Rather than keeping only GCG's lowest-loss suffix, AmpleGCG trains a generative model on the "
     "successful suffixes found at intermediate optimization steps"),
    (C24, "U5BUzSn4tD", "altered", "direction",
     "The gap between evaluations with high and low auxiliary task demands is largest for the language "
     "models with the most parameters and training data"),
    (C24, "Hi8jKh4HE9", "correct", "",
     "The benign fine-tuning examples that most erode an aligned model's safety often take the form of "
     "lists, bulleted points or math problems"),
    (C24, "soGxskHGox", "altered", "method",
     "SUPRA uptrains existing pretrained transformers into Mamba-style state space models for about 5% "
     "of the cost of pre-training them from scratch"),
    (C24, "IW1PR7vEBf", "correct", "",
     "LLM2Vec makes a decoder-only LLM a text encoder by enabling bidirectional attention and then "
     "training with masked next-token prediction and unsupervised contrastive learning"),
    (C24, "CybBmzWBX0", "altered", "method",
     "Controlling for output length raised AlpacaEval's Spearman correlation with MT-Bench from 0.94 to "
     "0.98 and made the metric harder to game through verbosity"),
    (C24, "X1xNsuKssb", "altered", "direction",
     "Working directly on raw bytes, MambaByte falls behind state-of-the-art subword Transformers at "
     "language modeling, although it stays robust to noise"),
    (C24, "9Ik05cycLq", "altered", "method",
     "Erase-and-check certifies safety against adversarial prompts by erasing tokens and running a "
     "Llama 2 or RoBERTa safety filter on every resulting subsequence"),
    (C24, "oRXPiSOGH9", "altered", "direction",
     "Quiet-STaR's improvements on GSM8K and CommonsenseQA depend on fine-tuning the model on those "
     "tasks after continued pretraining with internal rationales"),
    (C24, "5u1GpUkKtG", "correct", "",
     "Reward ensembles do not remove reward hacking entirely, since some hacking behaviours come from "
     "error patterns shared by every reward model in the ensemble"),
    (C24, "t3z6UlV09o", "altered", "direction",
     "A statistical model of recursive training shows that language model collapse can be avoided even "
     "when each generation is trained only on synthetic data"),
    (C24, "G8LaO1P0xv", "correct", "",
     "Reward models are the main source of the length bias in RLHF: they are non-robust and easily "
     "swayed by length biases in the preference data"),
    (C24, "UfqzXg95I5", "altered", "method",
     "Although it learns from suffixes found on open models, AmpleGCG transfers to closed-source ones "
     "and reaches a 99% attack success rate on GPT-4"),
    (C24, "av0D19pSkU", "correct", "",
     "Reported successes of membership inference against LLMs can come from distribution shift, such as "
     "members and non-members drawn from different time periods"),
    (C24, "EIjJ6ykPnh", "altered", "method",
     "D2PO's silver labeling with a discriminator helps most when the policy is trained with PPO, which "
     "then outperforms training the policy with DPO"),
    (C24, "vwIIAot0ff", "altered", "direction",
     "Upsampling domain-specific datasets relative to CommonCrawl at the end of pretraining lowers a 7B "
     "model's scores on MMLU, GSM8K and HumanEval"),
    (C24, "0VLBwQGWpA", "altered", "method",
     "A3T self-trains a Mistral-7B-Instruct agent with full-parameter fine-tuning on autonomously "
     "annotated trajectories, reaching a 96% one-shot success rate on AlfWorld"),
    (C24, "qHdSA85GyZ", "altered", "direction",
     "When the two disagree, text answers of instruction-tuned models to multiple-choice questions are "
     "less robust to question perturbations than first-token probabilities"),
    (C24, "NikbrdtYvG", "correct", "",
     "Emitting filler tokens such as dots instead of chain-of-thought steps, transformers solve two "
     "hard algorithmic tasks they cannot solve when answering directly"),
    (C24, "nXNN0x4wbl", "altered", "direction",
     "Across 25 LLMs, alignment with human brain activity correlates negatively with model size but "
     "positively with performance on world-knowledge tasks"),
    (C24, "QJvfpWSpWm", "correct", "",
     "Under a fixed compute budget, sampling several programs from a 13B code model and picking one "
     "with unit tests can beat a single 70B generation"),
    (C24, "dribhnhm1i", "altered", "method",
     "Proxy-tuning even works on a truly black-box model: applied to GPT-4 for temporal adaptation, it "
     "increased the model's knowledge of recent events"),
    (C24, "X1xNsuKssb", "correct", "",
     "Speculative decoding with subword drafts and byte-level verification makes MambaByte 2.6 times "
     "faster at inference, close to the decoding efficiency of subword Mamba"),
    (C24, "kHO2ZTa8e3", "altered", "method",
     "An open from-scratch reproduction of OpenAI's TL;DR summarization RLHF found that 2.8B and 6.9B "
     "OPT models trained with PPO beat OpenAI's released 1.3B checkpoint"),
    (C24, "oqYiYG8PtY", "altered", "direction",
     "Chain-of-thought reasoning makes multimodal LLMs more vulnerable to adversarial images under "
     "existing attacks than answering without it"),
    (C24, "SGoVIC0u0f", "altered", "method",
     "Searchformer is a Transformer trained to imitate the search dynamics of Monte Carlo tree search "
     "and then fine-tuned to solve unseen Sokoban puzzles optimally most of the time"),
    (C24, "HLoWN6m4fS", "altered", "direction",
     "LLMs learn statistical classification problems in context with better sample efficiency than "
     "traditional statistical learning algorithms, especially in higher dimensions"),
    (C24, "oRXPiSOGH9", "correct", "",
     "Quiet-STaR teaches a language model to generate rationales at each token of ordinary text, and "
     "these thoughts help most on tokens that are hard to predict"),
    (C24, "Ukf4301hXm", "altered", "direction",
     "Even when unlearning by fine-tuning on randomized labels generalizes, it goes deep: linear probes "
     "on the model's representations can no longer perform the task"),
    (C24, "nXNN0x4wbl", "correct", "",
     "Instruction tuning raises LLMs' alignment with human brain activity during reading by about 6%, "
     "but does not similarly improve behavioral alignment"),
    (C24, "GqDntYTTbk", "altered", "method",
     "Nectar pairs about 183k chat prompts with seven responses each, ranked by Claude 2 into 3.8 "
     "million pairwise comparisons, and was used to train Starling-7B"),
    (C24, "GMalvQu0XL", "altered", "method",
     "RAVEN pretrains a retrieval-augmented encoder-decoder by combining masked language modeling with "
     "next-sentence prediction, and Fusion-in-Context Learning lets it use more demonstrations "
     "without retraining"),
    (C24, "K1M3gLW0MX", "altered", "direction",
     "Compared with full fine-tuning, LoRA reliably makes models less fair across gender, race and religion "
     "subgroups, in both vision and language tasks"),
    (C24, "0o95CVdNuz", "correct", "",
     "Plain text queries are enough to pull hidden system prompts out of most LLMs with high probability, "
     "and even deployed assistants such as ChatGPT and Claude 3 leak theirs despite defenses"),
    (C24, "INivcBeIDK", "altered", "method",
     "AutoDAN writes readable jailbreak prompts that slip past perplexity filters by pairing a genetic "
     "algorithm over candidate tokens with controllable text generation"),
    (C24, "F7aAhfitX6", "altered", "direction",
     "The rare massive activations found in LLMs change substantially from one input to another and can be "
     "removed without noticeably affecting the model"),
    (C24, "SHMj84U5SH", "correct", "",
     "Across 31 public LLMs, average scores on 12 benchmarks track almost linearly how well each model "
     "compresses external text, which supports compression as an unsupervised evaluation metric"),
    (C24, "wi9IffRhVM", "altered", "method",
     "Planning tokens, which the model emits before every reasoning step and which are learned through "
     "reinforcement learning, raise the accuracy of LLMs on math word problems"),
    (C24, "kIoBbc76Sy", "altered", "direction",
     "On RULER, long-context models that solve the vanilla needle-in-a-haystack test mostly hold their "
     "accuracy as inputs lengthen, nearly all staying satisfactory at their claimed 32K context"),
    (C24, "TRxQMpLUfD", "correct", "",
     "Against a maximum random baseline, the best of several random classifiers, more than 20% of few-shot "
     "in-context learning results that beat ordinary chance are no longer above chance"),
    (C24, "nMAaCsCTCI", "altered", "method",
     "Alignment with DPO is highly sensitive to noisy preference labels, and applying label smoothing to the "
     "preferences substantially offsets the damage for some noise types"),
    (C24, "PPTrmvEnpW", "altered", "direction",
     "Injecting a derived player-skill vector into a character-level language model trained on chess games "
     "makes it lose more games rather than fewer"),
    (C24, "nGCMLATBit", "correct", "",
     "With quirky models finetuned to err whenever the name Bob is in the prompt, middle-layer linear probes "
     "still track the true answer even though the output is untruthful"),
    (C24, "v74mJURD1L", "altered", "method",
     "Best-of-Venom shows that planting a backdoor trigger phrase in 1-5% of training prompts lets an "
     "attacker make an RLHF-tuned model mention a target entity with a chosen sentiment"),
    (C24, "IPZ28ZqD4I", "altered", "direction",
     "LLMs recover less often from glaring errors planted in their chain of thought than from subtle ones"),
    (C24, "u2vAyMeLMm", "correct", "",
     "Infini-gram answers unbounded n-gram queries over trillions of tokens in milliseconds using suffix "
     "arrays instead of precomputed count tables, and its estimates can greatly lower neural LLM perplexity"),
    (C24, "dJMTn3QOWO", "altered", "method",
     "FAVA, trained on a human-annotated corpus of fine-grained hallucinations, beats ChatGPT and GPT-4 at "
     "detecting hallucination types, and its suggested edits make generated text more factual"),
    (C24, "YX7QnhxESU", "altered", "direction",
     "Across arXiv, bioRxiv and Nature journals, LLM-modified writing grew fastest in mathematics papers, "
     "while computer science papers showed the least modification"),
    (C24, "CrzAj0kZjR", "correct", "",
     "STaR-GATE rewards a Questioner model for clarifying questions that make good answers more likely, and "
     "after two rounds its personalized responses are preferred on 72% of tasks"),
    (C24, "soz1SEiPeq", "altered", "method",
     "Eagle and Finch extend RWKV with multi-headed matrix-valued states and dynamic recurrence, trained "
     "on a "
     "1.12 trillion-token multilingual corpus with a byte-pair-encoding tokenizer"),
    (C24, "wS7PxDjy6m", "altered", "direction",
     "The effective knowledge cutoffs of LLMs, estimated for each training resource, usually match the "
     "cutoff dates that model developers report"),
    (C24, "XGJBEeziEb", "correct", "",
     "Data checklists, dataset unit tests grounded in V-information, recover known SNLI artifacts, uncover "
     "new ones in preference data and enable filtering that makes alignment more data-efficient"),
    (C24, "y6SqbJfCSk", "altered", "method",
     "HGRN2 enlarges the recurrent state of hierarchically gated linear RNNs by adding a sliding-window "
     "attention branch, which makes training hardware-efficient and consistently improves over HGRN"),
    (C24, "y7JnjDcIQa", "altered", "direction",
     "Models such as Llama and Mixtral adopt another model's suggested answer only when its explanation is "
     "sound, and mostly disregard the input when the justification is poor"),
    (C24, "60a1SAtH4e", "correct", "",
     "Self-chats reveal that chatbots like LLaMA2-chat-70B drift away from their system prompt within eight "
     "rounds, a drift tied to attention decay that split-softmax counteracts"),
    (C24, "nI6JyFSnyV", "altered", "method",
     "SKVQ reorders KV cache channels so that similar ones share a quantization group, applies a Hadamard "
     "rotation within each group, and keeps recent tokens at high precision"),
    (C24, "Ti67584b98", "altered", "direction",
     "GPQA's questions turn out to be searchable: skilled non-experts given unrestricted web access for half "
     "an hour reach about the accuracy of PhD-level domain experts"),
    (C24, "ootI3ZO6TJ", "correct", "",
     "Benchmarking over 60 LLMs on PolygloToxicityPrompts shows that toxicity rises with model size and in "
     "lower-resource languages, while the particular preference-tuning method barely matters"),
    (C24, "v3w2a7EInO", "altered", "method",
     "CATS sparsifies LLM activations with a small trained predictor that chooses which MLP neurons to skip, "
     "keeping about 99% of base performance at 50% sparsity without fine-tuning"),
    (C24, "S7NVVfuRv8", "altered", "direction",
     "Current LLMs reliably ignore retrieved passages that are semantically related to the question but "
     "irrelevant, so such distractors rarely skew their answers"),
    (C24, "3X2L2TFr0f", "correct", "",
     "MiniCPM's warmup-stable-decay learning rate schedule supports continuous training and scaling studies "
     "without retraining, and points to a far larger compute-optimal data-to-model ratio than Chinchilla's"),
    (C24, "dj9x6JuiD5", "altered", "method",
     "Temp-Lora keeps the context of a long generation in a temporary soft prompt trained on previously "
     "generated text and discarded afterwards, instead of holding it all in the KV cache"),
    (C24, "zZa7Ke7WAJ", "altered", "direction",
     "Evaluating 51 LLMs on EvoEval, where HumanEval problems are evolved into new domains, leaves model "
     "rankings essentially unchanged, suggesting standard coding leaderboards are trustworthy"),
    (C24, "YfHxQSoaWU", "correct", "",
     "In the FABLES study of book-length summaries, none of several LLM-based faithfulness raters agreed "
     "strongly with human annotators, and they were especially weak at catching unfaithful claims"),
    (C24, "TQdd1VhWbe", "altered", "method",
     "Swallow adapts Llama 2 to Japanese by extending its vocabulary and continuing pretraining on "
     "machine-translated English web text, with Japanese task scores rising steadily up to 100B tokens"),
    (C24, "bnscREWUuc", "altered", "direction",
     "Across 132 FLORES translation tasks, translation fine-tuning of TOWER models lowers quality for "
     "languages not seen during fine-tuning, on average"),
    (C24, "BaOAvPUyBO", "correct", "",
     "Myopic training, which blocks gradients to past positions, reveals clear pre-caching on synthetic data "
     "but mostly breadcrumbs in natural language modeling, with pre-caching growing as models scale"),
    (C24, "5Nsl0nlStc", "altered", "method",
     "PackLLM fuses arbitrary LLMs at test time by weighting each one according to its self-reported "
     "confidence on the input prompt, beating other test-time fusion baselines"),
    (C24, "eGCw1UVOhk", "altered", "direction",
     "LMD3 finds that the density of training data around a test query does not predict how much finetuning "
     "on paraphrases of that query improves performance"),
    (C24, "sBxvoDhvao", "altered", "method",
     "Trans-tokenization initializes a target language's token embeddings as weighted averages of similar "
     "source-language embeddings, matched through unsupervised alignment of monolingual word embeddings"),
    (C24, "UPyWLwciYz", "altered", "direction",
     "Source-aware training lets LLMs cite the pretraining document behind an answer, and augmenting the "
     "pretraining data turns out to be unnecessary for this attribution"),
]
# fmt: on

SPLITS = {"dev": DEV, "test": TEST}
# A later round of claims starts new drafts, so the drafts scored before keep their claims.
FRESH_FROM = {"dev": (74, 134)}
VERDICT = {"correct": "supported", "wrong": "not supported", "altered": "not supported", "uncited": "uncited"}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z0-9\-]{2,}", text.lower())


def nearest(papers: dict[str, dict]) -> dict[str, str]:
    """Each paper's nearest other paper of the same collection by TF-IDF cosine of title + abstract."""
    docs = {pid: Counter(_words(f"{p.get('title', '')} {p['abstract']}")) for pid, p in papers.items()}
    df = Counter(w for bag in docs.values() for w in bag)
    n = len(docs)
    vectors = {}
    for pid, bag in docs.items():
        vec = {w: (1 + math.log(c)) * math.log(n / df[w]) for w, c in bag.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors[pid] = {w: v / norm for w, v in vec.items()}
    out = {}
    for pid, vec in vectors.items():
        best, best_score = "", -1.0
        for other, ovec in vectors.items():
            if other == pid:
                continue
            score = sum(v * ovec.get(w, 0.0) for w, v in vec.items())
            if score > best_score:
                best, best_score = other, score
        out[pid] = best
    return out


def bundled() -> dict[str, dict]:
    """The bundled ICML 2026 papers by id, with their seed file (parsed as citeline parses them)."""
    sys.path.insert(0, str(ROOT))
    from rag.index.corpus import parse_source
    from rag.resources import bundled_corpus

    return {p.id: {"source": p.source, "id": p.id, "abstract": p.abstract}
            for path in bundled_corpus() for p in parse_source(path, path.name).papers}  # fmt: skip


def colm(corpora: Path) -> dict[str, dict]:
    """COLM 2024 and 2025 papers by id, with their corpus file."""
    papers = {}
    for name in COLM:
        with gzip.open(corpora / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                papers[record["id"]] = {**record, "source": name}
    return papers


def surname(paper: dict) -> str:
    """The first author's surname, as an author-year citation writes it."""
    return (paper.get("authors") or [""])[0].split()[-1] if paper.get("authors") else ""


def build(split: str, corpora: Path) -> list[dict]:
    """The rows of one split, in draft order."""
    collections = {"default": bundled(), "check-colm": colm(corpora)}
    neighbours = {name: nearest(papers) for name, papers in collections.items()}
    author_years = Counter((surname(p), p.get("year")) for p in collections["check-colm"].values())
    rows, turn, counts = [], 0, Counter()
    for source, pid, kind, alteration, claim in SPLITS[split]:
        collection = "check-colm" if source in COLM else "default"
        papers = collections[collection]
        gold = papers[pid]
        if gold["source"] != source:
            raise SystemExit(f"{pid}: in {gold['source']}, not {source}")
        cited = {"correct": pid, "altered": pid, "wrong": neighbours[collection][pid]}.get(kind)
        if collection == "default":
            style = "key" if cited else "none"
            group = "icml-keys"
        else:
            group = STYLES[turn % len(STYLES)]
            turn += 1
            style = group if cited else "none"
            if style == "author-year" and author_years[(surname(papers[cited]), papers[cited]["year"])] > 1:
                style = "cite"  # "(Wang et al., 2025)" would name several papers: cite by key instead
            group = f"colm-{group}"
        if len(rows) in FRESH_FROM.get(split, ()):
            for name in counts:  # round every style's count up to a whole draft
                counts[name] = -(-counts[name] // DRAFT_CLAIMS) * DRAFT_CLAIMS
        counts[group] += 1
        draft = f"{split}-{group}-{(counts[group] - 1) // DRAFT_CLAIMS + 1}"
        row = {
            "id": f"check-{split}-{len(rows) + 1:03d}",
            "draft": draft,
            "collection": collection,
            "kind": kind,
            "claim": claim,
            "citation": style,
            "cited": {"source": papers[cited]["source"], "id": cited} if cited else None,
            "gold": {"source": source, "id": pid},
            "verdict": VERDICT[kind],
            "suggestion": [{"source": source, "id": pid}] if kind in ("wrong", "uncited") else [],
        }
        if alteration:
            row["alteration"] = alteration
        rows.append(row)
    return rows


def default_corpora() -> Path:
    """``../shared/corpora`` beside the checkout (or beside the folder of a git worktree)."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "corpora").is_dir():
            return base / "shared" / "corpora"
    return ROOT.parent / "shared" / "corpora"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=default_corpora())
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    args = parser.parse_args(argv)
    for split in ("dev", "test") if args.split == "both" else (args.split,):
        rows = build(split, args.corpora)
        if not rows:
            continue
        out = HERE / f"check-{split}.jsonl"
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{out.name}: {len(rows)} claims, {dict(Counter(r['kind'] for r in rows))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
