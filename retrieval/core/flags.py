"""Instruction-like text: the stable flag codes a passage carries, and the text-only detection.

Documentation is third-party text that an agent may read as instructions. A passage is never
altered or withheld for it: it is flagged, so that whoever reads it knows. The codes, in the
order a passage lists them:

- addresses_ai: the text speaks to an AI, an assistant or a language model ("if you are an AI
  assistant", "note to LLMs:", "Claude, ...", "you are a helpful assistant").
- override_instructions: it tells its reader to ignore, forget or override instructions, to keep
  something from the user, or forges a chat turn (`<|im_start|>system`, `[INST]`).
- hidden_text: it hides text: invisible characters (zero-width, bidirectional controls, tag
  characters), or, found by the readers in the raw page at build time, an HTML comment or an
  element styled invisible (display:none, white on white...) that holds prose.
- pipe_to_shell: it pipes a download into a shell or interpreter (`curl ... | sh`).

`text_flags` is the one detection from text alone: the builder runs it on every unit's text and
stores the result with the unit (with the readers' hidden_text), and a JSON snapshot, which
stores no flags, runs it when it is loaded. The patterns favour precision: ordinary prose about
ignoring warnings, overriding settings or agents of other kinds does not match (measured in
quality/flags.py).
"""

import re

ADDRESSES_AI = "addresses_ai"
OVERRIDE_INSTRUCTIONS = "override_instructions"
HIDDEN_TEXT = "hidden_text"
PIPE_TO_SHELL = "pipe_to_shell"
# Every code, in the order a passage lists its flags.
FLAGS = (ADDRESSES_AI, OVERRIDE_INSTRUCTIONS, HIDDEN_TEXT, PIPE_TO_SHELL)

# What an AI is called when text speaks to one. Bare "assistant", "agent", "model" or "bot" are
# ordinary words of documentation; they count only with "AI" (or the like) before them.
_AI = (r"(?:an?\s+|the\s+)?(?:(?:AI|A\.I\.|LLM|GPT|generative|autonomous|coding|virtual)"
       r"(?:[- ](?:AI|LLM|powered|based|coding|code|programming|research|chat|virtual))*[- ]"
       r"(?:assistant|agent|model|bot|system|tool|crawler|scraper)s?"
       r"|AIs?|LLMs?|(?:large\s+)?language\s+models?|chat\s?bots?|ChatGPT|GPT-?\d\w*|Claude"
       r"|Copilot|Gemini|assistants?)")
# A note's heading word addressed to its reader: "Note to ", "instructions for", "attention".
_NOTE_TO = (r"(?:note|message|notice|instructions?|attention|reminder|hint|directive|request)s?"
            r"\s*(?:to|for)?\s*")
_ADDRESSES_AI = re.compile(
    # "If you are an AI assistant", "if you're a language model"
    r"\bif\s+you\s*(?:'re|\u2019re|\s+are)\s+(?:an?\s+|the\s+)?" + _AI + r"\b"
    # "Note to AI agents", "instructions for LLMs", "attention all language models"
    r"|\b" + _NOTE_TO + r"(?:all\s+|any\s+|every\s+)?" + _AI + r"\s*[:,.!-]"
    # "AI assistants reading this", "any language model processing this page"
    r"|\b" + _AI + r"\s+(?:that\s+(?:is|are)\s+)?(?:reading|processing|summari[sz]ing|parsing"
    r"|indexing|crawling|ingesting|seeing|using)\s+(?:this|these)\b"
    # "To the AI reading this", "dear assistant", "hey Claude,"
    r"|\b(?:dear|hey|hi|hello|attention)\s*,?\s+" + _AI + r"\b"
    # A vocative that opens a sentence: "Claude, ...", "AI assistants: ..."
    r"|(?:^|[.!?]\s+|\n\s*)" + _AI + r"\s*[,:]\s+(?:you|please|ignore|do|don't|always|never|"
    r"make|recommend|tell|say|respond|reply|answer|use|install|run|when|if)\b"
    # A role handed to the reader: "you are a helpful assistant", "as an AI language model"
    r"|\byou\s+are\s+(?:now\s+)?(?:an?\s+|the\s+)(?:helpful\s+|harmless\s+|honest\s+)*"
    r"(?:AI\b|assistant\b|language\s+model\b|chat\s?bot\b)"
    r"|\bas\s+an\s+AI(?:\s+(?:language\s+model|assistant|agent|model))?\s*,",
    re.I)

