"""Build the subfield benchmark: "Which papers work on X?" at conference scale (issue #19).

Each line of ``eval/subfields-{dev,test}.jsonl`` is one subfield of one ICLR conference: three
questions a researcher would ask about it and, as gold, every paper of that conference whose
author keywords match the subfield's keyword list. The keyword lists and the question phrasings
are written out below as data; only the gold is computed, from the shared corpora, so the files
are reproducible::

    python eval/build_subfields.py --corpora ../shared/corpora

The split is by conference, so the frozen test part is never tuned on: dev is ICLR 2018, 2020
and 2022; test is ICLR 2017, 2021 and 2023 (all ICLR years 2017-2023 carry author keywords).

How gold is matched: a paper is gold when one of its author keywords, lower-cased with runs of
whitespace made one space, equals an entry of the topic's list (exact match, no substrings, so
"graph" never pulls in "graphical models"). Lists hold the case/plural/hyphen variants and
acronyms authors actually wrote, and clear sub-areas of the subfield; loosely related keywords
("robustness", "attention" outside the transformer topic, plain "few-shot") are left out on
purpose. Authors under-tag, so gold is incomplete and precision measured against it is a lower
bound; recall is the figure to watch.

ICLR 2017's keywords are a fixed 15-entry taxonomy ("natural language processing", "theory",
"structured prediction", ...), so its topics are those coarse categories and there are only 9
with 12 or more papers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIN_GOLD, MAX_GOLD = 12, 150

# fmt: off
# Keyword lists, one per subfield key. Entries are already normalised (lower-case, single spaces).
_GAN = [
    "generative adversarial networks", "generative adversarial network", "gan", "gans",
    "adversarial networks", "generative adversarial nets", "conditional gans", "conditional gan",
    "conditional generative adversarial networks", "wasserstein gan", "wasserstein gans", "wasserstein-gans",
    "wasserstein generative adversarial networks", "energy-based gans", "gan theory", "theory of gans",
    "gan training", "gan compression", "unsupervised conditional gans", "generative adversarial training",
    "latent space of gans", "3d-aware gan", "data-efficient stable gan training",
    "gan for discrete sequences", "gan inversion", "robust gan-inversion",
]
_VAE = [
    "variational autoencoders", "variational autoencoder", "vae", "vaes", "variational auto-encoder",
    "variational auto-encoders", "beta-vae", "conditional variational autoencoder",
    "multimodal variational autoencoder", "hierarchical vae", "variational auteoncoders",
    "varational auto-encoder",
]
_FLOWS = [
    "normalizing flows", "normalizing flow", "normalising flows", "normalising flow",
    "flow-based generative models", "flow-based models", "flow models", "continuous normalizing flow",
    "continuous normalizing flows", "invertible neural networks", "invertible neural nets", "generative flow",
    "continuous-time flows",
]
_DIFFUSION = [
    "diffusion models", "diffusion model", "score-based generative models", "score-based generative model",
    "score-based generative modeling", "score-based models", "score-based model",
    "diffusion probabilistic models", "denoising diffusion models", "denoising diffusion model",
    "denoising diffusion probabilistic models", "denoising diffusion pobabilistic model",
    "discrete diffusion", "discrete diffusion models", "guided diffusion models", "diffusion-based model",
    "fast diffusion model", "discrete space diffusion", "continuous-time diffusion",
]
_EBM = [
    "energy-based models", "energy-based model", "energy based models", "energy based model", "ebm", "ebms",
]
_GENERATIVE = [
    "generative models", "generative model", "deep generative models", "deep generative model",
    "generative modeling", "generative modelling", "deep generative modeling", "image generation",
    "likelihood-based models", "autoregressive models", "autoregressive generative models",
]

KEYWORDS: dict[str, list[str]] = {
    "gnn": [
        "graph neural networks", "graph neural network", "gnn", "gnns", "graph convolutional networks",
        "graph convolutional network", "graph convolutional neural networks",
        "graph convolutional networks (gcn)", "graph convolution", "graph convolutions", "gcn", "gcns",
        "graph attention networks", "graph attention network", "message passing",
        "message passing neural networks", "message passing neural network", "message passing gnns", "mpnn",
        "graph networks", "graph representation learning", "graph transformer", "graph transformers",
        "spectral graph neural networks", "spectral graph convolutional neural networks", "expressive gnn",
        "expressive graph neural networks", "equivariant graph neural networks",
        "temporal graph neural networks", "hypergraph neural networks", "hypergraph neural network",
        "graph pooling", "oversmoothing", "over-smoothing", "over-squashing", "oversquashing",
        "graph neural tangent kernel", "scalable gnn training", "relational gnn", "st-gnns",
        "graph neural ode", "gnn explainers", "hierarchical graph convolution", "node classification",
        "semi-supervised node classification", "graph classification", "few shot graph classification",
    ],
    "rl": [
        "reinforcement learning", "deep reinforcement learning", "rl", "deep rl",
        "reinforcement learning (rl)", "reinforcement-learning", "reinforcement learnings",
        "model-based reinforcement learning", "model-based rl", "model based reinforcement learning",
        "model based rl", "model-free reinforcement learning", "offline reinforcement learning", "offline rl",
        "batch reinforcement learning", "off-line reinforcement learning",
        "offline/batch reinforcement learning", "off-policy reinforcement learning", "off-policy rl",
        "hierarchical reinforcement learning", "hierarchal reinforcement learning",
        "hierarchical deep reinforcement learning", "multi-agent reinforcement learning", "multi-agent rl",
        "multiagent reinforcement learning", "marl", "cooperative multi-agent reinforcement learning",
        "multi-agent deep reinforcement learning", "meta-reinforcement learning",
        "meta reinforcement learning", "inverse reinforcement learning", "policy gradient",
        "policy gradients", "policy optimization", "q-learning", "deep q-learning", "actor-critic",
        "actor critic", "goal-conditioned reinforcement learning", "goal-conditioned rl",
        "safe reinforcement learning", "multi-task reinforcement learning",
        "multitask reinforcement learning", "distributional reinforcement learning", "distributional rl",
        "reinforcement learning theory", "rl theory", "unsupervised reinforcement learning",
        "visual reinforcement learning", "sample-efficient reinforcement learning",
        "continual reinforcement learning",
    ],
    "gan": _GAN,
    "vae": _VAE,
    "flows": _FLOWS,
    "diffusion": _DIFFUSION,
    "generative": sorted(set(_GENERATIVE + _GAN + _VAE + _FLOWS + _DIFFUSION + _EBM)),
    "advrob": [
        "adversarial robustness", "adversarial examples", "adversarial example", "adversarial training",
        "adversarial attack", "adversarial attacks", "adversarial defense", "adversarial defenses",
        "adversarial defence", "certified robustness", "certified adversarial robustness",
        "certified defense", "certified defenses", "certified defences", "robustness certification",
        "certifiable robustness", "provable robustness", "provable adversarial robustness",
        "provable adversarial defense", "adversarial perturbation", "adversarial perturbations",
        "black-box adversarial attack", "black-box adversarial attack models", "certified training",
        "robustness verification", "adversarial example detection", "detection of adversarial attacks",
        "adversarial attacks/defenses", "adversarial attack and defense", "robustness to adversarial attack",
        "intrinsic adversarial robustness", "adversarially robust generalization",
        "certified robustness of neural networks", "certified adversarial defense",
        "certificate of robustness", "robustness certificates", "graph adversarial attack",
        "adversarial machine learning",
    ],
    "meta": [
        "meta-learning", "meta learning", "metalearning", "learning to learn", "unsupervised meta-learning",
        "bayesian meta-learning", "meta-reinforcement learning", "meta reinforcement learning",
        "meta-imitation learning", "gradient-based meta-learning", "model-agnostic meta-learning", "maml",
    ],
    "fewshot": [
        "few-shot learning", "few shot learning", "one-shot learning", "few-shot classification",
        "cross-domain few-shot learning", "cross-domain few-shot classification",
        "few-shot class incremental learning", "few-shot class-incremental learning",
        "few-shot class incremental learning (fscil)", "incremental few-shot learning",
        "few-shot semantic segmentation", "few-shot action recognition", "few shot graph classification",
        "few-shot domain generalization", "few-shot concept learning",
        "imbalanced and out-of-distribution tasks for few-shot learning",
    ],
    "continual": [
        "continual learning", "lifelong learning", "catastrophic forgetting", "incremental learning",
        "class incremental learning", "class-incremental learning", "task-free continual learning",
        "online continual learning", "continual reinforcement learning", "lifelong rl",
        "catastrophic interference", "lifelong", "continual-learning", "few-shot class incremental learning",
        "few-shot class-incremental learning", "few-shot class incremental learning (fscil)",
        "incremental few-shot learning", "continual test-time adaptation",
        "generative replay incremental learning", "continual disentanglment",
        "lifelong few-shot language learning", "incremental reinforcement learning",
        "incremental classification",
    ],
    "federated": [
        "federated learning", "personalized federated learning", "federated averaging",
        "unsupervised federated learning", "split federated learning", "cross-silo federated learning",
        "communication-efficient federated learning", "federated clustering", "federated bandits",
        "one-shot federated learning", "federated optimization", "fedavg",
    ],
    "interp": [
        "interpretability", "explainability", "explainable ai", "xai", "explanations", "explanation",
        "interpretable machine learning", "interpretable ml", "feature attribution", "feature attributions",
        "attribution methods", "attribution", "gradient attribution", "counterfactual explanations",
        "saliency maps", "saliency map", "saliency", "explainable artificial intelligence",
        "explainable artifical intelligence", "mechanistic interpretability", "model interpretability",
        "deep learning interpretability", "ai explainability", "explainability and interpretability",
        "ai interpretability", "interpretable ai", "post-hoc explanations", "gradient-based explanations",
        "concept-based explanation", "local explanations", "model explanation", "explanation method",
        "evaluation of interpretability", "neural model explanation", "black-box explanations", "explainable",
        "explainable model", "explainable models", "explainable neural networks", "self-explainable networks",
        "model-level explanation of neural networks", "instance-specific visual explanation",
        "inherently interpretable model", "interpretable models", "human-interpretability",
        "structured explanations", "contrastive explanations", "explainable rl",
        "interpretable classification", "gnn explainers", "real-time explanation",
        "attribution-based feature interpretation",
    ],
    "nas": [
        "neural architecture search", "architecture search", "nas",
        "latency-aware neural architecture search", "hardware-aware neural architecture search",
        "differentiable architecture search", "nas benchmark", "multitask nas", "zero-shot nas", "automl",
        "automated machine learning", "hyperparameter optimization", "hyperparameter optimisation",
        "hyperparameter tuning", "hyperparameter search", "parallel hyperparameter tuning",
    ],
    "ssl": [
        "self-supervised learning", "self-supervised", "self supervised learning", "ssl",
        "self-supervised learning (ssl)", "self-supervised learning.",
        "self-supervised representation learning", "contrastive learning",
        "contrastive representation learning", "supervised contrastive learning", "non-contrastive learning",
        "non-contrastive", "contrastive methods", "hierarchical contrastive learning",
        "contrastive clustering", "cooperative contrastive learning", "adversarial contrastive learning",
        "multi-modal contrastive learning", "theory of self-supervised learning",
        "theory of contrastive learning", "graph self-supervised learning", "contrastive",
        "masked autoencoder", "masked autoencoders", "masked auto-encoder", "masked image modeling",
    ],
    "da": [
        "domain adaptation", "unsupervised domain adaptation", "source-free domain adaptation",
        "domain adaption", "domain adaptation theory", "semi-supervised domain adaptation",
        "multi-source domain adaptation", "efficient domain adaptation", "generative domain adaptation",
        "domain adaptation/generalization", "domain shift", "test-time adaptation",
        "continual test-time adaptation", "domain adversarial training",
    ],
    "oodgen": [
        "domain generalization", "domain generalisation", "single domain generalization",
        "few-shot domain generalization", "out-of-distribution generalization",
        "out-of-distribution generalisation", "out of distribution generalization", "ood generalization",
        "ood generalisation", "out-of-domain generalization", "out-of-distribution robustness",
        "distribution shift", "distribution shifts", "invariant risk minimization", "spurious correlation",
        "spurious correlations", "subpopulation shift", "group robustness", "covariate shift",
        "domain adaptation/generalization",
    ],
    "compress": [
        "model compression", "network compression", "neural network compression",
        "deep neural network compression", "dnn compression", "compressing neural network",
        "compressing deep networks", "compression of convolutional neural networks",
        "compression deep learning models", "deep compression", "pruning", "network pruning",
        "neural network pruning", "structured pruning", "unstructured pruning", "pruning at initialization",
        "pruning before training", "model pruning", "weight pruning", "deep neural network pruning",
        "filter pruning", "magnitude-based pruning", "network magnitude-based pruning",
        "iterative magnitude pruning", "neural network structured pruning", "early pruning",
        "budget-aware pruning", "random pruning", "one shot pruning", "quantization", "weight quantization",
        "network quantization", "model quantization", "neural network quantization",
        "quantized neural networks", "quantized deep neural network", "mixed-precision quantization",
        "post training quantization", "post-training quantization", "data-free quantization",
        "activation quantization", "dynamic quantization", "non-uniform quantization", "quantized training",
        "binary neural networks", "binarized neural networks", "binary deep neural networks",
        "binary networks", "network binarization", "lottery ticket hypothesis", "lottery tickets",
        "lottery ticket", "lottery tickets hypothesis", "dual lottery ticket hypothesis",
        "dual lottery tickets hypothesis",
    ],
    "kd": [
        "knowledge distillation", "distillation", "self-distillation", "ensemble distillation",
        "feature distillation", "data-free knowledge distillation", "online distillation",
        "policy distillation",
    ],
    "privacy": [
        "differential privacy", "privacy", "differentially private", "differentially private deep learning",
        "membership inference attack", "membership inference", "privacy protection", "privacy preserving",
        "privacy-preserving deep learning", "privacy preserving deep learning",
        "privacy preserving machine learning", "privacy leakage from gradients", "privacy-utility tradeoff",
        "model privacy", "local differential privacy", "shuffle privacy", "private optimization", "dp-sgd",
        "privacy accounting", "gaussian differential privacy", "individual privacy loss",
        "private fair learning", "privacy attack", "label differential privacy", "empirical privacy",
    ],
    "fair": [
        "fairness", "algorithmic fairness", "fairness and bias in artificial intelligence",
        "fair representation learning", "fairness and security", "model fairness", "adversarial fairness",
        "fairwashing", "fair principal component analysis", "fairness defense", "fairness attack",
        "private fair learning", "group fairness", "individual fairness", "long-term fairness",
        "fair machine learning", "fair classification",
    ],
    "llm": [
        "large language models", "large language model", "llm", "llms", "language models", "language model",
        "pre-trained language models", "pretrained language models", "pre-trained language model",
        "pretrained language model", "pretrained language model.", "large-scale pre-trained language models",
        "pre-trained transformer language models", "autoregressive language model", "masked language models",
        "neural language models", "neural language model", "zeroshot language models",
        "multimodal language model", "gpt-3", "gpt-2", "gpt", "codex", "bert", "roberta", "deberta",
        "multilingual bert", "in-context learning", "prompting", "prompt tuning", "prompt learning",
        "prompt-based learning", "few-shot prompting", "few-shot prompts", "chain of thought",
        "chain-of-thought", "instruction tuning", "language modeling", "language modelling",
        "language model pre-training", "language model pretraining", "pretraining language models",
        "pre-trained language model fine-tuning",
    ],
    "transformer": [
        "transformer", "transformers", "vision transformer", "vision transformers", "visual transformers",
        "image transformers", "transformer networks", "transformer model", "deep transformers",
        "self-attention", "self attention", "multi-head self-attention", "multi-head attention",
        "efficient transformer", "efficient transformers", "linear transformer", "linear transformers",
        "sparse attention", "efficient attention", "efficient attention mechanism",
        "hierarchical vision transformers", "plain vision transformer", "hierarchical transformer",
        "transformer training", "training large transformer models", "vision transformer architecture",
        "attention", "attention mechanism", "attention mechanisms", "softmax attention", "attention layer",
        "on-device transformer",
    ],
    "dltheory": [
        "deep learning theory", "theory of deep learning", "theory of deep neural networks",
        "theory for deep learning", "learning theory for neural networks", "neural tangent kernel",
        "neural tangent kernels", "ntk", "implicit bias", "implicit regularization", "overparameterization",
        "over-parameterization", "over-parametrization", "overparametrization", "overparameterisation",
        "over-parameterized", "over-parameterized neural networks", "overparameterized neural networks",
        "over-parametrized neural networks", "overparametrized deep neural network",
        "mild overparameterization", "mean field regime", "mean-field regime", "double descent",
        "benign overfitting", "loss landscape", "loss landscapes", "loss landscape geometry",
        "infinite width", "infinite-width",
    ],
    "rltheory": [
        "reinforcement learning theory", "rl theory",
        "reinforcement learning theory (statistical learning theory)", "linear mdp",
        "linear markov decision process", "low-rank mdp", "block mdp", "markov decision process theory",
        "theory of constrained reinforcement learning", "sample complexity of reinforcement learning",
        "reward-free rl", "reward-free exploration", "reward free exploration",
    ],
    "imitation": [
        "imitation learning", "inverse reinforcement learning", "learning from demonstrations",
        "learning from demonstration", "behavior cloning", "behavioral cloning", "imitation",
        "multi-modal imitation learning", "model-based imitation learning", "hierarchical imitation learning",
        "observational imitation", "third-person imitation", "cross-domain imitation learning",
        "offline imitation learning", "meta-imitation learning", "one-shot imitation learning",
        "offline inverse reinforcement learning", "adversarial imitation learning", "self-imitation",
        "imitation from observation", "apprenticeship learning",
    ],
    "marl": [
        "multi-agent reinforcement learning", "multi-agent rl", "multiagent reinforcement learning", "marl",
        "cooperative multi-agent reinforcement learning", "multi-agent deep reinforcement learning",
        "multi-agent", "multi-agent learning", "multiagent learning", "multi-agent systems",
        "multiagent systems", "multi-agent system", "multi-agent communication", "multi-agent coordination",
        "multiagent coordination", "multi-agent games", "multi-agent competition",
        "hierarchical multi-agent learning", "multi-agent policy gradients", "multi-agent credit assignment",
        "multi-agent transfer learning", "target-oriented multi-agent cooperation",
        "multiagent-reinforcement-learning.marl",
    ],
    "offline": [
        "offline reinforcement learning", "offline rl", "batch reinforcement learning",
        "off-line reinforcement learning", "offline/batch reinforcement learning", "model-based offline rl",
        "offline policy optimization", "offline policy learning",
        "offline constrained reinforcement learning", "offline rl without actions",
    ],
    "mbrl": [
        "model-based reinforcement learning", "model-based rl", "model based reinforcement learning",
        "model based rl", "bayesian model-based rl", "model-based offline rl", "model-based planning",
        "model-based value expansion", "semi-model-based policy optimization", "model-based control",
        "world models", "world model",
    ],
    "explore": [
        "exploration", "intrinsic motivation", "intrinsic motivations", "curiosity", "safe exploration",
        "reward-free exploration", "reward free exploration", "curiosity-driven policy",
        "optimistic exploration", "exploration strategy", "structured exploration", "correlated exploration",
        "intrinsically motivated reinforcement learning", "count-based exploration",
        "exploration-exploitation", "exploration in reinforcement learning",
    ],
    "ot": [
        "optimal transport", "wasserstein distance", "wasserstein", "wasserstein metric",
        "sliced wasserstein", "sliced-wasserstein", "gromov-wasserstein", "sinkhorn", "sinkhorn algorithm",
        "optimal transport maps", "optimal transport map", "wasserstein barycenter",
        "wasserstein-2 barycenters", "optimal transportation", "optimal transport.",
        "partial wasserstein discrepancy", "sliced fused gromov wasserstein", "stochastic optimal transport",
        "weak optimal transport", "wasserstein-2", "wasserstein-2 distance", "unbalanced optimal transport",
        "entropic optimal transport",
    ],
    "causal": [
        "causality", "causal inference", "causal discovery", "granger causality", "functional causal model",
        "causal structure learning", "causal representation learning", "causal effects",
        "structural causal models", "causal structure discovery", "causal effect estimation", "causal",
        "causal network", "causal learning", "causal reasoning", "causal machine learning", "causal bandit",
        "causal invariance", "score-based causal discovery", "causal estimation", "neural causal models",
        "causal identification", "treatment effect estimation",
    ],
    "timeseries": [
        "time series", "time-series", "time series forecasting", "time-series forecasting", "forecasting",
        "time series classification", "time series analysis", "multivariate time series",
        "medical time series", "spatiotemporal forecasting", "spatio-temporal forecasting",
        "long-term forecasting", "irregular time series", "multivariate time series forecasting",
        "multivariate timeseries forecasting", "uncertainty in time series prediction",
        "multidimensional time series", "probabilistic multivariate forecasting", "time series prediction",
        "irregularly spaced time series", "robust forecasting", "multiple time series",
        "epidemic forecasting", "time series anomaly detection", "traffic forecasting",
        "synthetic time series", "time series imputation", "online time series forecasting",
        "stochastic forecasting", "asynchronous time series",
    ],
    "equivariance": [
        "equivariance", "equivariant", "equivariant neural networks", "equivariant neural network",
        "equivariant networks", "equivariant network", "group equivariance", "permutation equivariance",
        "rotational equivariance", "translation equivariance", "scale equivariance",
        "roto-translation equivariance", "se(3) equivariance", "group equivariant convolution",
        "group equivariant transformers", "group equivariant self-attention",
        "invariant and equivariant deep networks", "invariant and equivariant neural network",
        "equivariant graph neural networks", "equivariant learning", "equivariances",
        "geometric deep learning", "steerable cnns", "steerable message passing", "gauge equivariance",
        "equivariant robotics",
    ],
    "rnn": [
        "recurrent neural networks", "recurrent neural network", "rnn", "rnns", "lstm", "lstms",
        "recurrent networks", "recurrent network", "gru", "gated recurrent unit", "tree-lstm", "treelstm",
        "recurrent models", "recurrent", "sequence-to-sequence recurrent networks",
        "statistical recurrent unit", "variational rnns", "generative rnns", "probabilistic rnn",
        "sketch rnns", "quantized recurrent neural network", "fixed point recurrent neural network",
        "gilr-lstm", "real time recurrent learning", "novel recurrent neural architectures",
        "slot based recurrent architectures", "recurrent autoencoder", "rnn-cnn",
        "recurrent generative model", "long short-term memory",
    ],
    "uncertainty": [
        "bayesian deep learning", "bayesian neural networks", "bayesian neural network",
        "uncertainty estimation", "uncertainty quantification", "uncertainty", "predictive uncertainty",
        "predictive uncertainty estimation", "predictive uncertainty quantification", "epistemic uncertainty",
        "aleatoric uncertainty", "knowledge uncertainty", "heteroscedastic uncertainty",
        "uncertainty estimates", "uncertainty calibration", "uncertainty modeling", "in-domain uncertainty",
        "distribution-free uncertainty quantification", "calibration", "confidence calibration",
        "neural network calibration", "post-hoc calibration", "probability calibration", "deep ensembles",
        "deep ensemble", "bayesian learning",
    ],
    "code": [
        "program synthesis", "neural program synthesis", "program induction", "code generation",
        "source code", "programming languages", "code summarization", "neural programming",
        "neural programing", "program understanding", "program execution", "program repair",
        "semantic program repair", "programming by examples", "program generation", "code synthesis",
        "code completion", "code translation", "program translation", "zero-shot code translation",
        "machine learning for code", "ml4code", "models of source code", "models for code",
        "code representation", "code representations", "code understanding", "language to code",
        "text-to-sql", "neural programmer", "neural programmer-interpreter", "program embedding",
        "neural program embeddings", "program semantics", "learning program execution", "program analysis",
        "code", "code structure", "multi-lingual code generation benchmark", "code insertion",
        "robustness for code", "source code processing",
        "machine learning (ml) for programming languages (pl)/software engineering (se)",
    ],
    "molecules": [
        "drug discovery", "molecules", "molecule", "molecule generation", "molecule design",
        "molecular design", "molecular modeling", "molecular generation", "inverse molecular design",
        "molecular graph generation", "molecular conformation generation", "molecular property prediction",
        "molecular property", "molecular representation", "molecule representation learning",
        "machine learning for molecules", "de novo drug design", "structure-based drug design",
        "molecular docking", "controllable molecule generation", "3d molecular geometry generation",
        "large-scale 3d molecular pretraining", "2d molecular representation", "3d molecular representation",
        "general-purpose molecular model", "quantum chemistry", "computational chemistry", "chemistry",
        "machine learning for chemistry", "proteins", "protein", "protein design",
        "protein representation learning", "protein representation", "protein structure",
        "protein-ligand binding", "protein-ligand docking", "protein-ligand complex",
        "protein-protein interaction", "rigid protein docking", "protein language modelling",
        "protein conformation", "protein complexes", "protein bioinformatics", "protein editing",
        "protein thermostability", "protein science", "molecular dynamics", "chemical reaction",
    ],
    "mt": [
        "machine translation", "neural machine translation", "unsupervised machine translation",
        "multimodal machine translation", "non-autoregressive neural machine translation",
        "non-autoregressive machine translation", "multilingual non-autoregressive machine translation",
        "simultaneous machine translation", "simultaneous translation", "multilingual translation",
        "back translation", "back-translation", "language translation", "nmt",
    ],
    "qa": [
        "question answering", "reading comprehension", "machine reading", "machine reading comprehension",
        "visual question answering", "open-domain question answering", "multi-hop question answering",
        "multi-hop open-domain question answering", "open domain complex question answering",
        "commonsense question answering", "table-based question answering", "closed-book question answering",
        "multiple choice question answering", "stanford question answering dataset", "vqa",
    ],
    "semisup": [
        "semi-supervised learning", "semi supervised learning", "semisupervised learning", "semi-supervised",
        "semisupervised", "semi-supervised classification", "semi-supervised learning.",
        "semi-supervised training", "semi-supervised models", "semi-supervised learning theory",
        "imbalanced semi-supervised learning", "pseudo-labeling", "pseudo labeling", "pseudo-labelling",
        "self-training", "self-training theory",
    ],
    "dataaug": [
        "data augmentation", "data augmentations", "automatic data augmentation",
        "automated data augmentation", "adaptive data augmentation", "understanding data augmentation",
        "saliency guided data augmentation", "data augmentation in rl", "mixup", "manifold mixup",
    ],
    "diffeq": [
        "neural ode", "neural odes", "neural ordinary differential equations",
        "ordinary differential equation", "differential equations", "differential equation",
        "partial differential equations", "partial differential equation", "pde", "pdes",
        "neural pde solvers", "numerical pde", "pde modeling", "stochastic differential equation",
        "stochastic differential equations", "physics-informed neural networks", "physics-informed",
        "physics informed", "physics informed deep learning", "physics-informed machine learning",
        "physics informed learning", "graph neural ode",
    ],
    # ICLR 2017's taxonomy categories (its only keywords), with the variants later years use.
    "nlp": ["natural language processing", "nlp"],
    "unsupervised": [
        "unsupervised learning", "unsupervised representation learning", "unsupervised feature learning",
    ],
    "vision": ["computer vision"],
    "optimization": [
        "optimization", "optimization for deep learning", "deep learning optimization",
        "stochastic optimization", "non-convex optimization", "nonconvex optimization",
        "stochastic gradient descent", "sgd",
    ],
    "theory": ["theory", "deep learning theory", "theory of deep learning", "learning theory"],
    "transfer": ["transfer learning", "knowledge transfer"],
    "structured": ["structured prediction", "structured output prediction", "structured outputs"],
    # Broad areas as the free-keyword years write them (dev, added 2026-12-05: dev had no coarse
    # area, while a researcher asks for "the NLP papers" as often as for a subfield): the area's
    # name and its clear sub-areas (translation, QA, ... for NLP).
    "nlp_area": [
        "natural language processing", "nlp", "language modeling", "language model", "language models",
        "machine translation", "neural machine translation", "question answering", "text classification",
        "natural language understanding", "natural language generation", "reading comprehension",
        "sentiment analysis", "dialogue", "dialog", "dialogue systems", "text generation",
        "word embeddings", "word embedding", "sentence embeddings", "sentence embedding",
        "natural language", "summarization", "text summarization", "abstractive summarization",
        "named entity recognition", "semantic parsing", "pretrained language models",
        "pre-trained language models", "language understanding", "natural language inference", "nli",
        "text", "machine reading comprehension", "open-domain question answering", "language generation",
    ],
    "vision_area": [
        "computer vision", "vision", "image classification", "object detection", "semantic segmentation",
        "image segmentation", "instance segmentation", "object recognition", "image recognition",
        "visual recognition", "video prediction", "3d vision", "pose estimation", "scene understanding",
        "optical flow", "depth estimation", "image restoration", "super-resolution",
        "image super-resolution", "action recognition", "video recognition", "video understanding",
        "visual tracking", "object tracking", "face recognition", "image denoising", "segmentation",
    ],
    "optimization_area": [
        "optimization", "non-convex optimization", "nonconvex optimization", "stochastic optimization",
        "convex optimization", "optimisation", "sgd", "stochastic gradient descent", "adam",
        "adaptive methods", "adaptive optimization", "adaptive gradient methods", "learning rate",
        "learning rate schedule", "gradient descent", "second-order optimization",
        "second order optimization", "optimizer", "optimizers", "momentum", "distributed optimization",
        "large batch training", "minimax optimization", "min-max optimization", "zeroth-order optimization",
        "bilevel optimization", "deep learning optimization", "optimization for deep learning",
        "non-convex", "nonconvex",
    ],
    "unsupervised_area": [
        "unsupervised learning", "unsupervised representation learning", "unsupervised", "clustering",
        "deep clustering", "unsupervised domain adaptation",
    ],
    "transfer_area": [
        "transfer learning", "knowledge transfer", "fine-tuning", "finetuning", "fine tuning",
        "pre-training", "pretraining", "domain transfer", "task transfer", "transferability",
    ],
}

# The conferences, each with its topics: (keyword list key, topic as a researcher names it, three
# questions). At least one question per topic names the venue and year.
CONFERENCES: dict[str, list[tuple[str, int, list[tuple[str, str, list[str]]]]]] = {
    "dev": [
        ("iclr2018.jsonl.gz", 2018, [
            ("rl", "reinforcement learning", [
                "Which papers work on reinforcement learning?",
                "deep RL papers at ICLR 2018",
                "What did ICLR 2018 publish on learning policies from reward?",
            ]),
            ("gan", "generative adversarial networks", [
                "GAN papers at ICLR 2018",
                "Which papers study generative adversarial networks?",
                "Give me an overview of the recent work on training and evaluating GANs",
            ]),
            ("vae", "variational autoencoders", [
                "Which ICLR 2018 papers use variational autoencoders?",
                "list the VAE papers",
                "recent work on variational auto-encoders",
            ]),
            ("advrob", "adversarial examples and robustness", [
                "Which papers work on adversarial examples?",
                "What has been published on defenses against adversarial attacks at ICLR 2018?",
                "adversarial robustness papers",
            ]),
            ("rnn", "recurrent neural networks", [
                "Which papers are about recurrent neural networks?",
                "RNN and LSTM papers from ICLR 2018",
                "Give me an overview of research on recurrent architectures",
            ]),
            ("compress", "model compression (pruning and quantization)", [
                "Which papers work on compressing neural networks?",
                "network pruning and quantization papers at ICLR 2018",
                "list the model compression papers",
            ]),
            ("meta", "meta-learning", [
                "Which papers study meta-learning?",
                "the ICLR 2018 work on learning to learn",
                "meta learning papers",
            ]),
            ("nas", "neural architecture search and AutoML", [
                "Which papers work on neural architecture search?",
                "NAS and AutoML papers at ICLR 2018",
                "What has been published on designing architectures and tuning hyperparameters by search?",
            ]),
            ("interp", "interpretability and explainability", [
                "Which papers work on interpretability of neural networks?",
                "explainability papers at ICLR 2018",
                "Give me an overview of methods for explaining model predictions",
            ]),
            ("da", "domain adaptation", [
                "What papers are there on domain adaptation?",
                "ICLR 2018 papers on unsupervised domain adaptation",
                "recent work on adapting models to a new target domain",
            ]),
            ("qa", "question answering and reading comprehension", [
                "Which papers work on question answering?",
                "reading comprehension papers at ICLR 2018",
                "list the QA papers",
            ]),
            ("mt", "machine translation", [
                "Which papers work on machine translation?",
                "neural machine translation at ICLR 2018",
                "What has been published on NMT?",
            ]),
            ("code", "program synthesis and learning over code", [
                "Which papers work on program synthesis?",
                "ICLR 2018 papers on learning to generate or understand programs",
                "neural program induction and source code papers",
            ]),
            ("continual", "continual learning", [
                "Show me the papers on continual learning",
                "lifelong learning and catastrophic forgetting papers at ICLR 2018",
                "Give me an overview of continual learning",
            ]),
            ("gnn", "graph neural networks", [
                "Which papers work on graph neural networks?",
                "GNN papers at ICLR 2018",
                "the ICLR 2018 work on graph convolutional networks",
            ]),
        ]),
        ("iclr2020.jsonl.gz", 2020, [
            ("rl", "reinforcement learning", [
                "Which ICLR 2020 papers work on reinforcement learning?",
                "deep RL papers",
                "Give me an overview of the reinforcement learning research",
            ]),
            ("gnn", "graph neural networks", [
                "Which papers work on graph neural networks?",
                "GNNs at ICLR 2020",
                "What has been published on graph representation learning?",
            ]),
            ("advrob", "adversarial robustness", [
                "Which papers study adversarial robustness?",
                "adversarial attacks and defenses at ICLR 2020",
                "list the papers on adversarial training and certified robustness",
            ]),
            ("meta", "meta-learning", [
                "Which papers work on meta-learning?",
                "ICLR 2020 meta-learning papers",
                "What has been published on learning to learn?",
            ]),
            ("dltheory", "theory of deep learning", [
                "Which papers work on the theory of deep learning?",
                "deep learning theory papers at ICLR 2020",
                "Give me an overview of the work on neural tangent kernels and implicit regularization",
            ]),
            ("nas", "neural architecture search and AutoML", [
                "What papers are there on neural architecture search?",
                "NAS papers from ICLR 2020",
                "What has been published on AutoML and hyperparameter optimization?",
            ]),
            ("compress", "model compression", [
                "Which papers work on model compression?",
                "pruning, quantization and lottery ticket papers at ICLR 2020",
                "list the papers on making networks smaller and cheaper",
            ]),
            ("generative", "deep generative models", [
                "Which papers work on deep generative models?",
                "generative modeling papers at ICLR 2020 (GANs, VAEs, flows)",
                "Give me an overview of the GAN and VAE research",
            ]),
            ("imitation", "imitation learning", [
                "Which papers work on imitation learning?",
                "ICLR 2020 papers on learning from demonstrations",
                "inverse RL and behavior cloning papers",
            ]),
            ("continual", "continual learning", [
                "Which papers work on continual learning?",
                "the ICLR 2020 work on catastrophic forgetting",
                "lifelong learning papers",
            ]),
            ("marl", "multi-agent reinforcement learning", [
                "Which papers work on multi-agent reinforcement learning?",
                "MARL papers at ICLR 2020",
                "What has been published on multi-agent learning and coordination?",
            ]),
            ("explore", "exploration in reinforcement learning", [
                "Which papers work on exploration in reinforcement learning?",
                "ICLR 2020 papers on intrinsic motivation and curiosity",
                "list the RL exploration papers",
            ]),
            ("uncertainty", "uncertainty estimation and Bayesian deep learning", [
                "Which papers work on uncertainty estimation?",
                "Bayesian deep learning papers at ICLR 2020",
                "Give me an overview of calibration and predictive uncertainty in neural networks",
            ]),
            ("transformer", "transformers and attention", [
                "Which papers are about transformers?",
                "attention and Transformer papers at ICLR 2020",
                "recent work on self-attention architectures",
            ]),
        ]),
        ("iclr2022.jsonl.gz", 2022, [
            ("gnn", "graph neural networks", [
                "GNN papers at ICLR 2022",
                "Which papers work on graph neural networks?",
                "Give me an overview of message passing neural networks",
            ]),
            ("ssl", "self-supervised and contrastive learning", [
                "Which papers work on self-supervised learning?",
                "contrastive learning papers at ICLR 2022",
                "What has been published on self-supervised representation learning?",
            ]),
            ("transformer", "transformers and attention", [
                "Which papers work on transformers?",
                "vision transformer and attention papers at ICLR 2022",
                "list the Transformer papers",
            ]),
            ("continual", "continual learning", [
                "Which ICLR 2022 papers work on continual learning?",
                "catastrophic forgetting papers",
                "Give me an overview of lifelong learning",
            ]),
            ("federated", "federated learning", [
                "Which papers work on federated learning?",
                "FL papers at ICLR 2022",
                "recent work on training models across decentralized clients",
            ]),
            ("meta", "meta-learning", [
                "What papers study meta-learning?",
                "the ICLR 2022 work on meta learning",
                "list the learning-to-learn papers",
            ]),
            ("offline", "offline reinforcement learning", [
                "Which papers work on offline reinforcement learning?",
                "offline RL papers at ICLR 2022",
                "What has been published on batch RL from fixed datasets?",
            ]),
            ("mbrl", "model-based reinforcement learning", [
                "Which papers work on model-based reinforcement learning?",
                "model-based RL at ICLR 2022",
                "Give me an overview of RL with learned world models",
            ]),
            ("ot", "optimal transport", [
                "Which papers work on optimal transport?",
                "ICLR 2022 papers on optimal transport and Wasserstein distances",
                "list the OT papers",
            ]),
            ("da", "domain adaptation", [
                "Which papers work on domain adaptation?",
                "domain adaptation papers at ICLR 2022",
                "recent work on unsupervised and test-time adaptation to a target domain",
            ]),
            ("advrob", "adversarial robustness", [
                "Which papers work on adversarial robustness?",
                "adversarial attack and defense papers at ICLR 2022",
                "What has been published on certified robustness and adversarial training?",
            ]),
            ("interp", "interpretability and explainability", [
                "Which papers are about explainability?",
                "interpretability papers at ICLR 2022",
                "Give me an overview of feature attribution and explanation methods",
            ]),
            ("dltheory", "theory of deep learning", [
                "Which papers work on deep learning theory?",
                "ICLR 2022 papers on implicit bias and the neural tangent kernel",
                "What has been published on the theory of over-parameterized networks?",
            ]),
            ("molecules", "machine learning for molecules and proteins", [
                "Which papers work on machine learning for molecules?",
                "drug discovery and protein papers at ICLR 2022",
                "list the papers on molecule generation and protein modeling",
            ]),
            ("privacy", "privacy and differential privacy", [
                "Which papers work on privacy?",
                "differential privacy papers at ICLR 2022",
                "What has been published on privacy-preserving deep learning?",
            ]),
        ]),
        # Broad areas (added 2026-12-05, after the topics above; ids continue from them).
        ("iclr2018.jsonl.gz", 2018, [
            ("nlp_area", "natural language processing", [
                "Which ICLR 2018 papers are about natural language processing?",
                "language papers",
                "What has been published on text and language understanding?",
            ]),
            ("unsupervised_area", "unsupervised learning", [
                "Which papers do unsupervised learning?",
                "unsupervised learning papers at ICLR 2018",
                "Give me an overview of learning without labels",
            ]),
            ("vision_area", "computer vision", [
                "Which papers tackle computer vision problems?",
                "ICLR 2018 vision papers",
                "list the image recognition, detection and segmentation papers",
            ]),
            ("optimization_area", "optimization", [
                "Which papers study optimization methods?",
                "the ICLR 2018 work on optimization",
                "recent work on SGD and adaptive optimizers",
            ]),
        ]),
        ("iclr2020.jsonl.gz", 2020, [
            ("nlp_area", "natural language processing", [
                "Which papers work on NLP?",
                "natural language processing at ICLR 2020",
                "Give me an overview of language modeling, translation and question answering",
            ]),
            ("transfer_area", "transfer learning", [
                "Which papers study transfer learning?",
                "ICLR 2020 papers on transfer and fine-tuning",
                "What has been published on pre-training and transfer?",
            ]),
            ("optimization_area", "optimization", [
                "Show me the optimization papers",
                "optimization for deep learning at ICLR 2020",
                "Which papers work on training algorithms like SGD and Adam?",
            ]),
        ]),
        ("iclr2022.jsonl.gz", 2022, [
            ("vision_area", "computer vision", [
                "What computer vision papers are there?",
                "vision papers from ICLR 2022",
                "recent work on image classification, detection and segmentation",
            ]),
            ("transfer_area", "transfer learning", [
                "Which papers are about transfer learning?",
                "the ICLR 2022 transfer learning papers",
                "list the fine-tuning and pre-training papers",
            ]),
        ]),
    ],
    "test": [
        ("iclr2017.jsonl.gz", 2017, [
            ("nlp", "natural language processing", [
                "Which papers work on natural language processing?",
                "NLP papers at ICLR 2017",
                "Give me an overview of the language research",
            ]),
            ("unsupervised", "unsupervised learning", [
                "What papers are there on unsupervised learning?",
                "the ICLR 2017 work on unsupervised learning",
                "list the unsupervised representation learning papers",
            ]),
            ("vision", "computer vision", [
                "Which papers work on computer vision?",
                "vision papers at ICLR 2017",
                "What has been published on image recognition and other vision tasks?",
            ]),
            ("optimization", "optimization", [
                "Which papers work on optimization for training neural networks?",
                "optimization papers at ICLR 2017",
                "recent work on optimizers and training dynamics",
            ]),
            ("rl", "reinforcement learning", [
                "Which papers study reinforcement learning?",
                "RL papers from ICLR 2017",
                "Give me an overview of deep reinforcement learning",
            ]),
            ("theory", "theory of deep learning", [
                "Which papers work on the theory of deep learning?",
                "theoretical papers at ICLR 2017",
                "What has been published on the theory of neural networks?",
            ]),
            ("transfer", "transfer learning", [
                "Which papers work on transfer learning?",
                "ICLR 2017 transfer learning papers",
                "list the papers on transferring knowledge across tasks and domains",
            ]),
            ("semisup", "semi-supervised learning", [
                "Which papers work on semi-supervised learning?",
                "semi-supervised papers at ICLR 2017",
                "recent work on learning from few labels and unlabeled data",
            ]),
            ("structured", "structured prediction", [
                "Show me papers on structured prediction",
                "the ICLR 2017 work on structured prediction",
                "Give me an overview of structured output prediction",
            ]),
        ]),
        ("iclr2021.jsonl.gz", 2021, [
            ("rl", "reinforcement learning", [
                "Which papers work on reinforcement learning?",
                "RL papers at ICLR 2021",
                "Give me an overview of deep reinforcement learning research",
            ]),
            ("gnn", "graph neural networks", [
                "Which ICLR 2021 papers work on graph neural networks?",
                "GNN papers",
                "recent work on graph representation learning",
            ]),
            ("ssl", "self-supervised and contrastive learning", [
                "Which papers work on self-supervised learning?",
                "contrastive and self-supervised learning at ICLR 2021",
                "list the SSL papers",
            ]),
            ("generative", "deep generative models", [
                "What papers are there on deep generative models?",
                "generative modeling papers at ICLR 2021",
                "Give me an overview of GANs, VAEs and flows",
            ]),
            ("flows", "normalizing flows", [
                "Which papers work on normalizing flows?",
                "flow-based generative models at ICLR 2021",
                "What has been published on invertible neural networks for density estimation?",
            ]),
            ("advrob", "adversarial robustness", [
                "Which papers work on adversarial robustness?",
                "ICLR 2021 papers on adversarial examples",
                "list the adversarial training and certified defense papers",
            ]),
            ("interp", "interpretability and explainability", [
                "Which papers work on interpretability?",
                "explainable AI papers at ICLR 2021",
                "What has been published on explaining neural network predictions?",
            ]),
            ("dltheory", "theory of deep learning", [
                "Which papers study the theory of deep learning?",
                "the ICLR 2021 work on deep learning theory",
                "recent work on NTK, implicit bias and over-parameterization",
            ]),
            ("meta", "meta-learning", [
                "Which papers work on meta-learning?",
                "meta-learning papers at ICLR 2021",
                "Give me an overview of learning to learn",
            ]),
            ("fewshot", "few-shot learning", [
                "Which papers work on few-shot learning?",
                "few-shot classification papers at ICLR 2021",
                "list the one-shot and few-shot learning papers",
            ]),
            ("transformer", "transformers and attention", [
                "Which papers work on transformers?",
                "Transformer and self-attention papers at ICLR 2021",
                "What has been published on attention-based architectures?",
            ]),
            ("compress", "model compression", [
                "Which papers are about model compression?",
                "ICLR 2021 papers on pruning and quantization",
                "recent work on lottery tickets and network pruning",
            ]),
            ("dataaug", "data augmentation", [
                "Which papers work on data augmentation?",
                "data augmentation and mixup papers at ICLR 2021",
                "list the data augmentation papers",
            ]),
            ("diffeq", "neural differential equations", [
                "Which papers work on neural differential equations?",
                "neural ODE and PDE papers at ICLR 2021",
                "What has been published on solving differential equations with neural networks?",
            ]),
            ("uncertainty", "uncertainty estimation and Bayesian deep learning", [
                "Which papers work on uncertainty quantification?",
                "Bayesian deep learning papers at ICLR 2021",
                "Give me an overview of calibration and uncertainty estimation",
            ]),
            ("continual", "continual learning", [
                "Which papers work on continual learning?",
                "the ICLR 2021 continual learning papers",
                "recent work on avoiding catastrophic forgetting",
            ]),
        ]),
        ("iclr2023.jsonl.gz", 2023, [
            ("diffusion", "diffusion models", [
                "Which papers work on diffusion models?",
                "diffusion model papers at ICLR 2023",
                "Give me an overview of score-based generative modeling",
            ]),
            ("llm", "large language models", [
                "Which papers work on large language models?",
                "LLM papers at ICLR 2023",
                "What has been published on prompting and in-context learning with language models?",
            ]),
            ("federated", "federated learning", [
                "What papers study federated learning?",
                "the ICLR 2023 work on federated learning",
                "list the FL papers",
            ]),
            ("gnn", "graph neural networks", [
                "Which papers work on graph neural networks?",
                "GNN papers at ICLR 2023",
                "recent work on message passing and graph transformers",
            ]),
            ("ssl", "self-supervised and contrastive learning", [
                "Which papers work on self-supervised learning?",
                "ICLR 2023 papers on contrastive learning",
                "Give me an overview of self-supervised representation learning",
            ]),
            ("offline", "offline reinforcement learning", [
                "Which papers work on offline reinforcement learning?",
                "offline RL at ICLR 2023",
                "What has been published on learning policies from fixed datasets?",
            ]),
            ("advrob", "adversarial robustness", [
                "Which papers are about adversarial robustness?",
                "adversarial attack and defense papers at ICLR 2023",
                "list the adversarial training papers",
            ]),
            ("kd", "knowledge distillation", [
                "Which papers work on knowledge distillation?",
                "distillation papers at ICLR 2023",
                "recent work on teacher-student distillation",
            ]),
            ("privacy", "privacy and differential privacy", [
                "Which papers work on differential privacy?",
                "privacy papers at ICLR 2023",
                "What has been published on privacy attacks and private training?",
            ]),
            ("fair", "fairness", [
                "Which papers work on fairness?",
                "algorithmic fairness at ICLR 2023",
                "Give me an overview of fairness in machine learning",
            ]),
            ("oodgen", "out-of-distribution generalization", [
                "Which papers work on out-of-distribution generalization?",
                "ICLR 2023 papers on domain generalization and distribution shift",
                "list the papers on robustness to distribution shift",
            ]),
            ("equivariance", "equivariant networks and geometric deep learning", [
                "Which papers work on equivariant neural networks?",
                "geometric deep learning and equivariance at ICLR 2023",
                "What has been published on symmetry-aware architectures?",
            ]),
            ("molecules", "machine learning for molecules and proteins", [
                "Which papers work on molecules and proteins?",
                "drug discovery papers at ICLR 2023",
                "recent work on molecular generation and protein modeling",
            ]),
            ("timeseries", "time series", [
                "Show me the time series papers",
                "time series forecasting papers at ICLR 2023",
                "Which papers work on time-series modeling?",
            ]),
            ("causal", "causal inference and discovery", [
                "Which papers work on causal inference?",
                "causality papers at ICLR 2023",
                "Give me an overview of causal discovery",
            ]),
            ("rltheory", "reinforcement learning theory", [
                "Which papers work on reinforcement learning theory?",
                "RL theory at ICLR 2023",
                "What has been published on the sample complexity of RL?",
            ]),
        ]),
    ],
}
# fmt: on


def normalise(keyword: str) -> str:
    """How an author keyword is compared: lower-case, runs of whitespace made one space."""
    return " ".join(str(keyword).split()).lower()


def read_corpus(path: Path) -> list[dict]:
    """The records of one corpus file, in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def gold_ids(records: Iterable[dict], keywords: Iterable[str]) -> list[str]:
    """Ids of the records with at least one author keyword in ``keywords``, in file order."""
    wanted = set(keywords)
    return [r["id"] for r in records if wanted & {normalise(k) for k in r.get("keywords") or []}]


