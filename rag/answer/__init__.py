"""Answer: turn a question and the retrieved papers into a cited answer, and check it.

The flow is prompt → answer → check (:mod:`rag.answer.pipeline` reads in that order); listings and
summaries are answered here too. Depends on ``retrieval`` and ``llm``, never the other way round.
"""
