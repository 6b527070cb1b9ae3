"""One key per meaning in every task (issue 32): the configs rendered as Label Studio renders them.

Label Studio expands each <Repeater> over the task data (replacing the first index flag in every
attribute of the copy, as its Tree.tsx does), builds dynamic choices from the list a Choices'
`value` names, registers the explicit hotkeys, then gives every choice still without one the next
free key of "1234567890qwetasdfgzxcvbyiopjklnm" in page order (Annotation.setupHotKeys). The
renderer below does the same, independently of evals.label, for tasks with 1, 2 and 5 claims
(claims with one, two and three cited fragments) in both languages, and checks that each key means
one (field, value, claim, fragment) in all of them. The expected keys are written out by hand.
"""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from labelstudio.runs import make_run

from evals.contract.models import Answer, Claim, Evidence
from evals.label.config import ReviewConfig, config_path
from evals.label.hotkeys import NO_KEY
from evals.label.tasks import TaskBuilder
from evals.store.runfolder import RunFolder

AUTO_KEYS = "1234567890qwetasdfgzxcvbyiopjklnm"  # Label Studio's Hotkey.makeComb order
CHUNKS = ["k-d1v2-1", "k-d2v1-1", "k-d1v2-2"]


def _answer(question_id: str, cards_per_claim: list[int]) -> Answer:
    claims = [
        Claim(claim_id=f"c{i + 1}", text=f"Утверждение {i + 1}", evidence_ids=[f"E{j + 1}" for j in range(n)])
        for i, n in enumerate(cards_per_claim)
    ]
    evidence = [Evidence(evidence_id=f"E{j + 1}", chunk_id=CHUNKS[j]) for j in range(max(cards_per_claim))]
    return Answer(question_id=question_id, status="answered", answer_text="…", claims=claims, evidence=evidence)


SHAPES = {"q1": [2], "q2": [1, 3], "q4": [1, 2, 3, 1, 2]}  # 1, 2 and 5 claims (q1..q6 are the fixture's questions)


def _tasks(tmp_path: Path, lang: str) -> dict[int, dict[str, Any]]:
    run = make_run(tmp_path, answers=[_answer(q, shape) for q, shape in SHAPES.items()], judgments=False)
    tasks = TaskBuilder(RunFolder(run), lang).tasks()
    return {len(t["data"]["claims"]): t["data"] for t in tasks}


# --- a renderer as Label Studio's -----------------------------------------------------


def _resolve(path: str, data: dict[str, Any]) -> Any:
    value: Any = data
    for name, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", path.lstrip("$")):
        if value is None:
            return None
        value = value.get(name) if name else value[int(index)]  # a missing key: nothing to repeat
    return value


def _replace_first(node: ET.Element, flag: str, index: int) -> None:
    for key, value in node.attrib.items():
        node.set(key, value.replace(flag, str(index), 1))
    for child in node:
        _replace_first(child, flag, index)


