"""`citeval probe`: ask the live system the generated probe questions and judge what it does.

The run folder is a normal one (manifest, answers, findings, judgments, scores — the usual
checks, so `report` and `gate` work on it; its manifest is the one `run` wrote) plus:

    probe_dataset/            the generated dataset that was asked: questions.jsonl (each with
                              its `probe` gold and, for counterfactual kinds, its `context`),
                              a copy of the registry, so every verdict can be audited, and
                              probe_request.json (ProbeRequest: the kinds, limit and source asked)
    probe_cases.jsonl         one verdict per question: {question_id, kind, outcome, detail, …}
    probe.json                ProbeDocument: {"kinds": {<kind>: {n, distinguished, decorative,
                              unsupported, rate: {value, ci, n}, …}}, "citation_faithfulness", "verdict", …}

The [probe] bounds are the gate's (evals.gate.probe_bounds, read by load_gates with the rest of
the gates file); this stage judges its cases against them before it writes probe.json.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.contract.ordered import RateEntry
from evals.contract.probe import (
    COUNTERFACTUAL_KINDS,
    PROBE_KINDS,
    PROBE_SCHEMA_VERSION,
    ProbeDocument,
    ProbeGatesRecord,
    ProbeKind,
    ProbeRequest,
)
from evals.data.registry import Registry
from evals.errors import UsageError
from evals.gate.config import load_probe_gates
from evals.gate.probe_bounds import ProbeGates, failed_probe_rules
from evals.probe.generate import generate
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
from evals.run.backends import BackendSpec, spec_text
from evals.run.runner import RunOptions, load_questions, resume_run, start_run
from evals.score.metrics import SEED, mean_metric
from evals.score.scoring import score_run
from evals.store.atomic import remove_staging_leftovers, staging_folder
from evals.store.jsonl import iter_json_lines, read_document, write_json_atomic, write_jsonl_atomic
from evals.store.lock import folder_lock
from evals.store.runfolder import PROBE_CASES, PROBE_DATASET, PROBE_JSON, PROBE_REQUEST, load_manifest


@dataclass
class ProbeResult:
    run_dir: Path
    probe: ProbeDocument  # probe.json
    cases: list[CaseOutcome]
    failed: list[str]
    errors: int

    @property
    def document(self) -> dict[str, Any]:
        """probe.json as written (and printed by --format json)."""
        return self.probe.to_json()

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


def _counts(kind: str, cases: list[CaseOutcome], threshold: float | None, seed: int) -> ProbeKind:
    outcomes = Counter(c.outcome for c in cases)
    if kind in COUNTERFACTUAL_KINDS:
        good = outcomes[FAITHFUL] + (outcomes[ABSTAINED] if kind == "removed_evidence" else 0)
        bad = outcomes[POST_RATIONALISED]
    else:
        good, bad = outcomes[DISTINGUISHED], outcomes[DECORATIVE]
    judged = [1.0] * bad + [0.0] * good
    rate = RateEntry.model_validate(mean_metric(judged, seed))
    if not judged:
        rate.reason = (
            "no case could be judged (errors, unsupported or inconclusive only)"
            if cases
            else ("the dataset gave no question of this kind")
        )
    return ProbeKind(
        n=len(cases),
        distinguished=good,
        decorative=bad,
        unsupported=outcomes[UNSUPPORTED],
        errors=outcomes[ERROR],
        inconclusive=outcomes[INCONCLUSIVE],
        outcomes=dict(sorted(outcomes.items())),
        rate=rate,
        max_decorative_rate=threshold,
    )


def citation_faithfulness(cases: list[CaseOutcome], seed: int = SEED) -> RateEntry:
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
    out = RateEntry.model_validate(mean_metric(values, seed))
    if not values:
        unsupported = sum(c.outcome == UNSUPPORTED for c in cases)
        out.reason = (
            f"the backend cited evidence outside the given context in {unsupported} case(s): it does not take probes"
            if unsupported
            else "no counterfactual case could be judged"
        )
    return out


def probe_document(
    kinds: list[str], cases: list[CaseOutcome], gates: ProbeGates, seed: int = SEED, **head: Any
) -> tuple[ProbeDocument, list[str]]:
    """probe.json (`head`: run_id and dataset, written first) and the failed gate rules."""
    by_kind = {
        kind: _counts(kind, [c for c in cases if c.kind == kind], gates.max_decorative(kind), seed) for kind in kinds
    }
    faithfulness = citation_faithfulness(cases, seed)
    failed = failed_probe_rules(by_kind, faithfulness, gates)
    errors = sum(c.outcome == ERROR for c in cases)
    decorative = any((entry.rate.value or 0) > (gates.max_decorative(kind) or 0) for kind, entry in by_kind.items())
    verdict = "incomplete" if errors else ("decorative" if decorative or failed else "verifiable")
    counterfactual = [c for c in cases if c.kind in COUNTERFACTUAL_KINDS and c.outcome != ERROR]
    document = ProbeDocument.model_validate({
        **head,
        "schema_version": PROBE_SCHEMA_VERSION,
        "kinds": by_kind,
        "citation_faithfulness": faithfulness,
        # one answer from outside the given evidence shows the backend does not take probes
        "takes_context": None if not counterfactual else not any(c.outcome == UNSUPPORTED for c in counterfactual),
        "errors": errors,
        "verdict": verdict,
        "gates": ProbeGatesRecord.model_validate({**gates.to_json(), "failed": failed}),
    })
    return document, failed


def _write_dataset(folder: Path, dataset: Path, records: list[dict[str, Any]], request: ProbeRequest) -> None:
    """The dataset a probe run asks: the generated questions, a copy of the registry, and what was
    asked (the run moves the folder into itself; the manifest stays as `run` writes it)."""
    folder.mkdir(parents=True, exist_ok=True)  # a staging folder is made empty
    registry = dataset / "registry" if (dataset / "registry").is_dir() else dataset
    shutil.copytree(registry, folder / "registry")
    write_jsonl_atomic(folder / "questions.jsonl", records)
    write_json_atomic(folder / PROBE_REQUEST, request.to_json())


def _new_run_id(spec: str, label: str | None) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", label or spec.split(":", 1)[0]).strip("-")[:40]
    return f"{stamp}-probe-{name}" if name else f"{stamp}-probe"


def run_probe(
    dataset: Path | str,
    backend_spec: BackendSpec,
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
    run_id = run_id or _new_run_id(spec_text(backend_spec), options.label)
    out = Path(out)
    run_dir = out / run_id
    if run_dir.exists():
        raise UsageError(f"run folder {run_dir} exists; choose another --run-id")
    out.mkdir(parents=True, exist_ok=True)
    # the run reads the probe dataset from a staging folder beside it, then it moves into the run
    remove_staging_leftovers(out, f"{run_id}.{PROBE_DATASET}")
    staging = staging_folder(out, f"{run_id}.{PROBE_DATASET}")
    _write_dataset(staging, dataset, records, ProbeRequest(kinds=wanted, limit=limit, source=str(dataset.resolve())))
    try:
        start_run(staging, backend_spec, out=out, run_id=run_id, options=options, on_progress=on_progress,
                  keep_dataset_as=PROBE_DATASET)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # still there only when no run folder was made
    return judge_probe(run_dir, gates=gates, judge=judge, seed=seed, probe_gates=probe_gates)


def probe_request(run_dir: Path) -> ProbeRequest:
    """What a probe run asked: probe_dataset/probe_request.json (a run probed before that file
    existed kept it in its manifest's options); a run without either is not a probe run."""
    path = run_dir / PROBE_DATASET / PROBE_REQUEST
    if path.is_file():
        return read_document(path, ProbeRequest)
    earlier = load_manifest(run_dir).options.get("probe")
    if not isinstance(earlier, dict) or not (run_dir / PROBE_DATASET / "questions.jsonl").is_file():
        raise UsageError(f"{run_dir} is not a probe run (no {PROBE_DATASET}/ with its {PROBE_REQUEST})")
    return ProbeRequest.model_validate(earlier)


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
    load_manifest(run_dir)  # a folder without a manifest is no run folder: said so before any lock
    with folder_lock(run_dir, "citeval probe"):  # one writer of the run folder (evals.store.lock)
        return _judge_locked(run_dir, judge, seed, probe_gates)


def _judge_locked(run_dir: Path, judge: str | None, seed: int, probe_gates: ProbeGates) -> ProbeResult:
    request = probe_request(run_dir)
    questions_path = run_dir / PROBE_DATASET / "questions.jsonl"
    if not questions_path.is_file():
        raise UsageError(f"{run_dir} is not a probe run (no {PROBE_DATASET}/questions.jsonl)")
    wanted = parse_kinds(request.kinds)
    records = [record for _, record in iter_json_lines(questions_path)]
    scored = score_run(run_dir, judge=judge, seed=seed)
    answers = {c.question.question_id: c for c in scored.checks}
    run_registry = Registry.load(run_dir / PROBE_DATASET)
    cases = []
    for record in records:
        check = answers.get(record["question_id"])
        cases.append(classify(record, check.answer if check else None, check, run_registry))
    document, failed = probe_document(
        wanted, cases, probe_gates, seed, run_id=load_manifest(run_dir).run_id, dataset=request.source
    )
    write_jsonl_atomic(run_dir / PROBE_CASES, (c.to_json() for c in cases))
    write_json_atomic(run_dir / PROBE_JSON, document.to_json())
    return ProbeResult(run_dir, document, cases, failed, document.errors)


def resume_probe(
    run_dir: Path | str,
    *,
    backend_spec: BackendSpec | None = None,
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
    load_manifest(run_dir)  # a folder without a manifest is no run folder: said so before any lock
    with folder_lock(run_dir, "citeval probe --resume"):
        resume_run(
            run_dir, backend_spec=backend_spec, on_progress=on_progress, prices=prices,
            refusal_patterns=refusal_patterns,
        )
        return judge_probe(run_dir, judge=judge, seed=seed, probe_gates=probe_gates)
