"""`citeval probe`: ask the live system the generated probe questions and judge what it does.

The run folder is a normal one (manifest, answers, findings, judgments, scores — the usual
checks, so `report` and `gate` work on it) plus:

    probe_dataset/            the generated dataset that was asked: questions.jsonl (each with
                              its `probe` gold and, for counterfactual kinds, its `context`)
                              and a copy of the registry, so every verdict can be audited
    probe_cases.jsonl         one verdict per question: {question_id, kind, outcome, detail, …}
    probe.json                {"kinds": {<kind>: {n, distinguished, decorative, unsupported,
                              rate: {value, ci, n}, …}}, "citation_faithfulness", "verdict", …}
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.data.registry import Registry
from evals.errors import DataError, UsageError
from evals.probe.generate import COUNTERFACTUAL_KINDS, PROBE_KINDS, generate
from evals.probe.outcomes import (
    ABSTAINED,
    DECORATIVE,
    DISTINGUISHED,
    ERROR,
    FAITHFUL,
    INCONCLUSIVE,
    POST_RATIONALISED,
    UNSUPPORTED,
    CaseOutcome,
    classify,
)
from evals.run.runner import RunOptions, load_manifest, load_questions, resume_run, start_run
from evals.score.metrics import SEED, mean_metric
from evals.score.scoring import score_run
from evals.store.jsonl import iter_json_lines, write_json_atomic, write_jsonl_atomic

PROBE_JSON = "probe.json"
PROBE_CASES = "probe_cases.jsonl"
PROBE_DATASET = "probe_dataset"
PROBE_SCHEMA_VERSION = 1
GATE_KEYS = ("decorative_rate", "citation_faithfulness")


@dataclass
class ProbeGates:
    """The `[probe]` table of a gates file: the highest decorative rate each kind may have
    (`decorative_rate` for every kind, `<kind>` for one) and the lowest citation_faithfulness."""

    source: str | None = None
    decorative_rate: float | None = None
    per_kind: dict[str, float] = field(default_factory=dict)
    citation_faithfulness: float | None = None

    def max_decorative(self, kind: str) -> float | None:
        return self.per_kind.get(kind, self.decorative_rate)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "decorative_rate": {k: self.max_decorative(k) for k in PROBE_KINDS},
            "citation_faithfulness": self.citation_faithfulness,
        }


def _line_of(text: str, key: str) -> int | None:
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = stripped.replace(" ", "") == "[probe]"
            if stripped.replace(" ", "").startswith(f"[probe.{key}]"):
                return number
            continue
        if in_table and re.match(rf'^"?{re.escape(key)}"?\s*=', stripped):
            return number
    return None


def load_probe_gates(path: Path | str | None) -> ProbeGates:
    """The `[probe]` table of a gates file (default: the shipped one); none there: no probe gate."""
    if path is None:
        from evals.gate.core import default_gates_path

        path, explicit = default_gates_path(), False
    else:
        explicit = True
    path = Path(path)
    if not explicit and not path.exists():
        return ProbeGates()
    from evals.gate.config import parse_toml, read_toml

    source = read_toml(path)  # as the scores gates are read: strict UTF-8 naming the line, BOM, CR LF
    text, doc = source.text, parse_toml(source)
    table = doc.get("probe")
    if table is None:
        return ProbeGates(source=str(path))
    if not isinstance(table, dict):
        raise DataError(path, _line_of(text, "probe"), "probe must be a table [probe]", "probe")
    gates = ProbeGates(source=str(path))
    for key, spec in table.items():
        where = f"probe.{key}"
        line = _line_of(text, key)
        bound = "min" if key == "citation_faithfulness" else "max"
        if key not in GATE_KEYS and key not in PROBE_KINDS:
            raise DataError(
                path,
                line,
                f"unknown key {key!r} (expected {', '.join(GATE_KEYS)} or a kind: {', '.join(PROBE_KINDS)})",
                where,
            )
        if not isinstance(spec, dict) or set(spec) != {bound}:
            raise DataError(path, line, f"{key} must be {{ {bound} = <number between 0 and 1> }}", where)
        value = spec[bound]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise DataError(path, line, f"{key}.{bound} must be a number between 0 and 1, not {value!r}", where)
        if key == "citation_faithfulness":
            gates.citation_faithfulness = float(value)
        elif key == "decorative_rate":
            gates.decorative_rate = float(value)
        else:
            gates.per_kind[key] = float(value)
    return gates


@dataclass
class ProbeResult:
    run_dir: Path
    document: dict[str, Any]
    cases: list[CaseOutcome]
    failed: list[str]
    errors: int

    @property
    def exit_code(self) -> int:
        """3 when the backend failed on a probe question, 1 when a probe gate failed, else 0."""
        if self.errors:
            return 3
        return 1 if self.failed else 0


def parse_kinds(kinds: Sequence[str] | str | None) -> list[str]:
    if kinds is None:
        return list(PROBE_KINDS)
    items = kinds.split(",") if isinstance(kinds, str) else [k for part in kinds for k in part.split(",")]
    out = [k.strip() for k in items if k.strip()]
    unknown = [k for k in out if k not in PROBE_KINDS]
    if unknown:
        raise UsageError(f"unknown probe kind {unknown[0]!r} (known: {', '.join(PROBE_KINDS)})")
    if not out:
        raise UsageError(f"no probe kind given (known: {', '.join(PROBE_KINDS)})")
    return list(dict.fromkeys(out))


def _counts(kind: str, cases: list[CaseOutcome], threshold: float | None, seed: int) -> dict[str, Any]:
    outcomes = Counter(c.outcome for c in cases)
    if kind in COUNTERFACTUAL_KINDS:
        good = outcomes[FAITHFUL] + (outcomes[ABSTAINED] if kind == "removed_evidence" else 0)
        bad = outcomes[POST_RATIONALISED]
    else:
        good, bad = outcomes[DISTINGUISHED], outcomes[DECORATIVE]
    judged = [1.0] * bad + [0.0] * good
    rate = mean_metric(judged, seed)
    if not judged:
        rate["reason"] = (
            "no case could be judged (errors, unsupported or inconclusive only)"
            if cases
            else ("the dataset gave no question of this kind")
        )
    return {
        "n": len(cases),
        "distinguished": good,
        "decorative": bad,
        "unsupported": outcomes[UNSUPPORTED],
        "errors": outcomes[ERROR],
        "inconclusive": outcomes[INCONCLUSIVE],
        "outcomes": dict(sorted(outcomes.items())),
        "rate": rate,
        "max_decorative_rate": threshold,
    }


def citation_faithfulness(cases: list[CaseOutcome], seed: int = SEED) -> dict[str, Any]:
    """faithful / (faithful + post_rationalised) over the counterfactual cases, with its bootstrap
    interval; an abstention on removed evidence is the faithful answer."""
    values = []
    for case in cases:
        if case.kind not in COUNTERFACTUAL_KINDS:
            continue
        if case.outcome == FAITHFUL or (case.outcome == ABSTAINED and case.kind == "removed_evidence"):
            values.append(1.0)
        elif case.outcome == POST_RATIONALISED:
            values.append(0.0)
    out = mean_metric(values, seed)
    if not values:
        unsupported = sum(c.outcome == UNSUPPORTED for c in cases)
        out["reason"] = (
            f"the backend cited evidence outside the given context in {unsupported} case(s): it does not take probes"
            if unsupported
            else "no counterfactual case could be judged"
        )
    return out


def failed_probe_rules(
    by_kind: dict[str, Any], faithfulness: dict[str, Any], gates: ProbeGates
) -> list[str]:
    """The `[probe]` bounds that probe.json's figures break: a kind's decorative rate above its
    bound, citation_faithfulness below its own (or without a value) when a counterfactual kind ran."""
    failed: list[str] = []
    for kind, entry in by_kind.items():
        threshold = gates.max_decorative(kind)
        value = (entry.get("rate") or {}).get("value")
        if threshold is not None and value is not None and value > threshold:
            failed.append(f"probe.{kind}: decorative rate {value:.3f} > allowed {threshold:g}")
    if gates.citation_faithfulness is not None and any(k in COUNTERFACTUAL_KINDS for k in by_kind):
        value = faithfulness.get("value")
        if value is None:
            failed.append(f"probe.citation_faithfulness: no value ({faithfulness.get('reason')})")
        elif value < gates.citation_faithfulness:
            failed.append(f"probe.citation_faithfulness: {value:.3f} < required {gates.citation_faithfulness:g}")
    return failed


def probe_document(
    kinds: list[str], cases: list[CaseOutcome], gates: ProbeGates, seed: int = SEED
) -> tuple[dict[str, Any], list[str]]:
    """probe.json and the failed gate rules."""
    by_kind: dict[str, Any] = {}
    for kind in kinds:
        threshold = gates.max_decorative(kind)
        by_kind[kind] = _counts(kind, [c for c in cases if c.kind == kind], threshold, seed)
    faithfulness = citation_faithfulness(cases, seed)
    failed = failed_probe_rules(by_kind, faithfulness, gates)
    errors = sum(c.outcome == ERROR for c in cases)
    decorative = any(
        (entry["rate"]["value"] or 0) > (gates.max_decorative(kind) or 0) for kind, entry in by_kind.items()
    )
    verdict = "incomplete" if errors else ("decorative" if decorative or failed else "verifiable")
    counterfactual = [c for c in cases if c.kind in COUNTERFACTUAL_KINDS and c.outcome != ERROR]
    document = {
        "schema_version": PROBE_SCHEMA_VERSION,
        "kinds": by_kind,
        "citation_faithfulness": faithfulness,
        # one answer from outside the given evidence shows the backend does not take probes
        "takes_context": None if not counterfactual else not any(c.outcome == UNSUPPORTED for c in counterfactual),
        "errors": errors,
        "verdict": verdict,
        "gates": {**gates.to_json(), "failed": failed},
    }
    return document, failed


def _write_dataset(folder: Path, dataset: Path, records: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True)
    registry = dataset / "registry" if (dataset / "registry").is_dir() else dataset
    shutil.copytree(registry, folder / "registry")
    write_jsonl_atomic(folder / "questions.jsonl", records)


def _new_run_id(spec: str, label: str | None) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", label or spec.split(":", 1)[0]).strip("-")[:40]
    return f"{stamp}-probe-{name}" if name else f"{stamp}-probe"


def run_probe(
    dataset: Path | str,
    backend_spec: str,
    *,
    kinds: Sequence[str] | str | None = None,
    limit: int | None = None,
    out: Path | str = "runs",
    run_id: str | None = None,
    options: RunOptions | None = None,
    gates: Path | str | None = None,
    judge: str | None = "offline",
    seed: int = SEED,
    on_progress: Any = None,
) -> ProbeResult:
    """Generate the probe questions of DATASET, ask them through the backend into a run folder,
    score it with the usual checks and judge every case; writes probe.json and probe_cases.jsonl."""
    dataset = Path(dataset)
    wanted = parse_kinds(kinds)
    probe_gates = load_probe_gates(gates)  # a bad gates file stops before anything is asked
    registry = Registry.load(dataset)
    questions = load_questions(dataset)
    records = generate(registry, questions, wanted, datetime.now(timezone.utc), limit)
    if not records:
        raise UsageError(f"{dataset} gives no probe question of the kinds {', '.join(wanted)}")
    options = options or RunOptions()
    options.limit = None  # the per-kind limit is applied above
    run_id = run_id or _new_run_id(backend_spec, options.label)
    out = Path(out)
    run_dir = out / run_id
    if run_dir.exists():
        raise UsageError(f"run folder {run_dir} exists; choose another --run-id")
    out.mkdir(parents=True, exist_ok=True)
    staging = out / f".{run_id}.{PROBE_DATASET}"
    if staging.exists():
        shutil.rmtree(staging)
    _write_dataset(staging, dataset, records)
    try:
        start_run(staging, backend_spec, out=out, run_id=run_id, options=options, on_progress=on_progress)
    finally:
        if run_dir.is_dir():
            final = run_dir / PROBE_DATASET
            staging.replace(final)
            manifest = load_manifest(run_dir)
            manifest.dataset.path = str(final.resolve())
            asked = {"kinds": wanted, "limit": limit, "source": str(dataset.resolve())}
            settings = {**manifest.options, "probe": asked}
            manifest.options = type(manifest.options).model_validate(settings)
            write_json_atomic(run_dir / "manifest.json", manifest)
        else:
            shutil.rmtree(staging, ignore_errors=True)
    return judge_probe(run_dir, gates=gates, judge=judge, seed=seed, probe_gates=probe_gates)


def judge_probe(
    run_dir: Path | str,
    *,
    gates: Path | str | None = None,
    judge: str | None = "offline",
    seed: int = SEED,
    probe_gates: ProbeGates | None = None,
) -> ProbeResult:
    """Score a probe run folder and judge every case from the questions it holds (after `run_probe`,
    or after `resume_probe` finished an interrupted one); never asks the backend."""
    run_dir = Path(run_dir)
    probe_gates = probe_gates or load_probe_gates(gates)
    manifest = load_manifest(run_dir)
    settings = manifest.options.get("probe")
    questions_path = run_dir / PROBE_DATASET / "questions.jsonl"
    if not isinstance(settings, dict) or not questions_path.is_file():
        raise UsageError(f"{run_dir} is not a probe run (no {PROBE_DATASET}/ or no probe options in its manifest)")
    wanted = parse_kinds(settings.get("kinds"))
    records = [record for _, record in iter_json_lines(questions_path)]
    scored = score_run(run_dir, judge=judge, seed=seed)
    answers = {c.question.question_id: c for c in scored.checks}
    run_registry = Registry.load(run_dir / PROBE_DATASET)
    cases = []
    for record in records:
        check = answers.get(record["question_id"])
        cases.append(classify(record, check.answer if check else None, check, run_registry))
    document, failed = probe_document(wanted, cases, probe_gates, seed)
    document = {"run_id": manifest.run_id, "dataset": settings.get("source"), **document}
    write_jsonl_atomic(run_dir / PROBE_CASES, (c.to_json() for c in cases))
    write_json_atomic(run_dir / PROBE_JSON, document)
    return ProbeResult(run_dir, document, cases, failed, document["errors"])


def resume_probe(
    run_dir: Path | str,
    *,
    backend_spec: str | None = None,
    gates: Path | str | None = None,
    judge: str | None = "offline",
    seed: int = SEED,
    on_progress: Any = None,
    prices: Path | str | None = None,
    refusal_patterns: Path | str | None = None,
) -> ProbeResult:
    """Ask the questions an interrupted probe run has no answer for, then judge it (prices /
    refusal_patterns, when given, must be the run's own: see resume_run)."""
    probe_gates = load_probe_gates(gates)
    resume_run(
        run_dir, backend_spec=backend_spec, on_progress=on_progress, prices=prices, refusal_patterns=refusal_patterns
    )
    return judge_probe(run_dir, judge=judge, seed=seed, probe_gates=probe_gates)
