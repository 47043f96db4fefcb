"""What kind of answer a question wants: one fact, or a list of the papers on a topic.

A researcher's first question is very often "Which papers study X?" or "Give me an overview of the
work on Y". Answering that from the top four retrieved abstracts misses papers, and a 1.5B model
asked to enumerate tends to refuse; so such questions are answered from topic selection instead
(every paper on the topic, one cited line each). The rules run on the English standalone question,
so a question in another language is classified after the pipeline translated it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rag.text import is_english_word, lexical_terms, one_edit

# Plural only: "Which paper proposes X?" asks for one paper, a factoid.
_PAPERS = r"(?:papers|works|articles|studies|publications|approaches|methods)"
_LISTING = re.compile(
    rf"""^\s*(?:
        (?:which|what)\s+(?:of\s+the\s+)?(?:(?!papers?\b|works?\b)\w+\s+)?{_PAPERS}\b  # which papers
      | (?:list|name|show|find|enumerate|give\s+me|get)\s+(?:me\s+)?(?:all\s+|the\s+|any\s+)*
            (?:\w+\s+)?{_PAPERS}\b                                            # list the papers ...
      | (?:what|which)\s+(?:work|research)\s+(?:is|exists)\b                  # what work is there on ...
      | what\s+(?:else\s+)?is\s+there\s+(?:on|about|regarding|concerning)\b     # what is there on ...
      | (?:is|are)\s+there\s+(?:any\s+)?{_PAPERS}\b                           # are there papers on ...
      | what\s+do\s+(?:the\s+|these\s+)?{_PAPERS}\s+(?:say|contribute|report|propose)\b
      | (?:summari[sz]e|overview|survey)\b                                    # summarize the work on ...
      | (?:give|write|provide)\s+(?:me\s+)?(?:an?\s+)?(?:short\s+|brief\s+)?(?:overview|summary|survey)\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Where the papers are kept, as a question names it: "this list", "the collection", "your index".
_KEPT_IN = r"(?:this|the|your|my)\s+(?:list|corpus|collection|index|library)"
# What links the papers to their topic ("papers on X", "work involving X"): after it comes the
# topic, whose first word is a noun even where a frame verb is spelled the same ("on design of").
_LINK = (
    r"(?:on|about|regarding|concerning|related\s+to|dealing\s+with|deals?\s+with|in|for"
    r"|with|involving|proposing|using|to)"
)
# The frame around the topic: removed to leave what the papers must be about.
_FRAME = re.compile(
    rf"""^\s*(?:
        (?:give|write|provide)\s+(?:me\s+)?(?:an?\s+)?(?:short\s+|brief\s+)?(?:overview|summary|survey)\s+of
      | summari[sz]e | overview\s+of | survey
      | (?:list|name|show|find|enumerate|give\s+me|get)\s+(?:me\s+)?
      | what\s+do\s+(?:the\s+|these\s+)?(?={_PAPERS})
      | what\s+else\s+
      | (?:which|what)\s+(?:of\s+the\s+)?(?:are\s+)?
      | (?:is|are)\s+there\s+(?:any\s+)?
    )\s*
    (?:all\s+|the\s+|any\s+)*(?:recent\s+|indexed\s+|bundled\s+)?
    (?:(?:{_PAPERS}|work|research)\b)?\s*
    (?:(?:is|are|exists?)\s+(?:there\s+)?)?
    (?:(?:say|contribute|report|propose)\s+(?:to|about|on)\s+(?:the\s+)?)?
    (?:that\s+|which\s+)?
    (?:(?:do|does)\s+(?:you|it|citeline)\s+(?:have|know|hold|contain)\s+)?
    (?:(?:in|from)\s+{_KEPT_IN}\s+)?
    (?:{_LINK}\b)?\s*""",
    re.IGNORECASE | re.VERBOSE,
)
# A leading verb of the frame ("study X", "propose X", "use X") says nothing about the topic.
# A verb of how research is done ("derive bounds", "develop methods for X") is part of the frame too.
_VERB = re.compile(
    r"^(?:study|studies|studying|address|propose|use|apply|concern|investigate|explore|tackle|consider|examine"
    r"|analy[sz]e|involve|focus\s+on|look\s+at|work\s+(?:on|with)|deal\s+with|introduce|present"
    r"|derive|develop|design|provide|prove|establish|leverage|employ|utili[sz]e|adopt|evaluate|assess"
    r"|compare|characteri[sz]e|improve|extend|discuss|describe|report|build\s+on|rely\s+on|target|solve"
    r"|handle)\s+(?=\S)",
    re.IGNORECASE,
)
_ENDS_IN_LINK = re.compile(rf"\b{_LINK}\s*$", re.I)
# A second verb joined to the first: "analyze or exploit X", "study and improve X".
_AND_VERB = re.compile(r"^(?:or|and)\s+[a-z]+\s+(?=\S)", re.IGNORECASE)


def _unverbed(text: str) -> str:
    """``text`` without the verb of the frame in front (and one joined to it by "or"/"and"), and
    the preposition the verb took ("evaluate on ImageNet" is about ImageNet, not "on ImageNet")."""
    stripped = _VERB.sub("", text, count=1)
    if stripped == text:
        return stripped
    return _TAKEN.sub("", _AND_VERB.sub("", stripped, count=1), count=1)


# ("in" only before a name: "focus on in vitro models" is about in vitro models.)
_TAKEN = re.compile(r"^(?:(?:on|with|about|against|to|from)\s+(?=\S)|in\s+(?=[A-Z0-9]))")


# ", and for what kind of content?" asks for detail per paper, not a narrower topic.
# ("pruning, quantization, and distillation" is a list: no wh-word, no question.)
_TAIL = re.compile(
    r"\s*(?:,\s*and\s+(?:\w+\s+){0,2}?(?:how|what|which|why|where|when|who|whom)\b.*"
    r"|\s+and\s+(?:how|what|why|for\s+what|in\s+what|which)\b.*)?[?.!\s]*$",
    re.I,
)


# Where and when, as researchers say it: "at ICLR 2024", "the ICML 2026 work on", "NeurIPS'23".
VENUES = ("ICML", "ICLR", "NeurIPS", "NIPS", "COLM", "CoRL", "AISTATS", "COLT", "UAI", "AAAI", "IJCAI",
          "ACL", "EMNLP", "NAACL", "CVPR", "ICCV", "ECCV", "KDD", "TMLR", "JMLR")  # fmt: skip
_VENUE = re.compile(
    rf"(?:\b(?:at|from|in|of|for)\s+)?(?:the\s+)?\b(?P<venue>{'|'.join(VENUES)})\b"
    r"(?:\s*['’]?\s*(?P<year>(?:19|20)\d\d|\d\d)\b)?",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?:\b(?:at|from|in|of|since|during)\s+)?\b(?P<year>(?:19|20)\d\d)\b(?!\s*%)")
# "What is there on the list?", "What else is there in the collection?": what is kept there, no topic.
_THERE_ON_LIST = re.compile(rf"^\s*what\s+(?:else\s+)?is\s+there\s+(?:on|in)\s+{_KEPT_IN}\s*[?.!]*\s*$", re.I)
# "What has been published on X?", "What did <venue> publish on X?"
_PUBLISHED = re.compile(
    r"^\s*what\s+(?:has\s+been|have\s+been|was|were|is|did|does)?\s*(?:\w+\s+)?publish(?:ed)?\s+"
    rf"(?:here\s+|so\s+far\s+|(?:in|from)\s+{_KEPT_IN}\s+)?(?:on|about|regarding)\s+(?P<topic>.+)$",
    re.IGNORECASE,
)
# "recent work on X", "papers on X", "research about X"
_WORK_ON = re.compile(
    r"^\s*(?:(?:the|all|any|some|recent|new|latest|current)\s+)*"
    r"(?:work|works|research|papers|publications|literature|studies|articles)\s+"
    r"(?:on|about|in|regarding|concerning|with|involving|using|that\s+(?:study|address|use))\s+(?P<topic>.+)$",
    re.IGNORECASE,
)
# "GAN papers", "the deep RL work", "lifelong learning research"
_NOUN_PAPERS = re.compile(
    r"^\s*(?:(?:the|all|any|recent|new|latest)\s+)*(?P<topic>.+?)\s+"
    r"(?:papers|works|work|research|publications|literature|articles)\s*[.!]?\s*$",
    re.IGNORECASE,
)
# Words that point back at the conversation: "Anything on that?" has no topic of its own.
_POINTING = frozenset("it its this that them these those they their him her same above former latter".split())
# "What has been done on X?", "Show me everything on X", "Anything on X?", "What are the papers
# about X?", "What is the recent work on X?" (after "show me" is taken off). Only the nouns that
# name papers as such: "What are the results of the ablation studies?" and "What are AdaSCALE's
# baseline methods?" ask about one paper.
_AS_SUCH = r"(?:papers|works|publications|articles)"
# Words before "papers" that rank, order or judge them rather than name a topic: "the best papers",
# "the first papers", "the most cited papers", "the previous papers".
_NO_TOPIC = (
    r"(?:top|most|least|main|other|best|latest|newest|earliest|oldest|greatest|first|last|previous|prior"
    r"|earlier|above|following|remaining|same"
    r"|similar|different|important|influential|seminal|key|notable|relevant|related|cited|compared)"
)
_RECENCY = r"(?:(?:recent|latest|newest|current)\s+)*"  # "the latest papers on X", "the recent work"
_DONE_ON = re.compile(
    r"^\s*(?:what\s+(?:work\s+|research\s+)?(?:has|have)\s+been\s+done|everything|anything"
    rf"|(?:what|which)\s+are\s+(?:all\s+|the\s+|some\s+)*{_RECENCY}{_AS_SUCH}"
    rf"|what\s+is\s+(?:the\s+)?{_RECENCY}(?:work|research|literature))\s+(?:on|about|regarding|concerning)\s+"
    r"(?P<topic>.+)$",
    re.IGNORECASE,
)
# Words that cannot be part of a topic named before "papers": "What datasets do the papers use?"
# and "What kind of papers…" are not about "datasets do the" or "kind of".
_NOT_MODIFIER = (
    r"(?:do|does|did|is|are|was|were|has|have|had|can|could|should|would|will|the|these|those|they"
    r"|their|its|it|of|in|on|for|to|by|with|from|and|or|a|an)"
)
# "What are the GNN papers?": the topic in front, in the words a modifier is made of (not "the top
# 5", "the best", "the limitations of the", "AdaSCALE's"), not ending in a participle ("the
# proposed works"; "the federated learning papers" is a topic).
_ARE_THE_PAPERS = re.compile(
    r"^\s*(?:what|which)\s+are\s+(?:all\s+|the\s+|some\s+)*"
    rf"(?P<topic>(?:(?!{_NOT_MODIFIER}\b|{_NO_TOPIC}\b)[\w.+/-]+\s+){{1,4}}?)(?<!ed\s){_AS_SUCH}$",
    re.IGNORECASE,
)
# "What computer vision papers are there?", "Which GNN papers use attention?": words naming the
# topic between "which/what" and "papers" (up to four). They are part of the topic, not the frame.
_MODIFIED = re.compile(
    rf"^\s*(?:which|what)\s+(?:of\s+the\s+)?"
    rf"(?P<modifier>(?:(?!{_PAPERS}\b|papers?\b|works?\b|{_NOT_MODIFIER}\b)[\w'’.+/-]+\s+){{0,4}}?)"
    rf"(?P<noun>{_PAPERS})\b\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
# Whose work the question asks about: many ("do the papers", "do researchers") or one.
_MANY = (
    r"(?:(?:the|these|those|any|most|many|some|other|all)\s+)?(?:[\w-]+\s+)?"
    r"(?:papers|works|studies|researchers|authors)\b"
)
# "What evaluation methods does AdaSCALE use?" asks about one thing's methods (a factoid), unlike
# "What methods do papers propose for pruning?".
_ABOUT_ONE = re.compile(
    rf"^(?:does|did|do|is|was)\s+(?!{_MANY})|\b(?:the|this|that)\s+(?:paper|work|study|article)\b",
    re.IGNORECASE,
)
# So do methods "compared in the SparseGPT paper" (one paper, named or not: "the recent paper on
# pruning"; "the recent work" is a body of work). Only of methods: "Which GNN papers build on the
# original GCN paper?" lists papers.
_ONE_NAMED = re.compile(r"\b(?:the|this|that)\s+(?:[\w.+-]+\s+){1,2}(?:paper|study|article)\b", re.IGNORECASE)
# "… do the papers propose for X": the many and their verb say nothing of the topic; X does.
_THEY_VERB = re.compile(rf"^(?:do|did|does|have|had)\s+{_MANY}\s+[\w-]+\s*(?P<more>.*)$", re.IGNORECASE)
# Modifier words that say how many or which ones, not what about: "Which two papers…", "What other…".
_DETERMINER = re.compile(
    r"^(?:(?:of|the|these|those|all|any|some|other|recent|new|latest|current|existing|main|key|relevant"
    r"|indexed|bundled|few|several|many|two|three|four|five|\d+)\s+)+",
    re.IGNORECASE,
)
# What may follow "papers" without adding to the topic: "are there", "were published", "exist",
# "were tried".
_NOTHING_MORE = re.compile(
    r"^(?:(?:are|were|is|was|have\s+been|has\s+been)\s+)?(?:there|exist|available|[a-z]+ed)?"
    rf"(?:\s*(?:here|in\s+{_KEPT_IN}))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\s*(?:who|what|which|when|where|why|how|is|are|was|were|do|does|did|can|could|should|would|will)\b",
    re.I,
)
_FILLER_ONLY = {"papers", "paper", "work", "works", "research", "literature", "publications", "studies",
                "there", "exist"}  # fmt: skip
_ASK = re.compile(r"^\s*(?:list|show|find|name|get|give)\s+(?:me\s+)?", re.IGNORECASE)
# A listing frame with nothing after it but where the papers are kept: "What papers are in the
# collection?", "Which papers do you have?", "What papers are indexed here?". The papers themselves
# are asked for (a catalogue), not the papers on "collection".
_HOLDINGS = re.compile(
    r"(?:(?:are|is|were)\s+)?(?:(?:do|does)\s+(?:you|it|citeline)\s+(?:have|know|hold|contain)"
    rf"|(?:are\s+)?(?:indexed|listed|included|published)|here|available|(?:(?:in|from)\s+)?{_KEPT_IN})(?:\s+(?:here|now))?",
    re.IGNORECASE,
)
# Asked politely or as a count, a catalogue is still a catalogue: "Can you list all papers?",
# "How many papers are there?", "All ICML 2026 papers, please".
_POLITE = re.compile(r"^\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)", re.IGNORECASE)
_PLEASE = re.compile(r"[\s,]*\bplease\b", re.IGNORECASE)
_COUNTED = re.compile(r"^\s*how\s+many\s+(?P<rest>.+)$", re.IGNORECASE)
# "… are there?" after what a question asks for: "How many papers on X are there?", "Which
# approaches to X are there?".
_THERE = re.compile(r"\s+(?:are|is|were)\s+there\s*(?=[?.!]*\s*$)", re.IGNORECASE)
_JUST_PAPERS = re.compile(r"^\s*(?:(?:all|the|every)\s+)*(?:papers|publications)\s*[?.!]*\s*$", re.IGNORECASE)
# ... unless the question said what they are about: "Which papers are about the index?" is a topic.
_ABOUT = re.compile(r"\b(?:about|regarding|concerning|related\s+to|deal(?:s|ing)?\s+with|on|for)\b", re.I)
# The frames that ask for papers as such (not "summarize" or "overview", which need a subject).
_CATALOGUE = re.compile(
    rf"^\s*(?:(?:which|what)\s+{_PAPERS}|(?:list|name|show|find|enumerate|give\s+me|get)\b|(?:is|are)\s+there\b)",
    re.IGNORECASE,
)
# Where the papers are kept, after the topic: "… in this list", "… here".
_KEPT_HERE = re.compile(rf"\s+(?:here|(?:in|from)\s+{_KEPT_IN})$", re.IGNORECASE)
# Words that frame a topic but are not part of it: "the", "recent", trailing "papers"/"research".
_LEADING = re.compile(r"^(?:(?:the|all|any|recent|new|latest|current|existing)\s+)+", re.IGNORECASE)
_TRAILING = re.compile(
    r"\s+(?:papers?|works?|research|publications?|literature|articles?|studies)\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Intent:
    """``listing`` questions want every paper on ``topic``; ``factoid`` ones want an answer.

    ``venue`` and ``year`` are what a listing question names as where and when ("GNN papers at
    ICLR 2024"): filters on the listing, like ``--venue``/``--year``, not part of the topic.
    """

    kind: str  # "listing", "catalogue" (every paper, no topic: "What papers are there?") or "factoid"
    topic: str = ""
    venue: str | None = None
    year: int | None = None
    recent: bool = False  # a listing of "recent work on X": the latest years the papers span
    # What a listing asks of each paper ("…, and for what kind of content?"): "" when nothing.
    each: str = ""
    author: str = ""  # a catalogue of one author's papers: "papers by Yejin Choi"

    @property
    def is_listing(self) -> bool:
        """The question wants every paper on a topic."""
        return self.kind == "listing"

    @property
    def is_catalogue(self) -> bool:
        """The question wants the papers themselves, on no topic: "list all papers", "Which papers
        are from ICML 2026?" (what the collection holds)."""
        return self.kind == "catalogue"


def clean_topic(topic: str) -> str:
    """A topic without the words that frame it: "the deep RL papers" → "deep RL"; "the fairness
    work in this list" → "fairness"."""
    text = re.sub(r"\s+(?:papers|works)\s+(?=\()", " ", " ".join(topic.split()), flags=re.IGNORECASE)
    text = _KEPT_HERE.sub("", _THERE.sub("", text.strip(" ,;:?.!")))
    cleaned = _TRAILING.sub("", _LEADING.sub("", text.strip(" ,;:?.!")))
    return cleaned or topic.strip(" ?")


def _where_and_when(question: str) -> tuple[str, str | None, int | None]:
    """The question without its venue/year phrase, and the venue and year it names."""
    venue = year = None
    match = _VENUE.search(question)
    if match:
        canonical = {v.casefold(): v for v in VENUES}
        venue = canonical.get(match.group("venue").casefold(), match.group("venue"))
        venue = "NeurIPS" if venue == "NIPS" else venue
        if match.group("year"):
            digits = match.group("year")
            year = int(digits) if len(digits) == 4 else 2000 + int(digits)
        question = question[: match.start()] + " " + question[match.end() :]
    if year is None and (found := _YEAR.search(question)):
        year = int(found.group("year"))
        question = question[: found.start()] + " " + question[found.end() :]
    return " ".join(question.split()), venue, year


# A listing asked of recent work: "recent work on X", "the latest papers on X" (not "forgetting of
# recently learned tasks", "latest-iterate convergence": words of the topic).
_RECENT = re.compile(r"\b(?:recent(?:ly)?|latest|newest)\b", re.IGNORECASE)


# The words that frame a listing question: a typo in one ("Whcih paprs study X?") made it a factoid.
_FRAME_WORDS = frozenset(
    "which what papers paper works work study studies research publications articles list show summarize"
    " overview about recent latest".split()
)
_WORD = re.compile(r"\b[A-Za-z]{4,}\b")


def _frame_typos(question: str) -> str:
    """``question`` with each of its first three words that is one letter away from exactly one
    frame word (and no English word itself: "shop" is no "show") written as that word: "Whcih paprs
    study X?" is "Which papers study X?". The topic's words, later, are left to the retrieval's
    respelling; the word list is read only for a word next to a frame word."""

    def fixed(match: re.Match[str]) -> str:
        word = match.group(0)
        low = word.lower()
        if low in _FRAME_WORDS:
            return word
        near = _FRAME_WORDS.intersection(one_edit(low))
        if len(near) != 1 or is_english_word(low):
            return word
        (frame,) = near
        return frame.capitalize() if word[0].isupper() else frame

    head = re.match(r"\W*(?:\w+\W+){0,3}", question)  # the frame comes first: its first three words
    end = head.end() if head else 0
    return _WORD.sub(fixed, question[:end]) + question[end:]


def classify(question: str) -> Intent:
    """The intent of an English question, with the topic (and venue/year) of a listing question,
    and whether it asks for recent work (a year it names says when instead). A typo in a word
    that frames the question is read as that word (:func:`_frame_typos`)."""
    question = _frame_typos(question)
    intent = _classify(question)
    if intent.is_listing and (each := asked_of_each(question)):
        intent = replace(intent, each=each)
    if (
        intent.is_listing
        and intent.year is None
        and _RECENT.search(question)
        and not _RECENT.search(intent.topic)
    ):
        return replace(intent, recent=True)
    return intent


# "Who are the authors of X?", "Who wrote X?": the list's author field answers. ("Who proposed
# dropout?" asks who first had an idea, which no author field of these papers says.)
_AUTHORS = re.compile(
    r"^\s*(?:who\s+(?:are|were|is|was)\s+(?:the\s+)?authors?\s+(?:of|behind)\b"
    r"|who\s+(?:wrote|authored)\b"
    r"|(?:what|which)\s+(?:are\s+)?(?:the\s+)?(?:authors?|author\s+names)\s+(?:of|for|behind)\b)",
    re.IGNORECASE,
)


def asks_for_authors(question: str) -> bool:
    """``question`` asks who wrote a paper: the paper list's author field answers it, not an abstract."""
    return bool(_AUTHORS.search(question))


def asked_of_each(question: str) -> str:
    """What a listing question asks of each paper beyond the topic: "for what kind of content" in
    "Which papers propose watermarking methods, and for what kind of content?"; "" when it asks
    for the papers alone. (:data:`_TAIL`, which keeps it out of the topic, finds it.)"""
    found = _TAIL.search(question)
    said = found.group(0).strip(" ,;:?.!") if found else ""
    if not _ASKS.search(said):  # "pruning, quantization, and distillation": a list, no question
        return ""
    return re.sub(r"^and\s+", "", said, flags=re.IGNORECASE)


_ASKS = re.compile(r"\b(?:how|what|which|why|where|when|who|whom|whose)\b", re.IGNORECASE)


# Papers asked for by who wrote them: "papers by Yejin Choi", "Which papers did Graham Neubig
# write?", "What has Y. Choi published?", "Yejin Choi's papers". A name is written as names are:
# capitalised words and initials, with the particles of surnames ("van", "de") between them.
_NAME_WORD = r"[^\W\d_][\w'’.-]*"
_PARTICLE = r"(?:van|von|der|den|de|da|del|della|di|du|le|la|bin|al|dos|das)"
_NAME = rf"(?P<author>{_NAME_WORD}(?:\s+(?:{_PARTICLE}\s+)*{_NAME_WORD}){{0,4}})"
_WRITE = r"(?:write|wrote|written|author|authored|co-?author|co-?authored|publish|published)"
_ASKING_FOR = r"(?:which|what|list|show|find|get|give)\s+(?:me\s+)?(?:all\s+)?(?:(?:the|of)\s+)*"
_BY_AUTHOR = (
    re.compile(  # "Which papers did/has NAME write?", "What did NAME publish?"
        rf"^\s*(?:(?:which|what)\s+(?:{_PAPERS}\s+)?|list\s+(?:the\s+)?{_PAPERS}\s+)"
        rf"(?:did|has|have|does)\s+{_NAME}\s+{_WRITE}\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
    re.compile(  # "papers by NAME", "Which papers are written by NAME?", "list the work co-authored by NAME"
        rf"^\s*(?:{_ASKING_FOR})?(?:papers|works|work|publications|articles)\s+(?:(?:are|were)\s+)?"
        rf"(?:{_WRITE}\s+)?by\s+{_NAME}(?:\s+et\s+al\.?)?\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
    re.compile(  # "NAME's papers", "show me Yejin Choi's work"
        rf"^\s*(?:{_ASKING_FOR})?{_NAME}['’]s?\s+(?:papers|work|publications)\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
)
# A word that names no person: an acronym ("LLMs", "GPT"), or one with digits ("GPT-4").
_NOT_A_NAME_WORD = re.compile(r"[A-Z]{2,}s?|.*\d.*")


def _author_asked(question: str) -> str:
    """The person whose papers ``question`` asks for, as written ("Yejin Choi"); "" when it asks for
    none. Every word of the name but a surname particle is capitalised: "papers by topic" names
    no one."""
    for pattern in _BY_AUTHOR:
        if found := pattern.search(question):
            name = re.sub(r"\s+et\s+al\.?$", "", found.group("author")).rstrip(".")  # "Smith et al."
            words = [w for w in name.split() if not re.fullmatch(_PARTICLE, w)]
            if words and all(w[0].isupper() and not _NOT_A_NAME_WORD.fullmatch(w) for w in words):
                return name
    return ""


def _classify(question: str) -> Intent:
    rest, venue, year = _where_and_when(question)
    rest = _PLEASE.sub("", _POLITE.sub("", rest)).strip() or rest
    if author := _author_asked(rest):
        return Intent("catalogue", "", venue, year, author=author)
    if _JUST_PAPERS.match(rest) or _THERE_ON_LIST.match(rest):  # "papers", "What is there on the list?"
        return Intent("catalogue", "", venue, year)
    if counted := _COUNTED.match(rest):
        # "How many papers study X?", "How many papers on X are there?": a listing says how many;
        # "How many recent papers are there?", "How many papers?": the catalogue does.
        asked = classify(f"Which {_THERE.sub('', counted.group('rest')) or 'papers'}")
        if asked.is_listing or asked.is_catalogue:
            return Intent(
                asked.kind, asked.topic, venue or asked.venue, year or asked.year, author=asked.author
            )
    modified = _MODIFIED.match(rest)
    if modified and (intent := _modified(modified, venue, year)) is not None:
        return intent
    if _LISTING.match(rest):
        frame = _FRAME.match(rest)
        unframed = _TAIL.sub("", rest[frame.end() :] if frame else rest).strip(" ,;:")
        # After "on"/"about" a frame verb is a noun of the topic: "papers on design of experiments".
        framed = unframed if frame and _ENDS_IN_LINK.search(frame.group(0)) else _unverbed(unframed)
        topic = _TRAILING.sub("", _LEADING.sub("", framed.strip(" ,;:?.!")))
        # Where the papers are kept, with no verb or preposition saying it is their subject
        # (not "Which papers study the index?", "… are about the library?"): a catalogue.
        held = framed == unframed and _HOLDINGS.fullmatch(framed.strip(" ,;:?.!")) and not _ABOUT.search(rest)
        if not lexical_terms(topic) or topic.strip().lower() in _FILLER_ONLY or held:
            if _CATALOGUE.match(rest):  # "list all papers", "Which papers are from ICML 2026?"
                return Intent("catalogue", "", venue, year)
            return Intent("factoid")  # "Summarize the recent papers": no subject to list
        return Intent("listing", clean_topic(framed), venue, year)
    bare = _ASK.sub("", _TAIL.sub("", rest))
    for pattern in (_PUBLISHED, _DONE_ON, _ARE_THE_PAPERS, _WORK_ON, _NOUN_PAPERS):
        if (match := pattern.match(bare)) and not (pattern is _NOUN_PAPERS and _QUESTION_START.match(bare)):
            if pattern is _ARE_THE_PAPERS and _DETERMINER.fullmatch(match.group("topic")):
                continue  # "What are the two papers?": no topic
            topic = clean_topic(match.group("topic"))  # after "on"/"about": no verb to strip
            if not lexical_terms(topic) or _POINTING & set(topic.lower().split()):
                return Intent("factoid")  # "What has been done on it/its limitations?": a follow-up
            if _LEADING.fullmatch(topic + " "):  # "recent papers", "the latest work": no subject
                return Intent("factoid")
            return Intent("listing", topic, venue, year)
    if (venue or year) and rest and "?" not in rest and not _QUESTION_START.match(rest):
        return Intent("listing", clean_topic(rest), venue, year)  # "GNNs at ICLR 2020"
    return Intent("factoid")


def _modified(match: re.Match[str], venue: str | None, year: int | None) -> Intent | None:
    """ "Which/what MODIFIER papers REST": the topic is the modifier with what REST adds to it
    ("Which GNN papers use attention?" → "GNN attention"; "What vision papers are there?" →
    "vision"). A modifier that only counts or points is dropped ("Which two papers study X?" is
    "Which papers study X?"; "What recent papers are there?" names no topic). "methods" and
    "approaches" are part of the topic ("training methods"); asked of one thing ("What evaluation
    methods does X use?") they ask a factoid. None: no modifier, the usual rules apply."""
    noun = match.group("noun").lower()
    rest = _TAIL.sub("", match.group("rest"))  # "…, and which datasets do they use?" asks per paper
    raw = match.group("modifier").strip()
    weak = noun in ("methods", "approaches")
    if not raw and not weak:
        return None
    held = _HOLDINGS.fullmatch(rest.strip(" ?.!"))  # "Which recent papers do you have?"
    if not held and (
        _ABOUT_ONE.search(rest) or (weak and _ONE_NAMED.search(rest))
    ):  # "What prior works does AdaSCALE compare to?"
        return Intent("factoid")
    if they := _THEY_VERB.match(rest):
        rest = they.group("more")
    added = ""
    if not _NOTHING_MORE.match(rest):
        asked = classify(f"Which papers {rest}")  # the same question without the modifier
        added = asked.topic if asked.is_listing and lexical_terms(asked.topic) else ""  # not "to"
    modifier = _DETERMINER.sub("", raw + " ").strip()
    if weak and modifier:
        modifier = f"{modifier} {noun}"
    topic = " ".join(part for part in (modifier, added) if part)
    if topic:
        return Intent("listing", clean_topic(topic), venue, year)
    if _NOTHING_MORE.match(rest) or held:
        return Intent("catalogue", "", venue, year)  # "What recent papers are there?"
    return Intent("factoid")