def _check_lists() -> None:
    for key, words in KEYWORDS.items():
        bad = [w for w in words if w != normalise(w)]
        if bad:
            raise SystemExit(f"error: keyword list {key!r} has unnormalised entries: {bad}")


def build(corpora: Path) -> dict[str, list[dict]]:
    """Every split's topic rows, with gold computed from the corpus files in ``corpora``."""
    _check_lists()
    out: dict[str, list[dict]] = {}
    for split, conferences in CONFERENCES.items():
        rows, prefix = [], "sf-d" if split == "dev" else "sf-t"
        for file, year, topics in conferences:
            path = corpora / file
            if not path.is_file():
                raise SystemExit(f"error: {path} not found (pass --corpora ../shared/corpora)")
            records = read_corpus(path)
            venue = {r["venue"] for r in records}
            if venue != {"ICLR"} or {int(r["year"]) for r in records} != {year}:
                raise SystemExit(f"error: {file} is not ICLR {year} only")
            for key, topic, questions in topics:
                gold = gold_ids(records, KEYWORDS[key])
                if not MIN_GOLD <= len(gold) <= MAX_GOLD:
                    span = f"{MIN_GOLD}-{MAX_GOLD}"
                    raise SystemExit(f"error: {file} {topic!r}: {len(gold)} gold papers, outside {span}")
                if len(questions) != 3 or not any(f"ICLR {year}" in q for q in questions):
                    raise SystemExit(f"error: {file} {topic!r}: need 3 questions, one naming ICLR {year}")
                rows.append({
                    "id": f"{prefix}{len(rows) + 1:02d}", "file": file, "venue": "ICLR", "year": year,
                    "topic": topic, "keywords": KEYWORDS[key], "questions": questions, "gold": gold,
                })  # fmt: skip
        out[split] = rows
    return out