# Whose instructions: a word that makes "instructions" the reader's, not the documentation's.
_WHOSE = (r"(?:all\s+|any\s+|of\s+)*(?:the\s+|your\s+|my\s+)?"
          r"(?:previous|prior|above|earlier|preceding|former|original|initial|system|"
          r"developer|safety|your|all|any|those|these)\s+")
_INSTRUCTIONS = (r"(?:instructions?|prompts?|directions|directives|guidelines|guardrails"
                 r"|rules|commands|context|messages|programming|training|constraints)\b")
# Keeping something from the user; a role handed over "from now on" (may_match gates with them).
_DO_NOT_TELL = (r"(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|reveal"
                r"\s+(?:this|it)\s+to|let)\s+the\s+user")
_WITHOUT_TELLING = r"without\s+(?:telling|informing|notifying)\s+the\s+user"
_FROM_NOW_ON_WORDS = r"from\s+now\s+on,?\s+you\s+(?:will|must|are|should|shall)"
_OVERRIDE = re.compile(
    # "ignore all previous instructions", "disregard the above directions"
    r"\b(?:ignore|disregard|forget|override|bypass|discard|abandon)\s+(?:about\s+)?"
    + _WHOSE + r"(?:\w+\s+)?" + _INSTRUCTIONS +
    # "ignore everything above", "forget everything you were told"
    r"|\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:above|before|you\s+"
    r"(?:were|have\s+been)\s+told|you\s+know|(?:said|written|stated)\s+(?:above|before))"
    # "New instructions:", "updated system prompt:"
    r"|\b(?:new|updated|real|actual|revised|secret|hidden|additional|important)\s+(?:system\s+)?"
    r"(?:instructions?|prompt)\s*:"
    # "reveal your system prompt", "print your instructions"
    r"|\b(?:reveal|print|output|show|repeat|leak|disclose)\s+(?:your|the)\s+(?:system\s+prompt"
    r"|(?:initial\s+|original\s+|hidden\s+)?instructions)\b"
    # Keeping something from the user
    r"|\b" + _DO_NOT_TELL + r"\b|\b" + _WITHOUT_TELLING + r"\b"
    # "From now on, you will ..."
    r"|\b" + _FROM_NOW_ON_WORDS + r"\b"
    # Forged chat turns: the markers of chat templates
    r"|<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id)\|>"
    r"|\[/?INST\]|<</?SYS>>|<start_of_turn>",
    re.I)

# A download (curl, wget, PowerShell's) piped into a shell or interpreter, or run by one. An
# interpreter runs what it is piped only when it is given no script of its own: `| python3 -`
# does, `| python -m json.tool` (pretty-printing a response) does not.
_FETCH = r"(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b"
_RUNNER = r"(?:(?:ba|z|k|da|fi|tc|c|a)?sh|python[0-9.]*|perl|ruby|node|php)"
_SHELL = (r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+=\S*\s+)*(?:/usr)?(?:/bin/)?"
          r"(?:(?:(?:ba|z|k|da|fi|tc|c|a)?sh|iex|Invoke-Expression)\b"
          r"|(?:python[0-9.]*|perl|ruby|node|php)(?:\s+-(?=\s|$)|\s*(?=$|[;&|)\n\"'`<])))")
_PIPE_TO_SHELL = re.compile(
    r"\b" + _FETCH + r"[^\n|;&]*\|\s*" + _SHELL
    + r"|\b" + _RUNNER + r"\s+(?:-\w+\s+)*(?:<\(|-c\s+[\"']?\$\()\s*" + _FETCH
    + r"|\b(?:eval|source|\.)\s+[\"']?(?:<\(|\$\()\s*" + _FETCH,
    re.I)

# Characters that show nothing: zero-width spaces and joiners, invisible operators, bidirectional
# embeddings, overrides and isolates (the "Trojan Source" characters), Unicode tag characters
# (ASCII smuggled invisibly), and a byte-order mark anywhere but first. A zero-width (non-)joiner
# is ordinary between letters of scripts that use it (Persian, Devanagari) and inside emoji
# sequences: it counts only beside an ASCII character.
_INVISIBLE = re.compile(
    "[\u200b\u2060-\u2064\u180e\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
    "|(?<=.)\ufeff|(?<=[\x00-\x7f])[\u200c\u200d]|[\u200c\u200d](?=[\x00-\x7f])", re.S)

