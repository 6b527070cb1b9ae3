"""Rebuild the ALCE fixtures beside this file from a checkout of princeton-nlp/ALCE (not run by
the tests; kept to show where every byte comes from).

    python3 tests/peers/alce/make_fixtures.py /path/to/ALCE

- asqa_closedbook.json.post_hoc_cite.tfidf-external: a closed-book ASQA run cited after the fact
  by ALCE's own post_hoc_cite.py (run here, `--retriever tfidf --external_docs`). The questions
  and docs are the first two demos of prompts/asqa_default.json; the closed-book "outputs" are
  those demos' answers with their citations removed (utils.remove_citations); the args are
  configs/asqa_turbo_shot2_closedbook.yaml's (ndoc 0). post_hoc_cite.py needs torch and NLTK's
  punkt data, neither installed here: torch is stubbed (the tfidf retriever never calls it), the
  script's tfidf path is given the `gtr_model = None` it lacks, and
  sent_tokenize is NLTK's Punkt tokenizer without trained parameters (the same splits on these
  answers, which hold no abbreviations).
- qampari_closedbook.json.post_hoc_cite.tfidf-external: the same for the first two QAMPARI demos
  (post_hoc_cite.py cites each comma-separated item: "[2] Marazan, [1] Stephen Morris, …"), args
  as configs/qampari_turbo_shot2_closedbook.yaml.
- qampari_default_result.json: the first two demos of prompts/qampari_default.json as a run.py
  result (output = the demo's answer, gold `answers` = its items), args as
  configs/qampari_turbo_shot2_ndoc5_gtr_default.yaml.
- eli5_default_result.json: the first two demos of prompts/eli5_default.json the same way (its
  sentences cite up to three docs, `[1][2][3]`).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

HERE = Path(__file__).parent


def demos(alce: Path, name: str, n: int = 2) -> list[dict]:
    return json.loads((alce / "prompts" / f"{name}.json").read_text(encoding="utf-8"))["demos"][:n]


def args(alce: Path, config: str) -> dict:
    import yaml

    return yaml.safe_load((alce / "configs" / config).read_text(encoding="utf-8"))


def post_hoc(alce: Path, prompt: str, config: str, name: str) -> None:
    sys.path.insert(0, str(alce))
    torch = types.ModuleType("torch")
    torch.nn = types.SimpleNamespace(functional=types.SimpleNamespace(normalize=None))  # type: ignore[attr-defined]
    torch.Tensor = type("Tensor", (), {})  # type: ignore[attr-defined]  # scipy asks whether arrays are torch's
    torch.float16 = None  # type: ignore[attr-defined]  # a default argument in utils.py
    sys.modules["torch"], sys.modules["torch.nn"] = torch, torch.nn  # type: ignore[assignment]
    sys.modules["torch.nn.functional"] = torch.nn.functional  # type: ignore[attr-defined,assignment]
    import nltk
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    nltk.sent_tokenize = PunktSentenceTokenizer().tokenize
    from utils import remove_citations

    items = demos(alce, prompt)
    result = {"args": args(alce, config),
              "data": [{"question": d["question"], "answer": remove_citations(d["answer"]), "docs": [],
                        "output": remove_citations(d["answer"])} for d in items]}
    if "qampari" in name:
        for item in result["data"]:
            item["answers"] = [[x.strip()] for x in item["output"].rstrip(".").split(",")]
            del item["answer"]
    result_path = HERE / f"{name}.json"
    external = HERE / f"{name}_external_docs.json"
    result_path.write_text(json.dumps(result, indent=4), encoding="utf-8")
    external.write_text(json.dumps([{"question": d["question"], "docs": d["docs"]} for d in items]), encoding="utf-8")
    sys.argv = ["post_hoc_cite.py", "--f", str(result_path), "--retriever", "tfidf", "--external_docs", str(external)]
    # its tfidf path reads gtr_model, which only the gtr path assigns: one line set before it, nothing else changed
    source = (alce / "post_hoc_cite.py").read_text(encoding="utf-8")
    patched = source.replace("    # Load retrieval model\n", "    gtr_model = None\n    # Load retrieval model\n", 1)
    assert patched != source
    exec(compile(patched, str(alce / "post_hoc_cite.py"), "exec"), {"__name__": "__main__"})  # noqa: S102
    result_path.unlink()
    external.unlink()


def with_outputs(alce: Path, prompt: str, config: str, out: str, gold: str) -> None:
    items = []
    for d in demos(alce, prompt):
        item = {"question": d["question"], "docs": d["docs"], "output": d["answer"]}
        if gold == "answers":  # QAMPARI gold: one list of aliases per answer
            from utils import remove_citations

            item["answers"] = [[remove_citations(x).strip()] for x in d["answer"].rstrip(".").split(",")]
        else:
            item["answer"] = d["answer"]
        items.append(item)
    (HERE / out).write_text(json.dumps({"args": args(alce, config), "data": items}, indent=4), encoding="utf-8")


if __name__ == "__main__":
    root = Path(sys.argv[1])
    post_hoc(root, "asqa_default", "asqa_turbo_shot2_closedbook.yaml", "asqa_closedbook")
    post_hoc(root, "qampari_default", "qampari_turbo_shot2_closedbook.yaml", "qampari_closedbook")
    with_outputs(root, "qampari_default", "qampari_turbo_shot2_ndoc5_gtr_default.yaml", "qampari_default_result.json",
                 "answers")
    with_outputs(root, "eli5_default", "eli5_turbo_shot2_ndoc5_bm25_default.yaml", "eli5_default_result.json",
                 "answer")
