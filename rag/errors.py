"""The one exception type the CLI turns into a one-line message and a non-zero exit."""


class CitelineError(Exception):
    """A user-facing failure: bad input, a missing model, an unreachable server.

    Raised instead of letting library exceptions escape, so that the CLI can print
    ``error: <message>`` and exit non-zero without a traceback.
    """
