"""What kind of answer a question wants: one fact, or a list of the papers on a topic.

A researcher's first question is very often "Which papers study X?" or "Give me an overview of the
work on Y". Answering that from the top four retrieved abstracts misses papers, and a 1.5B model
asked to enumerate tends to refuse; so such questions are answered from topic selection instead
(every paper on the topic, one cited line each). The rules run on the English standalone question,
so a question in another language is classified after the pipeline translated it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Plural only: "Which paper proposes X?" asks for one paper, a factoid.
_PAPERS = r"(?:papers|works|articles|studies|publications|approaches|methods)"
_LISTING = re.compile(
    rf"""^\s*(?:
        (?:which|what)\s+(?:of\s+the\s+)?(?:(?!papers?\b|works?\b)\w+\s+)?{_PAPERS}\b  # which papers
      | (?:list|name|show|find|enumerate|give\s+me|get)\s+(?:me\s+)?(?:all\s+|the\s+|any\s+)*
            (?:\w+\s+)?{_PAPERS}\b                                            # list the papers ...
      | (?:what|which)\s+(?:work|research)\s+(?:is|exists)\b                  # what work is there on ...
      | (?:is|are)\s+there\s+(?:any\s+)?{_PAPERS}\b                           # are there papers on ...
      | what\s+do\s+(?:the\s+|these\s+)?{_PAPERS}\s+(?:say|contribute|report|propose)\b
      | (?:summari[sz]e|overview|survey)\b                                    # summarize the work on ...
      | (?:give|write|provide)\s+(?:me\s+)?(?:an?\s+)?(?:short\s+|brief\s+)?(?:overview|summary|survey)\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# The frame around the topic: removed to leave what the papers must be about.
_FRAME = re.compile(
    rf"""^\s*(?:
        (?:give|write|provide)\s+(?:me\s+)?(?:an?\s+)?(?:short\s+|brief\s+)?(?:overview|summary|survey)\s+of
      | summari[sz]e | overview\s+of | survey
      | (?:list|name|show|find|enumerate|give\s+me|get)\s+(?:me\s+)?
      | what\s+do\s+(?:the\s+|these\s+)?(?={_PAPERS})
      | (?:which|what)\s+(?:of\s+the\s+)?
      | (?:is|are)\s+there\s+(?:any\s+)?
    )\s*
    (?:all\s+|the\s+|any\s+)*(?:recent\s+|indexed\s+|bundled\s+)?
    (?:(?:{_PAPERS}|work|research)\b)?\s*
    (?:(?:is|are|exists?)\s+(?:there\s+)?)?
    (?:(?:say|contribute|report|propose)\s+(?:to|about|on)\s+(?:the\s+)?)?
    (?:that\s+|which\s+)?
    (?:(?:in|from)\s+(?:this|the)\s+(?:list|corpus|collection)\s+)?
    (?:(?:on|about|regarding|concerning|related\s+to|dealing\s+with|deal\s+with|deals\s+with|in|for)\b)?\s*""",
    re.IGNORECASE | re.VERBOSE,
)
# A leading verb of the frame ("study X", "propose X", "use X") says nothing about the topic.
_VERB = re.compile(
    r"^(?:study|studies|studying|address|propose|use|apply|concern|investigate|explore|tackle|consider|examine"
    r"|analy[sz]e|involve|focus\s+on|look\s+at|work\s+on|deal\s+with|introduce|present)\s+(?=\S)",
    re.IGNORECASE,
)
# ", and for what kind of content?" asks for detail per paper, not a narrower topic.
_TAIL = re.compile(
    r"\s*(?:,\s*and\s+.*|\s+and\s+(?:how|what|why|for\s+what|in\s+what|which)\b.*)?[?.!\s]*$", re.I
)


@dataclass(frozen=True)
class Intent:
    """``listing`` questions want every paper on ``topic``; ``factoid`` ones want an answer."""

    kind: str  # "listing" or "factoid"
    topic: str = ""

    @property
    def is_listing(self) -> bool:
        """The question wants every paper on a topic."""
        return self.kind == "listing"


def classify(question: str) -> Intent:
    """The intent of an English question, with the topic of a listing question."""
    if not _LISTING.match(question):
        return Intent("factoid")
    topic = _VERB.sub("", _TAIL.sub("", _FRAME.sub("", question, count=1)).strip(" ,;:"))
    return Intent("listing", topic or question.strip(" ?"))
