"""Telegram's message formats: escaping for each parse mode and a strict well-formedness check.

The rules are Telegram Bot API's "Formatting options":
- MarkdownV2: every character of ``_*[]()~`>#+-=|{}.!`` and ``\\`` outside an entity's markup
  must be escaped with a preceding ``\\``; entities are ``*bold*``, ``_italic_``, ``__underline__``,
  ``~strikethrough~``, ``||spoiler||``, ```code```, ```` ```pre``` ````, ``[text](url)`` and ``>`` quotes
  at the start of a line.
- HTML: only the tags b/strong, i/em, u/ins, s/strike/del, span class="tg-spoiler", tg-spoiler,
  a href, code, pre, blockquote (and tg-emoji); every ``<``, ``>`` and ``&`` that is not part of a
  tag or entity must be written as ``&lt;`` ``&gt;`` ``&amp;``; the named entities are those and
  ``&quot;`` (numeric ones are allowed).
- A message holds at most 4096 characters after entity parsing; Telegram counts UTF-16 code
  units (an emoji outside the BMP is two), so `message_length` does too.

`parse_message` is a parser, not a pattern test: it returns the text a reader sees (with the
entities' visible offsets) or the problems Telegram would refuse the message for. The
injection round-trip check is built on that visible text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

ParseMode = Literal["plain", "markdown_v2", "html"]
PARSE_MODES: tuple[str, ...] = ("plain", "markdown_v2", "html")
MESSAGE_LIMIT = 4096

MARKDOWN_V2_RESERVED = "_*[]()~`>#+-=|{}.!"
_MD_ESCAPE = re.compile(r"([_*\[\]()~`>#+\-=|{}.!\\])")

HTML_TAGS: dict[str, frozenset[str]] = {  # tag → attributes it may carry
    "b": frozenset(),
    "strong": frozenset(),
    "i": frozenset(),
    "em": frozenset(),
    "u": frozenset(),
    "ins": frozenset(),
    "s": frozenset(),
    "strike": frozenset(),
    "del": frozenset(),
    "span": frozenset({"class"}),
    "tg-spoiler": frozenset(),
    "a": frozenset({"href"}),
    "code": frozenset({"class"}),
    "pre": frozenset(),
    "blockquote": frozenset({"expandable"}),
    "tg-emoji": frozenset({"emoji-id"}),
}
_HTML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"']+))?)*)\s*(/?)>"
)
_HTML_ATTR = re.compile(r"([a-zA-Z-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+)))?")
_HTML_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot)|#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6}));")


def escape_markdown_v2(text: str) -> str:
    """Text as literal MarkdownV2: a backslash before every reserved character and before `\\`."""
    return _MD_ESCAPE.sub(r"\\\1", text)


def escape_html(text: str) -> str:
    """Text as literal Telegram HTML: & < > and " as the entities Telegram knows."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def escape(text: str, mode: ParseMode) -> str:
    if mode == "markdown_v2":
        return escape_markdown_v2(text)
    if mode == "html":
        return escape_html(text)
    return text