# Each flag's pattern over a passage's text (hidden_text's: its invisible characters).
PATTERNS = {ADDRESSES_AI: _ADDRESSES_AI, OVERRIDE_INSTRUCTIONS: _OVERRIDE,
            HIDDEN_TEXT: _INVISIBLE, PIPE_TO_SHELL: _PIPE_TO_SHELL}


# What a match of each pattern must contain, in an ASCII text lowercased: a pattern is searched
# only in a text that holds one (`may_match`). The patterns start with no literal, so `search`
# tries each of their alternatives at every character: on plotly 5.16.1's 25,059 passages
# (13.7 M characters, none flagged) the four took 5.7 s of a 21 s build. With these tests first
# (substrings, and searches gated by one), 1,705 of the 100,236 searches are left and text_flags
# takes 1.15 s where it took 9.1 s (one process, a busy machine; build user time -30 %).
# Only ASCII text is tested: there re.I folds nothing but A-Z (beyond it, `K`
# U+212A matches "k" and `ſ` U+017F "s"), and hidden_text matches nothing. The gates searched
# are built of the patterns' own pieces; keep the words in step with the patterns above
# (tests/test_flags.py compares the two on every case).
#
# addresses_ai: every alternative names the AI; its one short word, "ai", after a character of
# a word only where a "note"-like word runs into it ("notesAI:", "instructions for AI,").
_AI_WORDS = ("a.i.", "llm", "gpt", "language", "chat", "claude", "copilot", "gemini",
             "assistant", "generative", "autonomous", "coding", "virtual")
_AI_ALONE = re.compile(r"ai(?<!\wai)")
_AI_AFTER_WORD = re.compile(_NOTE_TO + "ai")
# override_instructions: a verb of overriding, the instructions or prompt, a chat template's
# marker; or, for the two alternatives with neither, their own words gated by one of them.
_OVERRIDE_WORDS = ("ignore", "disregard", "forget", "override", "bypass", "discard", "abandon",
                   "instruction", "prompt", "<|", "inst]", "sys>>", "<start_of_turn>")
# The alternatives' own words, without their word boundaries: a superset of their matches.
_KEEP_FROM_USER = re.compile(_DO_NOT_TELL + "|" + _WITHOUT_TELLING)
_FROM_NOW_ON = re.compile(_FROM_NOW_ON_WORDS)
# pipe_to_shell: a download, and the pipe or the substitution that runs it.
_FETCH_WORDS = ("curl", "wget", "fetch", "iwr", "irm", "invoke-webrequest", "invoke-restmethod")
_RUNS = ("|", "<(", "$(")


def may_match(text: str) -> tuple:
    """Return the codes whose pattern can match a text (every code, for a text not ASCII)."""
    if not text.isascii():
        return tuple(PATTERNS)
    low = text.lower()
    codes = []
    if any(word in low for word in _AI_WORDS) or _AI_ALONE.search(low) \
            or "ai" in low and _AI_AFTER_WORD.search(low):
        codes.append(ADDRESSES_AI)
    if any(word in low for word in _OVERRIDE_WORDS) \
            or "user" in low and _KEEP_FROM_USER.search(low) \
            or "now" in low and _FROM_NOW_ON.search(low):
        codes.append(OVERRIDE_INSTRUCTIONS)
    if any(word in low for word in _FETCH_WORDS) and any(run in low for run in _RUNS):
        codes.append(PIPE_TO_SHELL)
    return tuple(codes)


def text_flags(text: str, hidden_markup: bool = False) -> tuple:
    """Return the flags of a passage's text, in FLAGS order (hidden_markup: a reader found text
    hidden by the page's markup in it)."""
    found = {code for code in may_match(text) if PATTERNS[code].search(text)}
    if hidden_markup:
        found.add(HIDDEN_TEXT)
    return tuple(code for code in FLAGS if code in found)


def flags_field(flags) -> dict:
    """Return {"flags": [...]} for a passage with flags, {} for one without (the field is
    present only when it is not empty, so that unflagged passages' bytes are as they were)."""
    return {"flags": list(flags)} if flags else {}
