"""citeval report / compare: paired statistics checked by hand, the comparison, the weekly
grouping, and untrusted text rendered inert (no script, no handler, no unsafe link)."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from factories import TEXT_B1, dataset_rows, sha, write_dataset, write_jsonl
from typer.testing import CliRunner

from cli import app
from evals.errors import DataError, UsageError
from evals.report.compare import compare_runs
from evals.report.load import load_run
from evals.report.render import parse_since, render_report, render_weekly, week_name
from evals.report.stats import mcnemar_exact, paired_mean_test, paired_ratio_test, question_passed
from evals.report.views import safe_url
from evals.run.runner import RunOptions, start_run
from evals.score.metrics import AnswerScore, scores_document
from evals.score.scoring import score_run

SCRIPT = "<script>window.__citeval_xss = 1</script>"
IMG = '"><img src=x onerror="window.__citeval_xss = 2">'
JS_URL = "javascript:window.__citeval_xss = 3"
SVG = "<svg onload=window.__citeval_xss=4>"
BAD_HTTP = 'https://docs.example/d/train/v/1"><img src=x onerror=window.__citeval_xss=5>'
NOW = datetime(2025, 7, 1, 12, 0, tzinfo=timezone.utc)


# --- statistics worked out by hand ----------------------------------------------------------


def test_mcnemar_exact_matches_the_binomial_by_hand():
    # 1 pair passes only in A, 6 only in B: two-sided exact p = 2·P(X ≤ 1 | n=7, ½) = 2·(1 + 7)/2⁷ = 0.125
    assert mcnemar_exact(1, 6) == pytest.approx(16 / 128)
    assert mcnemar_exact(6, 1) == pytest.approx(0.125)
    # 0 vs 5: 2·(1/2⁵) = 0.0625
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    # 2 vs 8: 2·(1 + 10 + 45)/2¹⁰ = 112/1024
    assert mcnemar_exact(2, 8) == pytest.approx(112 / 1024)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0  # nothing flipped


def test_paired_mean_test_exact_sign_flips_by_hand():
    # differences 1, 1, 1, 0: of the 2³ sign patterns of the non-zero ones only +++ and −−− reach |3|
    t = paired_mean_test(np.array([0, 0, 0, 1.0]), np.array([1, 1, 1, 1.0]))
    assert t.delta == pytest.approx(0.75) and t.a == pytest.approx(0.25) and t.b == 1.0
    assert t.p_value == pytest.approx(2 / 8)
    assert t.n == 4
    # differences 0.5, 1.0, −0.25 (sum 1.25): patterns with |sum| ≥ 1.25 are (+,+,±) and (−,−,±): 4 of 8
    t = paired_mean_test(np.array([0.0, 0.0, 0.5]), np.array([0.5, 1.0, 0.25]))
    assert t.p_value == pytest.approx(0.5)
    # opposite differences cancel: every pattern is at least as extreme as 0
    t = paired_mean_test(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert t.delta == 0 and t.p_value == 1.0
    # no pair: no test, with a reason
    t = paired_mean_test(np.array([]), np.array([]))
    assert t.p_value is None and t.reason


def test_paired_ratio_test_swaps_predictions_by_hand():
    gold = np.array([1, 1, 1, 0, 0.0])
    a = np.array([0, 0, 0, 0, 1.0])  # recall 0/3
    b = np.array([1, 1, 1, 0, 1.0])  # recall 3/3
    t = paired_ratio_test(a, b, gold, "abstention_recall")
    assert (t.a, t.b, t.delta) == (0.0, 1.0, 1.0)
    # swapping a subset S of the 3 discordant questions gives a difference (3 − 2|S|)/3;
    # only S = ∅ and S = all reach |1|: p = 2/8
    assert t.p_value == pytest.approx(0.25)
    # precision: A 0/1, B 3/4; F1 = 2TP/(predicted + gold): A 0, B 6/7
    f1 = paired_ratio_test(a, b, gold, "abstention_f1")
    assert f1.a == 0.0 and f1.b == pytest.approx(6 / 7)
    undefined = paired_ratio_test(np.zeros(5), b, gold, "abstention_precision")  # A never abstained
    assert undefined.delta is None and undefined.reason == "undefined in at least one run"


def test_question_passed_is_the_one_definition():
    assert question_passed({"status": "answered", "findings": []})
    assert question_passed({"status": "abstained", "findings": []})
    assert not question_passed({"status": "answered", "findings": ["CLAIM_UNCITED"]})
    assert not question_passed({"status": "abstained", "findings": ["UNNEEDED_ABSTENTION"]})
    assert not question_passed({"status": "error", "findings": []})


def test_safe_url_accepts_only_plain_http_links():
    assert safe_url("https://docs.example/d/1/v/2#page=3") == "https://docs.example/d/1/v/2#page=3"
    assert safe_url("HTTP://docs.example/x?a=1&b=2") is not None
    for bad in (JS_URL, "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "data:text/html,x",
                "//evil.example/x", "/relative", BAD_HTTP, "https://a b", "https:///nohost", "vbscript:x", None, 5):
        assert safe_url(bad) is None, bad


def test_since_and_week_names():
    assert parse_since("7d", NOW) == datetime(2025, 6, 24, 12, 0, tzinfo=timezone.utc)
    assert parse_since("36h", NOW) == datetime(2025, 6, 30, 0, 0, tzinfo=timezone.utc)
    assert parse_since("2025-06-01", NOW) == datetime(2025, 6, 1, tzinfo=timezone.utc)
    with pytest.raises(UsageError):
        parse_since("last week", NOW)
    assert week_name(datetime(2024, 12, 30, tzinfo=timezone.utc)) == "2025-W01"  # ISO week of the Thursday
    assert week_name(NOW) == "2025-W27"


# --- synthetic scored runs -------------------------------------------------------------------------


def answer_score(qid: str, passed: bool, tier: str = "policy", validity: float = 1.0,
                 abstained: bool = False, should_abstain: bool | None = False) -> AnswerScore:
    s = AnswerScore(question_id=qid, risk_tier=tier, tags=["t"], status="abstained" if abstained else "answered")
    s.values = {"citation_validity": validity, "error_rate": 0.0, "anchor_accuracy": 1.0 if passed else 0.0}
    s.findings = [] if passed else ["CLAIM_UNCITED"]
    s.abstained, s.should_abstain = abstained, should_abstain
    return s


def synthetic_run(root: Path, run_id: str, label: str, started: datetime, scores: list[AnswerScore],
                  scored: bool = True) -> Path:
    run = root / run_id
    run.mkdir(parents=True)
    manifest = {
        "run_id": run_id, "label": label, "started_at": started.isoformat(), "backend": "reference",
        "citeval_version": "0.1.0",
        "dataset": {"path": str(root / "no-such-dataset"), "questions_sha256": "0", "registry_sha256": "0"},
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    if scored:
        doc = {"run_id": run_id, "label": label, "judge": None, **scores_document(scores, seed=1)}
        (run / "scores.json").write_text(json.dumps(doc), encoding="utf-8")
        write_jsonl(run / "per_question.jsonl", [s.to_json() for s in scores])
    return run


def mcnemar_pair(root: Path) -> tuple[Path, Path]:
    """10 questions: 3 pass in both, 1 only in A, 6 only in B (the hand-computed table above)."""
    a = [answer_score(f"q{i}", passed=i < 4, validity=1.0 if i < 4 else 0.5) for i in range(10)]
    b = [answer_score(f"q{i}", passed=i != 3, validity=1.0 if i != 3 else 0.5) for i in range(10)]
    return (synthetic_run(root, "run-a", "fuzzy-60", datetime(2025, 6, 28, tzinfo=timezone.utc), a),
            synthetic_run(root, "run-b", "fuzzy-80", datetime(2025, 6, 30, tzinfo=timezone.utc), b))


def test_compare_runs_pass_fail_mcnemar_and_flips(tmp_path):
    a, b = mcnemar_pair(tmp_path)
    c = compare_runs(load_run(a), load_run(b))
    assert len(c.shared) == 10 and (c.only_a, c.only_b) == (0, 0)
    p = c.passes
    assert (p.a_passed, p.b_passed, p.a_only, p.b_only) == (4, 9, 1, 6)
    assert p.p_value == pytest.approx(0.125) and not p.significant
    assert [f.question_id for f in c.regressed] == ["q3"]
    assert [f.question_id for f in c.fixed] == ["q4", "q5", "q6", "q7", "q8", "q9"]
    assert c.regressed[0].findings_b == ["CLAIM_UNCITED"]
    v = c.metrics["citation_validity"]
    # differences: +0.5 on six questions, −0.5 on one: mean 2.5/10; exact p = patterns of 7 signs with |sum| ≥ 2.5
    assert v.delta == pytest.approx(0.25)
    assert v.p_value == pytest.approx(16 / 128)  # |Σ| ≥ 5 halves ⇔ at most one sign differs from the majority
    assert c.verdict("citation_validity") == "same"
    assert c.findings == {"CLAIM_UNCITED": (6, 1)}


def test_compare_cli_text_and_json(tmp_path):
    a, b = mcnemar_pair(tmp_path)
    runner = CliRunner()
    text = runner.invoke(app, ["compare", str(a), str(b)])
    assert text.exit_code == 0, text.output
    assert "A = run-a (fuzzy-60), B = run-b (fuzzy-80)" in text.output
    assert "McNemar 1↓ 6↑" in text.output and "0.1250" in text.output
    assert "regressed (pass in A, fail in B): 1" in text.output
    doc = json.loads(runner.invoke(app, ["compare", str(a), str(b), "--format", "json"]).stdout)
    assert doc["pass"]["a_pass_b_fail"] == 1 and doc["pass"]["a_fail_b_pass"] == 6
    assert doc["pass"]["p_value"] == 0.125
    assert doc["metrics"]["citation_validity"]["delta"] == 0.25
    assert [f["question_id"] for f in doc["flipped"]["regressed"]] == ["q3"]


def test_report_over_two_runs_has_comparison_trends_and_only_data_images(tmp_path):
    a, b = mcnemar_pair(tmp_path)
    result = render_report([b, a], tmp_path / "out" / "r.html", now=NOW)  # given in any order
    assert [r.run_id for r in result.runs] == ["run-a", "run-b"]  # time order; the oldest is the baseline
    assert len(result.comparisons) == 1 and result.comparisons[0].run_b.run_id == "run-b"
    html = (tmp_path / "out" / "r.html").read_text(encoding="utf-8")
    page = parse(html)
    assert "exact McNemar p = 0.125" in " ".join(html.split())
    assert "Trends" in html and "Regressed: pass in A, fail in B" in html
    assert "questions not available" in html  # the dataset is not on this machine: said, not fatal
    images = page.attrs_of("img", "src")
    assert len(images) >= 4
    for src in images:
        assert src.startswith("data:image/svg+xml;base64,")
        assert b"<svg" in base64.b64decode(src.split(",", 1)[1])[:400]
    assert page.tags["script"] == 0 and page.tags["link"] == 0 and page.tags["iframe"] == 0
    assert "@import" not in html and "url(" not in html


def test_report_baseline_and_errors(tmp_path):
    a, b = mcnemar_pair(tmp_path)
    result = render_report([a, b], tmp_path / "r.html", baseline="fuzzy-80")
    assert result.comparisons[0].run_a.run_id == "run-b"
    with pytest.raises(UsageError):
        render_report([a, b], tmp_path / "r.html", baseline="nope")
    with pytest.raises(UsageError):
        render_report([a, a], tmp_path / "r.html")
    with pytest.raises(DataError):
        render_report([tmp_path / "missing"], tmp_path / "r.html")


def test_weekly_groups_the_weeks_runs_by_label(tmp_path):
    root = tmp_path / "runs"
    qs = [answer_score(f"q{i}", passed=i % 3 != 0) for i in range(9)]
    synthetic_run(root, "old", "fuzzy-60", datetime(2025, 6, 1, tzinfo=timezone.utc), qs)  # before the window
    synthetic_run(root, "mon", "fuzzy-60", datetime(2025, 6, 26, tzinfo=timezone.utc), qs)
    synthetic_run(root, "tue", "fuzzy-80", datetime(2025, 6, 27, tzinfo=timezone.utc), qs)
    synthetic_run(root, "wed", "fuzzy-60", datetime(2025, 6, 28, tzinfo=timezone.utc), qs)
    synthetic_run(root, "thu", "fuzzy-80", datetime(2025, 6, 29, tzinfo=timezone.utc), qs, scored=False)
    out_dir = tmp_path / "reports"
    result = render_weekly(root, out_dir / f"{week_name(NOW)}.html", since="7d", now=NOW)
    assert result.path.name == "2025-W27.html"
    assert [r.run_id for r in result.runs] == ["mon", "tue", "wed"]
    # baseline = the oldest run's label; each label's newest run is compared with it, and with its own
    # label's previous run this week where there is one (fuzzy-60: mon then wed; fuzzy-80: only tue)
    assert [(c.run_a.run_id, c.run_b.run_id) for c in result.comparisons] == [("mon", "wed"), ("wed", "tue")]
    assert any("thu: not scored" in n for n in result.notes)
    html = result.path.read_text(encoding="utf-8")
    assert "Variant <q>fuzzy-60</q>" in html and "Variant <q>fuzzy-80</q>" in html
    with pytest.raises(DataError):
        render_weekly(root, tmp_path / "x.html", since="1h", now=NOW)

    runner = CliRunner()
    cli = runner.invoke(app, ["report", "--weekly", str(root), "--since", "2025-06-20", "--out", str(out_dir / "w.html")])
    assert cli.exit_code == 0, cli.output
    assert "3 run(s), 2 comparison(s)" in cli.output
    both = runner.invoke(app, ["report", str(root / "mon"), "--weekly", str(root)])
    assert both.exit_code == 2


# --- untrusted text ----------------------------------------------------------------------------


class Page(HTMLParser):
    """Every element and attribute of a page, as a browser's tokenizer would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: dict[str, int] = {}
        self.attrs: list[tuple[str, str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_data(self, data):
        self.text.append(data)

    def attrs_of(self, tag: str, name: str) -> list[str]:
        return [v for t, k, v in self.attrs if t == tag and k == name]


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.tags.setdefault("script", 0)
    page.tags.setdefault("link", 0)
    page.tags.setdefault("iframe", 0)
    return page


def payload_dataset(root: Path) -> Path:
    """The factories' dataset with payloads in a title, a question and a chunk's text."""
    rows = dataset_rows()
    rows["documents"][0]["title"] = "Положение об обучении " + SCRIPT
    rows["questions"][0]["question"] = "Как часто проходить обучение? " + IMG
    chunk = next(c for c in rows["chunks"] if c["chunk_id"] == "b1-1")
    chunk["text"] = TEXT_B1 + " " + SVG
    # the edition's text carries the payload too, so the dataset validates (run and score refuse one that does not)
    chunk["char_end"] = len(chunk["text"])
    next(v for v in rows["versions"] if v["version_id"] == "pay-v1")["content_sha256"] = sha(chunk["text"])
    ds = write_dataset(root, rows)
    (ds / "registry" / "texts" / "pay-v1.txt").write_text(chunk["text"], encoding="utf-8")
    return ds


def payload_answers(clean: bool) -> list[dict]:
    """q1 answered with payloads in text, claims, quote and links (or cleanly); q2 abstains; q3 errors."""
    q1 = {
        "question_id": "q1", "status": "answered",
        "answer_text": "Обучение проводится не реже одного раза в 12 месяцев. [E1]" + ("" if clean else f" {SCRIPT} [E2]"),
        "claims": [{"claim_id": "c1", "text": "Обучение проводится не реже одного раза в 12 месяцев.",
                    "evidence_ids": ["E1"], "quote": "не реже одного раза в 12 месяцев" + ("" if clean else IMG)}],
        "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1"}, {"evidence_id": "E2", "chunk_id": "b1-1"}],
        "links": [{"evidence_id": "E1", "url": "https://docs.example/d/train/v/1#page=1" if clean else JS_URL}],
    }
    if not clean:
        q1["claims"].append({"claim_id": "c2", "text": "Оплата " + SCRIPT, "evidence_ids": ["E2", "E9"]})
        q1["links"] += [{"evidence_id": "E2", "url": BAD_HTTP},
                        {"evidence_id": "E1", "url": "https://docs.example/d/train/v/1#page=1"}]
    return [
        q1,
        {"question_id": "q2", "status": "abstained", "answer_text": "", "abstain_reason": "нет ответа " + SCRIPT},
        {"question_id": "q3", "status": "error", "error": {"type": "http", "message": "502 " + IMG}},
    ]


