"""The Label Studio labelling configs (evals/label/configs/citation_review*.xml, shipped as
package data; annotator_configs/ in the repository points there) as data.

A config names its controls with the indices of the enclosing <Repeater>s
(`support_{{idx}}_{{jdx}}`); `ReviewConfig` turns those names back into a DESIGN 5
field and the claim / evidence-card indices, and knows which stored choice values are
allowed. `label pull` uses it to reject results that the config does not produce (the
server does not validate results submitted through its API). A control whose `value` names task
data (`value="$claims[{{idx}}].significant_choices"`) has dynamic choices: `label push` writes them,
with their hotkeys (evals.label.hotkeys), into each task.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from evals.contract.models import JUDGMENT_VALUES
from evals.errors import DataError, UsageError
from evals.store.reading import read_file_text

CONFIG_NAMES = {"ru": "citation_review.ru.xml", "en": "citation_review.xml"}
COMMENT_FIELD = "comment"


def configs_dir() -> Path:
    """The labelling configs inside the installed package (a wheel carries them)."""
    return Path(__file__).resolve().parent / "configs"


def config_path(lang: str = "ru") -> Path:
    if lang not in CONFIG_NAMES:
        raise UsageError(f"unknown labelling language {lang!r} (expected one of {', '.join(CONFIG_NAMES)})")
    return configs_dir() / CONFIG_NAMES[lang]


@dataclass(frozen=True)
class Control:
    """One control tag: its name pattern, the DESIGN 5 field it labels and its grain."""

    name: str  # as written, with index flags, e.g. support_{{idx}}_{{jdx}}
    to_name: str  # the object tag it labels, e.g. card_{{idx}}_{{jdx}}
    tag: str  # choices | textarea
    field: str  # support | anchor | significant | should_abstain | version_ok | comment
    levels: int  # 0 per answer, 1 per claim, 2 per claim x evidence card
    values: frozenset[str]  # stored values (alias, else value) of its choices
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Match:
    control: Control
    indices: tuple[int, ...]


class ReviewConfig:
    """The controls of a citation-review config, parsed from its XML."""

    def __init__(self, xml: str, source: str = "<label config>") -> None:
        self.xml = xml
        self.source = source
        try:
            root = ET.fromstring(xml)
        except ET.ParseError as exc:
            raise DataError(source, exc.position[0] if exc.position else None, f"not valid XML: {exc}") from None
        self.controls: list[Control] = []
        self._walk(root, [])
        fields = {c.field for c in self.controls}
        missing = [f for f in (*JUDGMENT_VALUES, COMMENT_FIELD) if f not in fields]
        if missing:
            raise DataError(source, None, f"label config has no control for {', '.join(missing)}")

    @classmethod
    def load(cls, path: Path | str) -> ReviewConfig:
        path = Path(path)
        return cls(read_file_text(path, missing="label config not found"), str(path))

    @classmethod
    def default(cls, lang: str = "ru") -> ReviewConfig:
        return cls.load(config_path(lang))

    def _walk(self, node: ET.Element, flags: list[str]) -> None:
        tag = node.tag.lower()
        if tag == "repeater":
            flags = [*flags, node.attrib.get("indexFlag", "{{idx}}")]
        elif tag in ("choices", "textarea") and "name" in node.attrib:
            self.controls.append(self._control(node, tag, flags))
        for child in node:
            self._walk(child, flags)

    def _control(self, node: ET.Element, tag: str, flags: list[str]) -> Control:
        name = node.attrib["name"]
        used = [f for f in flags if f in name]
        field = name
        regex = re.escape(name)
        for flag in used:
            field = field.replace(flag, "")
            regex = regex.replace(re.escape(flag), r"(\d+)")
        field = field.strip("_")
        if tag == "textarea":
            if field != COMMENT_FIELD:
                raise DataError(self.source, None, f"unexpected text control {name!r} (only {COMMENT_FIELD!r})")
            values: frozenset[str] = frozenset()
        else:
            allowed = JUDGMENT_VALUES.get(field)
            if allowed is None:
                raise DataError(self.source, None, f"control {name!r} labels no DESIGN 5 field")
            static = [c for c in node.iter() if c.tag.lower() == "choice"]
            if node.attrib.get("value", "").startswith("$"):
                # dynamic choices (evals.label.hotkeys): the task data carries them, `label push` writes
                # exactly the field's values; a static <Choice> beside them would show twice
                if static:
                    raise DataError(self.source, None, f"control {name!r} has dynamic choices and <Choice> tags")
                values = frozenset(allowed)
            else:
                values = frozenset(c.attrib.get("alias") or c.attrib.get("value", "") for c in static)
            wrong = sorted(values - set(allowed))
            if wrong or set(allowed) - values:
                raise DataError(
                    self.source,
                    None,
                    f"control {name!r} must offer exactly {', '.join(allowed)} (got {', '.join(sorted(values))})",
                )
        expected_levels = {"support": 2, "anchor": 2, "significant": 1}.get(field, 0)
        if len(used) != expected_levels:
            raise DataError(self.source, None, f"control {name!r} must sit inside {expected_levels} repeater(s)")
        return Control(name, node.attrib.get("toName", ""), tag, field, len(used), values, re.compile(regex + r"\Z"))

    def match(self, from_name: str) -> Match | None:
        """The control a result's from_name belongs to, with the indices it carries."""
        for control in self.controls:
            m = control.pattern.match(from_name)
            if m:
                return Match(control, tuple(int(g) for g in m.groups()))
        return None

    def control(self, field: str) -> Control:
        for control in self.controls:
            if control.field == field:
                return control
        raise KeyError(field)

    def names_for(self, field: str, *indices: int) -> tuple[str, str]:
        """(from_name, to_name) of `field` at the given claim (and card) index."""
        control = self.control(field)
        return _fill(control.name, indices), _fill(control.to_name, indices)


_FLAG = re.compile(r"\{\{\w+\}\}")


def _fill(name: str, indices: tuple[int, ...]) -> str:
    for flag, index in zip(_FLAG.findall(name), indices, strict=False):
        name = name.replace(flag, str(index), 1)
    return name