def summary(corpora: Path, splits: dict[str, list[dict]]) -> str:
    """Per conference: papers, how many carry any keyword; per topic: gold size."""
    lines = []
    for split, rows in splits.items():
        lines.append(f"== {split}: {len(rows)} topics, {3 * len(rows)} questions")
        for file in dict.fromkeys(r["file"] for r in rows):
            records = read_corpus(corpora / file)
            tagged = sum(1 for r in records if r.get("keywords"))
            mine = [r for r in rows if r["file"] == file]
            union = len({g for r in mine for g in r["gold"]})
            lines.append(f"  {file}: {len(records)} papers, {tagged} with author keywords; "
                         f"{len(mine)} topics, {union} distinct gold papers")  # fmt: skip
            lines += [f"    {r['id']}  {len(r['gold']):4d}  {r['topic']}" for r in mine]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write eval/subfields-dev.jsonl and eval/subfields-test.jsonl and print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=HERE.parent.parent / "shared" / "corpora")
    parser.add_argument("--out", type=Path, default=HERE, help="folder for the two .jsonl files")
    args = parser.parse_args(argv)
    splits = build(args.corpora)
    args.out.mkdir(parents=True, exist_ok=True)
    for split, rows in splits.items():
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (args.out / f"subfields-{split}.jsonl").write_text(text, encoding="utf-8")
    print(summary(args.corpora, splits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
