"""Label Studio for quote placement (`citeval label push/pull --kind quotes`, DESIGN 9).

One task per citation of a quotes file: the answer text, and the citation's cited_text as a
card; the rater selects the answer fragment the quote supports (control `place`) or marks
that no fragment fits (`no_place`). Label Studio's browser side counts UTF-16 code units
(JavaScript string indices), citeval counts code points: offsets are converted at this
border, both ways, and an offset inside a surrogate pair is refused.

A pulled place is trimmed like the lab's fragments (spaces and closing punctuation), so a
rater's selection of "раз в полгода." and the matcher's "раз в полгода" are the same span.
Pull writes the quotes file back with `gold`: the adjudicator's places (`gold_rater`), or
else the raters' common decision — both "no place", or spans that overlap with IoU ≥ 0.5
(their intersection). An answer with a citation the raters disagree on (or that nobody
labelled yet) is written without gold and listed. Agreement between two raters: exact-span
agreement, mean IoU where both placed, Cohen's κ on "has a place".
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from evals.contract.quotes import QuoteAnswer, Span
from evals.errors import UsageError
from evals.label.client import LabelStudioClient
from evals.label.config import configs_dir
from evals.label.pull import annotation_time
from evals.label.push import DEFAULT_BATCH, PushResult, import_missing, open_project
from evals.label.tasks import data_hash
from evals.quotes.evaluate import IOU_CORRECT, iou
from evals.store.jsonl import write_json_atomic, write_jsonl_atomic
from evals.store.quotes import read_quotes
from evals.store.reading import read_file_text

KIND = "quotes"
CONFIG_NAMES = {"ru": "quote_placement.ru.xml", "en": "quote_placement.xml"}
PLACE, NO_PLACE = "place", "no_place"
NO_PLACE_VALUE = "none"
MODEL_VERSION = "citeval-quotes:{matcher}"
_TRIM_END = ".,;:!?…"


def quote_config_path(lang: str = "ru") -> Path:
    if lang not in CONFIG_NAMES:
        raise UsageError(f"unknown labelling language {lang!r} (expected one of {', '.join(CONFIG_NAMES)})")
    return configs_dir() / CONFIG_NAMES[lang]


# --- the UTF-16 border ------------------------------------------------------------------------


def to_utf16(text: str, offset: int) -> int:
    """A code point offset of text as a UTF-16 code unit offset (what Label Studio stores)."""
    if not 0 <= offset <= len(text):
        raise ValueError(f"offset {offset} is outside the text ({len(text)} code points)")
    return offset + sum(1 for ch in text[:offset] if ord(ch) > 0xFFFF)


def from_utf16(text: str, offset: int) -> int:
    """A UTF-16 code unit offset of text as a code point offset; one that falls inside a
    surrogate pair (half an emoji) is refused."""
    units = 0
    for index, ch in enumerate(text):
        if units == offset:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > offset:
            raise ValueError(f"UTF-16 offset {offset} falls inside the character {ch!r} at {index}")
    if units == offset:
        return len(text)
    raise ValueError(f"UTF-16 offset {offset} is outside the text ({units} UTF-16 units)")


def trim_span(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _TRIM_END):
        end -= 1
    return (start, end) if end > start else None


# --- tasks ------------------------------------------------------------------------------------


def task_key(answer_id: str, citation_id: str) -> str:
    return json.dumps([KIND, answer_id, citation_id], ensure_ascii=False)


_META = {
    "ru": "цитата {n} из {total} · документ {doc}",
    "en": "quote {n} of {total} · document {doc}",
}


def quote_tasks(
    answers: Sequence[QuoteAnswer], lang: str = "ru", matcher: str | None = None
) -> list[dict[str, Any]]:
    """Label Studio tasks, one per citation; with a matcher, its place (at its threshold) as a
    prediction the raters see (off by default: raters mark blind)."""
    if lang not in _META:
        raise UsageError(f"unknown labelling language {lang!r} (expected one of {', '.join(_META)})")
    chosen = None
    if matcher is not None:
        from evals.quotes.matchers import get_matcher

        chosen = get_matcher(matcher)
    tasks = []
    for answer in answers:
        placements = chosen.place(answer.answer_text, answer.citations) if chosen else None
        for n, citation in enumerate(answer.citations, 1):
            data = {
                "citeval_kind": KIND,
                "answer_id": answer.answer_id,
                "citation_id": citation.citation_id,
                "answer_text": answer.answer_text,
                "cited_text": citation.cited_text,
                "quote_meta": _META[lang].format(
                    n=n, total=len(answer.citations), doc=citation.document_id or "—"
                ),
            }
            key = task_key(answer.answer_id, citation.citation_id)
            task: dict[str, Any] = {"data": data, "meta": {"citeval_key": key, "citeval_hash": data_hash(data)}}
            if chosen is not None and placements is not None:
                span = placements[n - 1].placed_at(float(chosen.default_threshold))
                task["predictions"] = [_prediction(answer.answer_text, span, chosen.name, placements[n - 1].score)]
            tasks.append(task)
    return tasks


def _prediction(text: str, span: Span | None, matcher: str, score: float | None) -> dict[str, Any]:
    if span is None:
        result = [
            {"from_name": NO_PLACE, "to_name": "quote", "type": "choices", "value": {"choices": [NO_PLACE_VALUE]}}
        ]
    else:
        start, end = to_utf16(text, span[0]), to_utf16(text, span[1])
        result = [
            {
                "from_name": PLACE,
                "to_name": "answer",
                "type": "labels",
                "value": {"start": start, "end": end, "text": text[span[0] : span[1]], "labels": [PLACE]},
            }
        ]
    return {"model_version": MODEL_VERSION.format(matcher=matcher), "score": score, "result": result}


def write_quote_tasks_file(
    path: Path | str, out: Path | str, *, lang: str = "ru", matcher: str | None = None
) -> int:
    tasks = quote_tasks(read_quotes(path), lang, matcher)
    write_json_atomic(Path(out), tasks)
    return len(tasks)


def push_quotes(
    path: Path | str,
    project_title: str,
    *,
    lang: str = "ru",
    matcher: str | None = None,
    client: LabelStudioClient | None = None,
    batch_size: int = DEFAULT_BATCH,
) -> PushResult:
    """Create or find the project and bring its citation tasks up to date (keyed by answer_id and
    citation_id: pushing twice imports nothing; a changed task that has annotations is kept)."""
    started = time.monotonic()
    tasks = quote_tasks(read_quotes(path), lang, matcher)
    xml = read_file_text(quote_config_path(lang))
    client = client or LabelStudioClient.from_env()
    description = f"citeval quote placement: {Path(path).name} — select the fragment each quote supports."
    project_id, created = open_project(client, project_title, xml, matcher is not None, description)
    result = PushResult(project_id, project_title, created, len(tasks))
    existing: dict[str, dict[str, Any]] = {}
    if not created:
        for task in client.list_tasks(project_id):
            key = (task.get("meta") or {}).get("citeval_key")
            if not key:
                continue
            if key in existing:
                result.duplicates.append(str(key))
                continue
            existing[key] = task
    missing = []
    for task in tasks:
        current = existing.get(task["meta"]["citeval_key"])
        if current is None:
            missing.append(task)
        elif (current.get("meta") or {}).get("citeval_hash") == task["meta"]["citeval_hash"]:
            result.unchanged += 1
        elif current.get("total_annotations") or current.get("annotations"):
            result.kept.append(f"{task['data']['answer_id']}/{task['data']['citation_id']}")
        else:
            client.update_task(int(current["id"]), task["data"], {**(current.get("meta") or {}), **task["meta"]})
            result.updated += 1
    import_missing(client, project_id, missing, batch_size, result)
    result.seconds = time.monotonic() - started
    return result


# --- pull -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RaterPlace:
    """One rater's decision on one citation: a span (code points) or None for "no place"."""

    rater: str
    span: Span | None
    when: datetime