def utf16_length(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class Entity:
    """A formatting entity of the visible text: kind and [start, end) in code points."""

    kind: str
    start: int
    end: int


@dataclass
class ParsedMessage:
    text: str  # what the reader sees
    entities: list[Entity] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def well_formed(self) -> bool:
        return not self.problems

    @property
    def length(self) -> int:
        return utf16_length(self.text)


def parse_message(message: str, mode: ParseMode) -> ParsedMessage:
    """The visible text and entities of a message in a parse mode, or the problems that make
    Telegram refuse it (unbalanced entities, unknown tags, unescaped reserved characters)."""
    if mode == "markdown_v2":
        parsed = _parse_markdown_v2(message)
    elif mode == "html":
        parsed = _parse_html(message)
    else:
        parsed = ParsedMessage(message)
    if not parsed.text.strip():
        parsed.problems.append("the message is empty after entity parsing")
    return parsed


def check_message(message: str, mode: ParseMode) -> list[str]:
    """Every reason Telegram would refuse the message: malformed for its parse mode, or longer
    than MESSAGE_LIMIT after entity parsing."""
    parsed = parse_message(message, mode)
    problems = list(parsed.problems)
    if parsed.length > MESSAGE_LIMIT:
        problems.append(f"{parsed.length} characters after entity parsing (Telegram's limit is {MESSAGE_LIMIT})")
    return problems


# --- MarkdownV2 ----------------------------------------------------------------------------

_MD_PAIRED = ("||", "__", "*", "_", "~")  # "__" before "_": Telegram reads underline greedily
_MD_KINDS = {"*": "bold", "_": "italic", "__": "underline", "~": "strikethrough", "||": "spoiler"}


class _Visible:
    """The visible text being built, with its length kept (no re-joining per entity)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0

    def append(self, part: str) -> None:
        self._parts.append(part)
        self._length += len(part)

    def length(self) -> int:
        return self._length

    def text(self) -> str:
        return "".join(self._parts)


def _parse_markdown_v2(message: str) -> ParsedMessage:
    return _MarkdownV2(message).parse()


class _MarkdownV2:
    """One MarkdownV2 message read left to right: each step consumes what stands at `pos` (a quote
    mark at a line start, an escape, code, a link's brackets, an entity marker, a character),
    appends what the reader sees and notes the entities and problems."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.pos = 0
        self.out = _Visible()
        self.entities: list[Entity] = []
        self.problems: list[str] = []
        self.open_entities: list[tuple[str, int, int]] = []  # (marker, visible start, message offset)
        self.open_links: list[tuple[int, int]] = []  # visible start, message offset of "["
        self.line_start = True
        self.quote_start: int | None = None

    def parse(self) -> ParsedMessage:
        message = self.message
        while self.pos < len(message):
            ch = message[self.pos]
            if self.line_start and ch == ">":
                if self.quote_start is None:
                    self.quote_start = self.out.length()
                self.pos += 1
                self.line_start = False
                continue
            if self.line_start and self.quote_start is not None:
                self._close_quote()
            self.line_start = False
            self._step(ch)
        self._close_quote()
        for marker, _, offset in self.open_entities:
            self.problems.append(f"offset {offset}: entity {marker!r} is never closed")
        for _, offset in self.open_links:
            self.problems.append(f"offset {offset}: '[' is never closed (or must be escaped with '\\')")
        return ParsedMessage(self.out.text(), sorted(self.entities, key=lambda e: (e.start, -e.end)), self.problems)

    def _step(self, ch: str) -> None:
        message, i = self.message, self.pos
        if ch == "\\":
            self._escape()
        elif message.startswith("```", i) or ch == "`":
            self._code("```" if message.startswith("```", i) else "`")
        elif ch == "[":
            self.open_links.append((self.out.length(), i))
            self.pos += 1
        elif ch == "]":
            self._link_end()
        elif (marker := next((m for m in _MD_PAIRED if message.startswith(m, i)), None)) is not None:
            self._entity_marker(marker)
        else:
            self._character(ch)

    def _close_quote(self) -> None:
        if self.quote_start is not None:
            self.entities.append(Entity("blockquote", self.quote_start, self.out.length()))
            self.quote_start = None

    def _escape(self) -> None:
        message, i = self.message, self.pos
        if i + 1 >= len(message):
            self.problems.append(f"offset {i}: a backslash at the end escapes nothing")
            self.pos += 1
            return
        nxt = message[i + 1]
        if not 1 <= ord(nxt) <= 126:
            self.problems.append(f"offset {i}: only ASCII characters can be escaped (got {nxt!r})")
        self.out.append(nxt)
        self.pos += 2

    def _code(self, fence: str) -> None:
        """Inline code (`) or a pre block (```, its first line a language name when it has more)."""
        message, i = self.message, self.pos
        end = _find_unescaped(message, fence, i + len(fence))
        if end < 0:
            self.problems.append(f"offset {i}: {fence} is never closed")
            self.pos += len(fence)
            return
        body = message[i + len(fence) : end]
        if fence == "```" and "\n" in body:
            first, _, rest = body.partition("\n")
            body = rest if re.fullmatch(r"[\w+#-]*", first) else body
        start = self.out.length()
        self.out.append(re.sub(r"\\([`\\])", r"\1", body))
        self.entities.append(Entity("pre" if fence == "```" else "code", start, self.out.length()))
        self.pos = end + len(fence)

    def _link_end(self) -> None:
        """The "]" of a link's text, which must be followed by its (url)."""
        message, i = self.message, self.pos
        if not self.open_links:
            self.problems.append(f"offset {i}: character ']' is reserved and must be escaped with '\\'")
            self.pos += 1
            return
        start, _ = self.open_links.pop()
        if not message.startswith("(", i + 1):
            self.problems.append(f"offset {i}: a link's text must be followed by (url)")
            self.pos += 1
            return
        close = _find_unescaped(message, ")", i + 2)
        if close < 0:
            self.problems.append(f"offset {i + 1}: the link's (url) is never closed")
            self.pos += 2
            return
        self.entities.append(Entity("text_link", start, self.out.length()))
        self.pos = close + 1

    def _entity_marker(self, marker: str) -> None:
        """A marker that opens an entity, or closes the innermost one open (entities nest)."""
        if self.open_entities and self.open_entities[-1][0] == marker:
            _, start, _ = self.open_entities.pop()
            self.entities.append(Entity(_MD_KINDS[marker], start, self.out.length()))
        elif any(m == marker for m, _, _ in self.open_entities):
            self.problems.append(
                f"offset {self.pos}: {marker!r} closes an entity across another one (entities must nest)"
            )
        else:
            self.open_entities.append((marker, self.out.length(), self.pos))
        self.pos += len(marker)

    def _character(self, ch: str) -> None:
        if ch in MARKDOWN_V2_RESERVED:
            self.problems.append(f"offset {self.pos}: character {ch!r} is reserved and must be escaped with '\\'")
        self.out.append(ch)
        if ch == "\n":
            self.line_start = True
        self.pos += 1


def _find_unescaped(text: str, needle: str, start: int) -> int:
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(needle, i):
            return i
        i += 1
    return -1


# --- HTML ------------------------------------------------------------------------------------


def _parse_html(message: str) -> ParsedMessage:
    out = _Visible()
    entities: list[Entity] = []
    problems: list[str] = []
    vis = out.length
    stack: list[tuple[str, int, int]] = []  # (tag, visible start, message offset)
    i, n = 0, len(message)
    while i < n:
        ch = message[i]
        if ch == "<":
            m = _HTML_TAG.match(message, i)
            if m is None:
                problems.append(f"offset {i}: '<' is not part of a tag (write &lt;)")
                out.append(ch)
                i += 1
                continue
            closing, tag, attrs, self_closing = m.group(1) == "/", m.group(2).lower(), m.group(3), m.group(4)
            i = m.end()
            if tag not in HTML_TAGS:
                problems.append(f"offset {m.start()}: tag <{tag}> is not supported by Telegram")
                continue
            if self_closing:
                problems.append(f"offset {m.start()}: self-closing <{tag}/> is not supported")
                continue
            if closing:
                if not stack or stack[-1][0] != tag:
                    expected = f"</{stack[-1][0]}>" if stack else "no closing tag"
                    problems.append(f"offset {m.start()}: </{tag}> does not close the open tag (expected {expected})")
                    continue
                _, start, _ = stack.pop()
                entities.append(Entity(tag, start, vis()))
                continue
            problems.extend(_attribute_problems(tag, attrs, m.start()))
            stack.append((tag, vis(), m.start()))
            continue
        if ch == "&":
            m = _HTML_ENTITY.match(message, i)
            if m is None:
                problems.append(f"offset {i}: '&' is not part of an entity (write &amp;)")
                out.append(ch)
                i += 1
                continue
            if m.group(1):
                out.append(_HTML_NAMED[m.group(1)])
            else:
                code = int(m.group(2)) if m.group(2) else int(m.group(3), 16)
                if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                    problems.append(f"offset {i}: {m.group(0)} is not a character")
                else:
                    out.append(chr(code))
            i = m.end()
            continue
        if ch == ">":
            problems.append(f"offset {i}: '>' is not part of a tag (write &gt;)")
        out.append(ch)
        i += 1
    for tag, _, offset in stack:
        problems.append(f"offset {offset}: <{tag}> is never closed")
    return ParsedMessage(out.text(), sorted(entities, key=lambda e: (e.start, -e.end)), problems)


def _attribute_problems(tag: str, attrs: str, offset: int) -> list[str]:
    problems = []
    found = {
        m.group(1).lower(): next((g for g in m.groups()[1:] if g is not None), "") for m in _HTML_ATTR.finditer(attrs)
    }
    for name in found:
        if name not in HTML_TAGS[tag]:
            problems.append(f"offset {offset}: <{tag}> may not carry the attribute {name!r}")
    if tag == "span" and found.get("class") != "tg-spoiler":
        problems.append(f"offset {offset}: <span> is only supported as <span class=\"tg-spoiler\">")
    if tag == "a" and not found.get("href"):
        problems.append(f"offset {offset}: <a> needs an href")
    return problems