def payload_runs(root: Path) -> list[Path]:
    """Two real runs (replay backend, scored) over the payload dataset: clean, then dirty (the newest,
    drilled into)."""
    ds = payload_dataset(root / "ds")
    runs = []
    for name, clean in (("clean", True), ("dirty", False)):
        write_jsonl(ds / "answers" / f"{name}.jsonl", payload_answers(clean))
        label = SCRIPT + r" $\frac{$" if not clean else "clean"  # mathtext in a plot label must stay text
        result = start_run(ds, f"replay:{ds / 'answers' / f'{name}.jsonl'}", out=root / "runs", run_id=name,
                           options=RunOptions(label=label))
        score_run(result.run_dir, judge="none")
        runs.append(result.run_dir)
    return runs


@pytest.fixture(scope="module")
def payload_report(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("payload")
    runs = payload_runs(root)
    result = render_report(runs, root / "report.html", now=NOW)
    return result.path, result.path.read_text(encoding="utf-8")


def test_payloads_are_inert_text(payload_report):
    _, html = payload_report
    page = parse(html)
    assert page.tags["script"] == 0
    on_attrs = [(t, k) for t, k, _ in page.attrs if k.startswith("on")]
    assert on_attrs == []
    assert page.tags.get("svg", 0) == 0  # plots are <img> data URIs; an <svg> here came from a payload
    # the only <img> elements are the report's own plots
    assert all(v.startswith("data:image/svg+xml;base64,") for v in page.attrs_of("img", "src"))
    for tag, name, value in page.attrs:
        if name in ("href", "src", "action", "formaction", "xlink:href"):
            assert value.startswith(("#", "https://", "http://", "data:image/svg+xml;base64,")), (tag, name, value)
            assert "javascript" not in value.lower()
    hrefs = page.attrs_of("a", "href")
    assert "https://docs.example/d/train/v/1#page=1" in hrefs  # a safe link stays a link
    assert not any("onerror" in h or '"' in h for h in hrefs)
    text = "".join(page.text)
    # the payloads survive as visible text, exactly as the system produced them
    for payload in (SCRIPT, JS_URL, "нет ответа " + SCRIPT, "Положение об обучении " + SCRIPT, SVG):
        assert payload in text, payload
    assert "&lt;script&gt;" in html and "<script>window" not in html


def test_the_drilldown_shows_every_citation_with_its_edition_status(payload_report):
    _, html = payload_report
    flat = " ".join(html.split())
    assert "not in the evidence set handed to the model" in flat  # E9
    for code in ("LINK_UNSAFE_SCHEME", "ACCESS_DENIED", "UNKNOWN_EVIDENCE_ID", "UNNEEDED_ABSTENTION", "BACKEND_ERROR"):
        assert code in html, code
    # q1 was asked 2024-05-01 when train-v1 was active; on 2025-07-01 it is superseded
    assert '<span class="status active">active</span>' in html
    assert '<span class="status superseded">superseded</span>' in html
    assert "train-v1" in html and "rev 1" in html
    # worst first: the failing critical questions come before the policy one
    order = [html.index(f"<code>{q}</code>", html.index('id="questions-dirty"')) for q in ("q2", "q3", "q1")]
    assert order == sorted(order)


def test_environment_escapes_every_template():
    from evals.report.render import environment

    env = environment()
    for name in env.list_templates(extensions=["j2"]):
        assert env.get_template(name).environment.autoescape is True
    assert env.from_string("{{ x }}").render(x=SCRIPT) == "&lt;script&gt;window.__citeval_xss = 1&lt;/script&gt;"


def test_agreement_and_judge_agreement_are_shown_when_present(tmp_path):
    run = synthetic_run(tmp_path, "r", "x", NOW, [answer_score("q1", True), answer_score("q2", False)])
    stat = {"value": 0.612345, "ci": [0.41, 0.8], "n": 30}
    (run / "agreement.json").write_text(json.dumps({
        "fields": {"support": {"n_units": 30, "raters": ["human:anna", "human:boris"], "percent_agreement": stat,
                               "cohen_kappa": stat, "krippendorff_alpha": stat,
                               "gwet_ac1": {"value": None, "ci": None, "reason": "one category only"}}},
        "judge_agreement": {"auto:offline": {"n": 25, "cohen_kappa": {"value": 0.5, "ci": [0.2, 0.7]},
                                             "accuracy": stat, "unsupported_precision": stat,
                                             "unsupported_recall": stat}},
    }), encoding="utf-8")
    html = render_report([run], tmp_path / "r.html", now=NOW).path.read_text(encoding="utf-8")
    flat = " ".join(html.split())
    assert "Inter-rater agreement" in flat and "human:anna, human:boris" in flat
    assert '0.612 <span class="muted">[0.41, 0.80]</span>' in flat
    assert "— one category only" in flat
    assert "Judge vs human" in flat and "<code>auto:offline</code>" in flat
    assert '0.500 <span class="muted">[0.20, 0.70]</span>' in flat


def test_a_torn_last_answer_line_is_left_out_and_the_file_is_untouched(tmp_path):
    from evals.store.runfolder import read_answers

    path = tmp_path / "answers.jsonl"
    whole = json.dumps({"question_id": "q1", "status": "abstained"}) + "\n"
    path.write_text(whole + '{"question_id": "q2", "sta', encoding="utf-8")
    assert list(read_answers(path)) == ["q1"]
    assert path.read_text(encoding="utf-8").endswith('"sta')  # a report never writes into a run