@dataclass
class QuotePullReport:
    citations: int  # citations of the quotes file
    tasks: int  # their tasks found in the export
    places: dict[tuple[str, str], dict[str, RaterPlace]]  # (answer_id, citation_id) → rater → place
    problems: list[str] = field(default_factory=list)
    drafts: int = 0
    ignored_tasks: int = 0
    with_gold: int = 0  # answers written with gold
    unresolved: list[str] = field(default_factory=list)  # answer/citation without a gold decision
    agreement: dict[str, Any] = field(default_factory=dict)
    out: str | None = None

    def raters(self) -> list[str]:
        return sorted({r for by in self.places.values() for r in by})

    def to_json(self) -> dict[str, Any]:
        per_rater = {r: sum(1 for by in self.places.values() if r in by) for r in self.raters()}
        return {
            "citations": self.citations,
            "tasks": self.tasks,
            "raters": per_rater,
            "answers_with_gold": self.with_gold,
            "unresolved": self.unresolved,
            "agreement": self.agreement,
            "drafts_ignored": self.drafts,
            "problems": self.problems,
            "out": self.out,
        }

    def summary(self) -> str:
        j = self.to_json()
        lines = [f"{self.tasks} of {self.citations} citation task(s) in the export"]
        lines += [f"  {r}: {n} citation(s) done" for r, n in j["raters"].items()]
        a = self.agreement
        if a:
            def show(stat: dict[str, Any]) -> str:
                if stat.get("value") is None:
                    return f"— ({stat.get('reason')})"
                ci = stat.get("ci")
                return f"{stat['value']:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "") + f" (n {stat['n']})"

            lines.append(
                f"agreement {' vs '.join(a['raters'])}: exact span {show(a['exact_span'])}; "
                f"mean IoU {show(a['mean_iou'])}; κ on 'has a place' {show(a['has_place_kappa'])}"
            )
        if self.out:
            lines.append(f"{self.out}: {self.with_gold} answer(s) with gold")
        if self.unresolved:
            lines.append(
                f"{len(self.unresolved)} citation(s) without a gold decision (raters disagree or not labelled): "
                + ", ".join(self.unresolved[:10])
                + (", …" if len(self.unresolved) > 10 else "")
            )
        if self.drafts:
            lines.append(f"{self.drafts} draft(s) ignored (a draft is not a label until it is submitted)")
        if self.problems:
            lines.append(f"{len(self.problems)} result(s) not used:")
            lines.extend(f"  {p}" for p in self.problems[:20])
        return "\n".join(lines)


