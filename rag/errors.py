"""The one exception type the CLI turns into a one-line message and a non-zero exit."""


class CitelineError(Exception):
    """A user-facing failure: bad input, a missing model, an unreachable server.

    Raised instead of letting library exceptions escape, so that the CLI can print
    ``error: <message>`` and exit non-zero without a traceback.
    """


class CitelineWarning(UserWarning):
    """Something the user should know that did not stop the command (a damaged file rebuilt).

    The library warns through :mod:`warnings`, so that it never prints on its own; the CLI shows
    each as one ``warning:`` line on stderr.
    """


def warn(message: str) -> None:
    """Issue a :class:`CitelineWarning`."""
    import warnings

    warnings.warn(message, CitelineWarning, stacklevel=2)
