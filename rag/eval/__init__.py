"""Eval: run question sets through the public answer path and score retrieval and answers.

Sits above ``answer`` and ``api`` (it measures them), so nothing below imports from it.
"""
