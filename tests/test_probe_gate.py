"""`citeval gate RUN --gates FILE` with a gates file holding only a `[probe]` table: its bounds
are applied to the run's probe.json (hand-written here, in the shape `citeval probe` writes);
without probe.json the message says what the file is for. Exit 1 on a failed bound, 2 on bad input."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from evals.errors import DataError
from evals.gate.config import is_probe_only_gates
from evals.gate.core import load_gates, run_gate

runner = CliRunner()


def _rate(value, n):
    return {"value": value, "ci": [value, value] if value is not None else None, "n": n}


@pytest.fixture
def probe_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    document = {
        "kinds": {
            # 1 decorative of 4 judged: 0.25; 0 of 10
            "forbidden_document": {"n": 4, "distinguished": 3, "decorative": 1, "unsupported": 0,
                                   "rate": _rate(0.25, 4)},
            "phantom_marker": {"n": 10, "distinguished": 10, "decorative": 0, "unsupported": 0,
                               "rate": _rate(0.0, 10)},
            "altered_fact": {"n": 5, "distinguished": 4, "decorative": 1, "unsupported": 0, "rate": _rate(0.2, 5)},
        },
        "citation_faithfulness": _rate(0.8, 5),
        "verdict": "decorative",
    }
    (run / "probe.json").write_text(json.dumps(document), encoding="utf-8")
    return run


def _gates(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gates.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_probe_only_file_gates_the_probe_run(probe_run: Path, tmp_path: Path) -> None:
    gates = _gates(tmp_path, "[probe]\ndecorative_rate = { max = 0.2 }\ncitation_faithfulness = { min = 0.9 }\n")
    assert is_probe_only_gates(gates)
    result = run_gate(probe_run, gates)  # the one entry for every gates file
    assert result.probe_only and result.probe is not None and result.exit_code == 1
    # 0.25 > 0.2 fails; 0.2 is not above 0.2; 0.8 < 0.9 fails
    assert result.probe.failed == [
        "probe.forbidden_document: decorative rate 0.250 > allowed 0.2",
        "probe.citation_faithfulness: 0.800 < required 0.9",
    ]
    assert result.probe.checked == ["probe.forbidden_document", "probe.phantom_marker", "probe.altered_fact",
                              "probe.citation_faithfulness"]
    cli = runner.invoke(app, ["gate", str(probe_run), "--gates", str(gates), "--junit", str(tmp_path / "j.xml")])
    assert cli.exit_code == 1, cli.output
    assert "FAIL probe.forbidden_document" in cli.output
    assert (tmp_path / "j.xml").read_text().count("<failure") == 2


def test_a_probe_only_file_passes_when_every_bound_holds(probe_run: Path, tmp_path: Path) -> None:
    gates = _gates(tmp_path, "[probe]\ndecorative_rate = { max = 0.3 }\nphantom_marker = { max = 0 }\n")
    cli = runner.invoke(app, ["gate", str(probe_run), "--gates", str(gates), "--format", "json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout)["failed"] == []


def test_without_probe_json_the_message_says_what_the_file_is_for(tmp_path: Path) -> None:
    gates = _gates(tmp_path, "[probe]\ndecorative_rate = { max = 0.05 }\n")
    run = tmp_path / "plain"
    run.mkdir()
    cli = runner.invoke(app, ["gate", str(run), "--gates", str(gates)])
    assert cli.exit_code == 2
    assert "holds only a [probe] table" in cli.output and "no probe.json" in cli.output
    assert "Traceback" not in cli.output
    # the scores gates loader, called on its own, names the same reason instead of "no rule"
    with pytest.raises(DataError, match=r"holds only a \[probe\] table"):
        load_gates(gates)


def test_a_file_with_scores_rules_is_not_probe_only(tmp_path: Path) -> None:
    assert not is_probe_only_gates(_gates(tmp_path, "[overall]\nerror_rate = { max = 0 }\n[probe]\n"))
    assert not is_probe_only_gates(_gates(tmp_path, "compare = 'point'\n"))
    assert not is_probe_only_gates(tmp_path / "missing.toml")


def test_a_broken_probe_json_is_exit_2_with_the_line(probe_run: Path, tmp_path: Path) -> None:
    (probe_run / "probe.json").write_text('{"kinds": {\n  "phantom_marker": ,\n}}', encoding="utf-8")
    gates = _gates(tmp_path, "[probe]\ndecorative_rate = { max = 0.05 }\n")
    cli = runner.invoke(app, ["gate", str(probe_run), "--gates", str(gates)])
    assert cli.exit_code == 2
    assert f"{probe_run / 'probe.json'}:2" in cli.output and "Traceback" not in cli.output


def test_a_bad_bound_in_the_probe_table_is_exit_2_with_file_and_line(probe_run: Path, tmp_path: Path) -> None:
    gates = _gates(tmp_path, "[probe]\n\ndecorative_rate = { max = 5 }\n")
    cli = runner.invoke(app, ["gate", str(probe_run), "--gates", str(gates)])
    assert cli.exit_code == 2 and f"{gates}:3" in cli.output


def test_a_file_with_scores_rules_and_a_probe_table_gates_both(probe_run: Path, tmp_path: Path) -> None:
    """The probe run's scores.json against [overall], its probe.json against [probe]: one verdict,
    exit 1 when either side fails; on a run without probe.json a note says the table had nothing
    to judge."""
    from test_gates import scores_doc

    (probe_run / "scores.json").write_text(json.dumps(scores_doc()), encoding="utf-8")
    # error_rate 0.01 ≤ 0.05 holds; forbidden_document 0.25 > 0.2 fails
    gates = _gates(tmp_path, "[overall]\nerror_rate = { max = 0.05 }\n\n[probe]\ndecorative_rate = { max = 0.2 }\n")
    cli = runner.invoke(app, ["gate", str(probe_run), "--gates", str(gates), "--junit", str(tmp_path / "j.xml"),
                              "--summary", str(tmp_path / "s.md")])
    assert cli.exit_code == 1, cli.output
    assert "FAIL probe.forbidden_document: decorative rate 0.250 > allowed 0.2" in cli.output
    assert "gate FAILED: 1 of 4 rule(s) failed" in cli.output  # 1 score rule + 3 probe bounds
    junit = (tmp_path / "j.xml").read_text()
    assert junit.count("<testcase") == 4 and junit.count("<failure") == 1
    assert "probe gate failed" in (tmp_path / "s.md").read_text()
    # the same file with a BOM and CR LF line ends, as an editor on Windows writes it, reads alike
    gates.write_bytes(b"\xef\xbb\xbf" + gates.read_bytes().replace(b"\n", b"\r\n"))
    windows = runner.invoke(app, ["gate", str(probe_run), "--gates", str(gates)])
    assert windows.exit_code == 1 and "FAIL probe.forbidden_document" in windows.output, windows.output

    # the same file with a bound every kind meets passes, and says so in JSON
    passing = _gates(tmp_path, "[overall]\nerror_rate = { max = 0.05 }\n\n[probe]\ndecorative_rate = { max = 0.3 }\n")
    ok = runner.invoke(app, ["gate", str(probe_run), "--gates", str(passing), "--format", "json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["probe"]["failed"] == []

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "scores.json").write_text(json.dumps(scores_doc()), encoding="utf-8")
    other = runner.invoke(app, ["gate", str(plain), "--gates", str(gates)])
    assert other.exit_code == 0, other.output
    assert "the [probe] table judges a probe run's probe.json; this run has none" in other.output
