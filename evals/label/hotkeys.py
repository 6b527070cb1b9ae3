"""One key per meaning in every task, whatever its number of claims (issue 32).

Label Studio gives every choice without a `hotkey` the next free key of
"1234567890qwetasdfgzxcvbyiopjklnm" in page order, so with a variable number of claims the
same key answers different questions in different tasks (in a one-claim task `0` answered
«should the system have refused?», in a two-claim task claim 2's «significant?»). Every choice
citeval shows therefore carries its own key, fixed by what it means:

- the answer as a whole: should_abstain yes `z` / no `x`, version_ok yes `c` / no `v`, the
  same in every task (static `hotkey`s in the label config);
- claim 1, 2, 3 each own a keyboard row — `1`…`9`, `q`…`o`, `a`…`l` — with one column per
  meaning, the same in every row: significant yes, no · support supported, partial, unsupported,
  cannot judge · anchor yes, no, not applicable. A claim's first cited fragment uses the row's
  keys, its second the same keys with shift;
- a fourth claim or a third fragment of a claim has no key (shown as [—], chosen by click): a key
  that existed only in long tasks would again mean something else elsewhere.

A label config cannot compute a key from a repeater index, so the per-claim choices are dynamic
choices (`<Choices value="$claims[…].significant_choices">`) whose `{value, alias, hotkey}`
citeval writes into each task. `NO_KEY` is a character no keyboard sends: the choice keeps an
explicit hotkey (so Label Studio assigns none) that never fires.
"""

from __future__ import annotations

ROWS: tuple[str, ...] = ("123456789", "qwertyuio", "asdfghjkl")
COLUMNS: tuple[tuple[str, str], ...] = (
    ("significant", "yes"),
    ("significant", "no"),
    ("support", "supported"),
    ("support", "partial"),
    ("support", "unsupported"),
    ("support", "cannot_judge"),
    ("anchor", "yes"),
    ("anchor", "no"),
    ("anchor", "na"),
)
ANSWER_KEYS: dict[tuple[str, str], str] = {
    ("should_abstain", "yes"): "z",
    ("should_abstain", "no"): "x",
    ("version_ok", "yes"): "c",
    ("version_ok", "no"): "v",
}
NO_KEY = "—"  # U+2014: keymaster binds it to key code 8212, which no key sends
CARDS_WITH_KEYS = 2  # the first fragment plain, the second with shift

__all__ = ["ANSWER_KEYS", "COLUMNS", "NO_KEY", "ROWS", "hotkey"]


def hotkey(field: str, value: str, claim: int | None = None, card: int | None = None) -> str:
    """The key of `field` = `value` at claim index `claim` (0-based) and card index `card`; NO_KEY
    beyond the keyed claims and cards."""
    if claim is None:
        return ANSWER_KEYS[(field, value)]
    if claim >= len(ROWS):
        return NO_KEY
    key = ROWS[claim][COLUMNS.index((field, value))]
    if field == "significant" or not card:
        return key
    return f"shift+{key}" if card < CARDS_WITH_KEYS else NO_KEY
