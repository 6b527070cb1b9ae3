"""Untrusted text (question ids, run ids and labels, paths, gates keys) made inert for where it is
shown: a terminal, where a control character would move the cursor, recolour or retitle the
window (ESC, CSI, OSC), and a Markdown job summary, where text could become a link, an image,
HTML or an @mention that notifies a whole organisation."""

from __future__ import annotations

import re

# C0 (but newline and tab, which lay out our own tables) and DEL, C1, and the bidirectional
# overrides and isolates that can make a line read otherwise than it runs ("Trojan Source")
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile("[\n\r\u2028\u2029]")
_ZWJ = "\u200d"


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Text for a terminal: control and bidi characters shown as visible escapes (ESC as `\\x1b`),
    newlines and tabs kept."""
    return _TERMINAL_UNSAFE.sub(lambda m: _escaped(m.group(0)), text)


def one_line(text: str) -> str:
    """Text of one line: line breaks shown as `\\n` (and the rest as terminal_safe)."""
    text = _LINE_BREAKS.sub(lambda m: "\\n" if m.group(0) == "\n" else _escaped(m.group(0)), text)
    return terminal_safe(text).replace("\t", "\\t")


def markdown_code(text: str, in_table: bool = False) -> str:
    """Text as one Markdown inline code span, where nothing is live (no link, image, HTML, emphasis
    or mention): a fence one backtick longer than the longest run inside, padded when the text
    starts or ends with a backtick; on one line; `|` escaped in a table cell (GFM splits cells
    before it reads code spans, and shows `\\|` in a cell as `|`)."""
    text = one_line(text)
    if not text:
        return "` `"
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")) else ""
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>()!#|~&])")
_AUTOLINK = re.compile(r"(?i)(://|www\.)")


def markdown_text(text: str) -> str:
    """Prose for Markdown with nothing live: every character that could open a link, an image,
    HTML, emphasis, a heading or a table cell backslash-escaped, an autolink's `://` or `www.`
    and every `@` broken by a zero-width joiner (GitHub links bare URLs and notifies `@name`
    even when escaped), on one line."""
    text = _MD_SPECIAL.sub(r"\\\1", one_line(text))
    text = _AUTOLINK.sub(lambda m: m.group(0)[0] + _ZWJ + m.group(0)[1:], text)
    return text.replace("@", "@" + _ZWJ)
