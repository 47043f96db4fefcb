"""citeline: cited question answering over ML conference paper lists."""

__version__ = "0.1.0"
