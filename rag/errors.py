"""The exceptions the CLI turns into a one-line message and a non-zero exit.

:class:`CitelineError` is the root; library callers (the MCP server, LangChain users, tests) catch a
subclass by class rather than match message text: :class:`NotFound` (a named paper, collection,
file or log entry does not exist), :class:`BadInput` (a value out of range, a malformed file),
:class:`BackendUnavailable` (the LLM, embedding or Chroma server cannot be used) and
:class:`StoreBusy` (another process holds the collection or the log; try again later). The CLI and
the MCP server catch the root, so every one of them is still one ``error: ...`` line.

Every message is redacted (:func:`redact`): servers echo request headers in error bodies
("Incorrect API key provided: Bearer sk-..."), and an error text must never carry a credential
to the terminal, a log or a JSON report, whichever path (LLM, embeddings, Chroma) it came from.
"""

import re

# Credentials as they appear in error bodies: Authorization headers, OpenAI-style keys, and
# key=value / "key": "value" pairs whose name says secret.
_SECRETS = [
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}"),
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{6,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|access[_-]?token|token|secret|password|authorization)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"',;}]{4,}"
    ),
]
REDACTED = "[redacted]"


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with credentials replaced: the known ``secrets``, and anything shaped like one."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    text = _SECRETS[0].sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _SECRETS[1].sub(REDACTED, text)
    return _SECRETS[2].sub(lambda m: m.group(1) + REDACTED, text)


class CitelineError(Exception):
    """A user-facing failure: bad input, a missing model, an unreachable server.

    Raised instead of letting library exceptions escape, so that the CLI can print
    ``error: <message>`` and exit non-zero without a traceback. The message is redacted.
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(redact(str(message)))


class NotFound(CitelineError):
    """Something named does not exist: a paper id, a collection, a file, a log entry, a model."""


class BadInput(CitelineError):
    """A value or a file the caller gave is out of range or malformed; the message says which."""


class BackendUnavailable(CitelineError):
    """A server or model citeline needs cannot be used now: unreachable, timed out, not started,
    refusing the credentials, or not installed. Retrying later, or another backend, may help."""


class StoreBusy(CitelineError):
    """Another process holds the collection (an ingest's lock or lease) or the answer log; nothing
    was changed, and the same call succeeds once that process is done."""


class CitelineWarning(UserWarning):
    """Something the user should know that did not stop the command (a damaged file rebuilt).

    The library warns through :mod:`warnings`, so that it never prints on its own; the CLI shows
    each as one ``warning:`` line on stderr.
    """


def warn(message: str) -> None:
    """Issue a :class:`CitelineWarning`."""
    import warnings

    warnings.warn(redact(message), CitelineWarning, stacklevel=2)


_FULL_SIGNS = ("database or disk is full", "no space left on device", "disk quota exceeded")


def disk_full(exc: BaseException, directory: object) -> bool:
    """Whether ``exc`` (or what caused it) means the disk of ``directory`` has no room left.

    The signs differ by writer: ``OSError`` ENOSPC from our own files, SQLite's "database or disk
    is full" (also inside Chroma's errors); SQLite's bare "disk I/O error" when it cannot even
    create its journal, and numpy's errno-less "N requested and M written", are taken as disk
    full only when the disk really is (nearly) full.
    """
    import errno
    import shutil

    link: BaseException | None = exc
    while link is not None:
        text = str(link).lower()
        if isinstance(link, OSError) and link.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(sign in text for sign in _FULL_SIGNS):
            return True
        if "disk i/o error" in text or (isinstance(link, OSError) and link.errno is None):
            try:
                return shutil.disk_usage(str(directory)).free < 1 << 20
            except OSError:
                return False
        link = link.__cause__ or link.__context__
    return False


def disk_full_error(directory: object, doing: str) -> CitelineError:
    """The one line for a full disk: what could not be done, and which data directory it is."""
    return CitelineError(
        f"disk full: {doing} in the data directory {directory}; "
        "free some space or set CITELINE_DATA_DIR to a directory on another disk"
    )