def _rater(annotation: dict[str, Any], emails: dict[int, str]) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        if who.get("email"):
            return str(who["email"])
        who = who.get("id")
    if isinstance(who, int) and who in emails:
        return emails[who]
    return f"ls-user-{who}"


def _decision(annotation: dict[str, Any], text: str, where: str, problems: list[str]) -> tuple[bool, Span | None]:
    """(usable, span) of one annotation: a single place, or "no place"."""
    spans: list[Span] = []
    no_place = False
    for result in annotation.get("result") or []:
        name, value = result.get("from_name"), result.get("value") or {}
        if name == PLACE:
            try:
                start, end = from_utf16(text, int(value["start"])), from_utf16(text, int(value["end"]))
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(f"{where}: place {value.get('start')!r}–{value.get('end')!r} unusable ({exc})")
                return False, None
            span = trim_span(text, start, end) if start < end else None
            if span is None:
                problems.append(f"{where}: an empty place")
                return False, None
            spans.append(span)
        elif name == NO_PLACE:
            if value.get("choices") != [NO_PLACE_VALUE]:
                problems.append(f"{where}: no_place choice {value.get('choices')!r} is not one the config offers")
                return False, None
            no_place = True
        else:
            problems.append(f"{where}: {name!r} is not a control of the quote placement config")
    if no_place and spans:
        problems.append(f"{where}: both a place and 'no fitting place'")
        return False, None
    if len(spans) > 1:
        problems.append(f"{where}: {len(spans)} places for one quote (mark one fragment)")
        return False, None
    if not spans and not no_place:
        problems.append(f"{where}: neither a place nor 'no fitting place'")
        return False, None
    return True, spans[0] if spans else None


def export_to_places(
    export: Iterable[dict[str, Any]], answers: Sequence[QuoteAnswer], emails: dict[int, str] | None = None
) -> QuotePullReport:
    """Each rater's latest submitted decision per citation (pure: no files, no server). Skipped
    annotations and drafts are not labels; a task whose texts differ from the quotes file is
    reported and not used (the rater saw another answer)."""
    emails = emails or {}
    by_key = {(a.answer_id, c.citation_id): (a, c) for a in answers for c in a.citations}
    report = QuotePullReport(citations=len(by_key), tasks=0, places=defaultdict(dict))
    for task in export:
        data = task.get("data") or {}
        key = (str(data.get("answer_id")), str(data.get("citation_id")))
        if data.get("citeval_kind") != KIND or key not in by_key:
            report.ignored_tasks += 1
            continue
        answer, citation = by_key[key]
        if data.get("answer_text") != answer.answer_text or data.get("cited_text") != citation.cited_text:
            report.problems.append(f"{key[0]}/{key[1]}: the task's texts differ from the quotes file; not used")
            continue
        report.tasks += 1
        report.drafts += len(task.get("drafts") or [])
        for annotation in task.get("annotations") or []:
            if annotation.get("was_cancelled"):
                continue
            rater = _rater(annotation, emails)
            where = f"{key[0]}/{key[1]} (annotation {annotation.get('id', '?')}, {rater})"
            usable, span = _decision(annotation, answer.answer_text, where, report.problems)
            if not usable:
                continue
            place = RaterPlace(rater, span, annotation_time(annotation))
            current = report.places[key].get(rater)
            if current is None or place.when >= current.when:
                report.places[key][rater] = place
    report.places = dict(report.places)
    return report