def _choices(node: ET.Element, data: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(control name, stored value, explicit hotkey) of every choice, in page order."""
    tag = node.tag.lower()
    if tag == "repeater":
        out = []
        flag = node.get("indexFlag", "{{idx}}")
        for i in range(len(_resolve(node.get("on", ""), data) or [])):
            for child in node:
                clone = copy.deepcopy(child)
                _replace_first(clone, flag, i)
                out.extend(_choices(clone, data))
        return out
    if tag == "choices":
        name = node.get("name", "")
        if node.get("value", "").startswith("$"):
            items = _resolve(node.get("value", ""), data)
            return [(name, item.get("alias") or item["value"], item.get("hotkey")) for item in items]
        return [(name, c.get("alias") or c.get("value", ""), c.get("hotkey")) for c in node.iter() if c.tag == "Choice"]
    return [found for child in node for found in _choices(child, data)]


def render_keys(xml: str, data: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(key, control name, stored value, auto-assigned?) per choice, keys assigned as Label Studio does."""
    found = _choices(ET.fromstring(xml), data)
    used = {key for _, _, key in found if key}
    free = iter(k for k in AUTO_KEYS if k not in used)
    # when the 34 keys run out, Label Studio leaves the choice without a key ("")
    return [(key or next(free, ""), name, value, not key) for name, value, key in found]


def meanings(xml: str, data: dict[str, Any]) -> dict[str, set[tuple[Any, ...]]]:
    config = ReviewConfig(xml)
    out: dict[str, set[tuple[Any, ...]]] = {}
    for key, name, value, _ in render_keys(xml, data):
        match = config.match(name)
        assert match is not None, name
        if key:
            out.setdefault(key, set()).add((match.control.field, value, match.indices))
    return out


# --- the checks ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_key_means_one_field_value_in_tasks_of_1_2_and_5_claims(tmp_path: Path, lang: str) -> None:
    xml = config_path(lang).read_text(encoding="utf-8")
    tasks = _tasks(tmp_path, lang)
    assert sorted(tasks) == [1, 2, 5]
    union: dict[str, set[tuple[Any, ...]]] = {}
    for n, data in tasks.items():
        rendered = render_keys(xml, data)
        assert not any(auto for *_, auto in rendered), f"{n} claim(s): Label Studio would assign keys by position"
        keys = [key for key, *_ in rendered if key != NO_KEY]
        assert len(keys) == len(set(keys)), f"{n} claim(s): one key, two choices"
        for key, meaning in meanings(xml, data).items():
            union.setdefault(key, set()).update(meaning)
    clashes = {key: m for key, m in union.items() if key != NO_KEY and len(m) > 1}
    assert clashes == {}
    # by hand: claim #0 owns 1-9, claim #1 q-o, claim #2 a-l; a second source adds shift; the answer z x c v
    expected = {
        "1": ("significant", "yes", (0,)), "2": ("significant", "no", (0,)),
        "3": ("support", "supported", (0, 0)), "6": ("support", "cannot_judge", (0, 0)),
        "7": ("anchor", "yes", (0, 0)), "9": ("anchor", "na", (0, 0)),
        "shift+3": ("support", "supported", (0, 1)), "shift+8": ("anchor", "no", (0, 1)),
        "q": ("significant", "yes", (1,)), "e": ("support", "supported", (1, 0)), "o": ("anchor", "na", (1, 0)),
        "shift+y": ("support", "cannot_judge", (1, 1)),
        "a": ("significant", "yes", (2,)), "l": ("anchor", "na", (2, 0)), "shift+d": ("support", "supported", (2, 1)),
        "z": ("should_abstain", "yes", ()), "x": ("should_abstain", "no", ()),
        "c": ("version_ok", "yes", ()), "v": ("version_ok", "no", ()),
    }
    for key, meaning in expected.items():
        assert union[key] == {meaning}, key
    # no key beyond the third claim or the second source: claim #3, #4 and claim #1's third source
    unkeyed = {(f, i) for f, _, i in union[NO_KEY]}
    assert unkeyed == {
        ("significant", (3,)), ("support", (3, 0)), ("anchor", (3, 0)),
        ("significant", (4,)), ("support", (4, 0)), ("anchor", (4, 0)), ("support", (4, 1)), ("anchor", (4, 1)),
        ("support", (1, 2)), ("anchor", (1, 2)), ("support", (2, 2)), ("anchor", (2, 2)),
    }


def test_a_one_claim_task_is_labelled_with_one_key_per_question(tmp_path: Path) -> None:
    data = _tasks(tmp_path, "ru")[1]
    data["claims"][0]["cards"] = data["claims"][0]["cards"][:1]
    rendered = render_keys(config_path("ru").read_text(encoding="utf-8"), data)
    by_control: dict[str, list[str]] = {}
    for key, name, _, _ in rendered:
        by_control.setdefault(name, []).append(key)
    assert by_control == {
        "significant_0": ["1", "2"], "support_0_0": ["3", "4", "5", "6"], "anchor_0_0": ["7", "8", "9"],
        "should_abstain": ["z", "x"], "version_ok": ["c", "v"],
    }  # five questions, five keystrokes, then ctrl+enter


def test_the_check_catches_positional_keys(tmp_path: Path) -> None:
    """Without explicit keys (the configs before issue 32) Label Studio's positional keys clash."""
    xml = re.sub(r' hotkey="[^"]*"', "", config_path("ru").read_text(encoding="utf-8"))
    tasks = _tasks(tmp_path, "ru")
    tasks[1]["claims"][0]["cards"] = tasks[1]["claims"][0]["cards"][:1]  # the one-claim, one-source task
    for data in tasks.values():
        for claim in data["claims"]:
            for item in claim["significant_choices"]:
                item.pop("hotkey")
            for card in claim["cards"]:
                for item in card["support_choices"] + card["anchor_choices"]:
                    item.pop("hotkey")
    union: dict[str, set[tuple[Any, ...]]] = {}
    for data in tasks.values():
        for key, meaning in meanings(xml, data).items():
            union.setdefault(key, set()).update(meaning)
    # the example: in a one-claim task 0 answers should_abstain, elsewhere a claim's question
    assert ("should_abstain", "yes", ()) in union["0"] and len(union["0"]) > 1