def rater_agreement(places: dict[tuple[str, str], dict[str, RaterPlace]], raters: Sequence[str]) -> dict[str, Any]:
    """Two raters over the citations both decided: exact-span agreement (same place, or both no
    place), mean IoU over the citations both placed, Cohen's κ on "has a place" (with bootstrap
    intervals over citations)."""
    from evals.agreement.stats import cohen_kappa, with_ci

    a, b = raters
    both = [(by[a].span, by[b].span) for by in places.values() if a in by and b in by]
    out: dict[str, Any] = {"raters": [a, b], "n": len(both)}
    if not both:
        reason = "no citation was decided by both raters"
        for name in ("exact_span", "mean_iou", "has_place_kappa"):
            out[name] = {"value": None, "ci": None, "n": 0, "reason": reason}
        return out
    exact = sum(1 for x, y in both if x == y)
    out["exact_span"] = {"value": round(exact / len(both), 6), "ci": None, "n": len(both)}
    placed = [iou(x, y) for x, y in both if x is not None and y is not None]
    out["mean_iou"] = (
        {"value": round(sum(placed) / len(placed), 6), "ci": None, "n": len(placed)}
        if placed
        else {"value": None, "ci": None, "n": 0, "reason": "no citation placed by both raters"}
    )
    table = [["place" if x is not None else "none", "place" if y is not None else "none"] for x, y in both]
    out["has_place_kappa"] = with_ci(table, cohen_kappa).to_json()
    return out


def _gold_of(by: dict[str, RaterPlace], gold_rater: str | None) -> tuple[bool, Span | None]:
    if gold_rater is not None:
        return (True, by[gold_rater].span) if gold_rater in by else (False, None)
    decisions = list(by.values())
    if len(decisions) < 2:
        return False, None
    spans = [d.span for d in decisions]
    if all(s is None for s in spans):
        return True, None
    if any(s is None for s in spans):
        return False, None
    concrete = [s for s in spans if s is not None]
    if any(iou(concrete[0], s) < IOU_CORRECT for s in concrete[1:]):
        return False, None
    return True, (max(s[0] for s in concrete), min(s[1] for s in concrete))


def pull_quotes(
    path: Path | str,
    out: Path | str,
    project_title: str | None = None,
    *,
    from_file: Path | str | None = None,
    raters: dict[int, str] | None = None,
    gold_rater: str | None = None,
    client: LabelStudioClient | None = None,
) -> QuotePullReport:
    """Read the raters' places (from the server or an export file), write the quotes file with
    gold to out, and measure the agreement of the two raters."""
    answers = read_quotes(path)
    emails = dict(raters or {})
    if from_file is not None:
        from evals.label.pull import read_export

        export = read_export(from_file)
    else:
        if not project_title:
            raise UsageError("give --project TITLE (or --from-file EXPORT.json)")
        client = client or LabelStudioClient.from_env()
        project = client.find_project(project_title)
        if project is None:
            raise UsageError(f"no Label Studio project titled {project_title!r}")
        export = client.export(int(project["id"]))
        if not emails:
            emails = client.user_emails()
    report = export_to_places(export, answers, emails)
    names = report.raters()
    if gold_rater is not None and gold_rater not in names:
        raise UsageError(f"--gold-rater {gold_rater!r} labelled nothing here (raters: {', '.join(names) or 'none'})")
    if len(names) == 2:
        report.agreement = rater_agreement(report.places, names)
    elif names:
        report.agreement = {}
        report.problems.append(f"agreement needs exactly two raters; found {len(names)} ({', '.join(names)})")
    rows = []
    for answer in answers:
        gold: list[dict[str, Any]] = []
        rated: dict[str, dict[str, Any]] = {}
        for citation in answer.citations:
            by = report.places.get((answer.answer_id, citation.citation_id), {})
            rated[citation.citation_id] = {r: list(p.span) if p.span else None for r, p in sorted(by.items())}
            decided, span = _gold_of(by, gold_rater)
            if decided:
                gold.append({"citation_id": citation.citation_id, "span": list(span) if span else None})
            else:
                report.unresolved.append(f"{answer.answer_id}/{citation.citation_id}")
        row = answer.model_dump(mode="json", exclude_none=True, exclude={"gold"})
        row["rater_places"] = rated
        if len(gold) == len(answer.citations):
            row["gold"] = gold
            report.with_gold += 1
        rows.append(row)
    write_jsonl_atomic(out, rows)
    report.out = str(out)
    return report


