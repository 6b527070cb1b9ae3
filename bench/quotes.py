"""Quote placement speed and accuracy, and quote location in a long legal text.

    python bench/quotes.py [HEALTH_CODE] [--rounds N]

1. Every built-in matcher (and its +order variant) over the demo quotes set (datasets/demo/quotes): answers per second,
   p95 per answer, speed against difflib (sequencematcher) measured in the same run, and
   placement_accuracy / wrong_place_rate at the matcher's default threshold and at 0 (place
   every citation), so speed is compared at known accuracy.
2. The fragment splitter with citeval's sentence splitter vs razdel: the share of gold spans
   some candidate fragment matches (IoU ≥ 0.5, the ceiling of every matcher) and µs per answer.
4. `default` (the cascade) against `block`, per answer over the demo's realistic set: the two
   run alternately answer by answer in one process (the order swapped each round, after a
   warm-up pass), and each answer's best of the rounds is kept, so load on the machine falls
   on both alike and a call the scheduler interrupted does not count; p95 over the answers of
   each and their ratio (target: within 5×). Warm: the caches a bot keeps across answers (per
   word: lemma, stem; per cited text: its clauses' lemmas and numbers) filled, every cache of
   the answer's own text (fragments, candidate places, lemma sets, numbers) emptied before
   each call; cold: those emptied too, every word new to pymorphy3 (the dictionary itself
   loaded once beforehand, as a bot loads it at start).
3. Locating 200-character quotes in the Health Code (HEALTH_CODE, default
   ../shared/corpus/kz-laws/rus/144582.md; skipped when absent): locate_quote (rapidfuzz)
   vs difflib's SequenceMatcher.find_longest_match, time and whether the span is exact,
   for verbatim quotes and for quotes with a few characters changed.
"""

from __future__ import annotations

import argparse
import difflib
import re
import time
from pathlib import Path

import numpy as np

from evals.quotes.evaluate import iou, placement_metrics, run_matcher
from evals.quotes.fragments import split_fragments
from evals.quotes.locate import locate_quote
from evals.quotes.matchers import get_matcher, parse_matchers
from evals.store.quotes import read_quotes

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"
HEALTH_CODE = ROOT.parent / "shared" / "corpus" / "kz-laws" / "rus" / "144582.md"


def bench_matchers(rounds: int) -> None:
    answers = read_quotes(DEMO)
    names = parse_matchers("all")  # the built-ins and their +order variants
    print(f"1. placement over the demo set: {len(answers)} answers, best of {rounds} rounds")
    rows = {}
    for name in names:
        matcher = get_matcher(name)
        best = None
        for _ in range(rounds):
            split_fragments.cache_clear()  # each round splits afresh, as a live bot would
            run = run_matcher(matcher, answers)
            total = sum(run.latency_us)
            if best is None or total < sum(best.latency_us):
                best = run
        assert best is not None
        at_default = placement_metrics(best.offers, matcher.default_threshold, len(answers), intervals=False)
        at_zero = placement_metrics(best.offers, 0.0, len(answers), intervals=False)
        rows[name] = (best, at_default, at_zero, matcher.default_threshold)
    base_total = sum(rows["sequencematcher"][0].latency_us)
    print(f"   {'matcher':<22}{'answers/s':>10}{'p95 µs':>9}{'× difflib':>10}   ", end="")
    print(f"{'at default threshold':<38}{'at threshold 0':<20}")
    for name, (run, d, z, threshold) in rows.items():
        total = sum(run.latency_us)
        p95 = np.percentile(run.latency_us, 95)
        per_s = len(answers) / (total / 1e6)

        def pair(m: dict) -> str:
            wrong = m["wrong_place_rate"]["value"]
            return f"acc {m['placement_accuracy']['value']:.3f} wrong {'—' if wrong is None else f'{wrong:.3f}'}"

        print(
            f"   {name:<22}{per_s:>10.0f}{p95:>9.0f}{base_total / total:>9.1f}×   "
            f"{pair(d) + f' (t={threshold:g})':<38}{pair(z):<20}"
        )


def bench_splitters(rounds: int) -> None:
    answers = read_quotes(DEMO)
    print("\n2. candidate fragments: citeval's sentence splitter vs razdel")
    for splitter in ("citeval", "razdel"):
        times = []
        for _ in range(max(rounds, 5)):
            split_fragments.cache_clear()
            started = time.perf_counter()
            fragments = [split_fragments(a.answer_text, splitter) for a in answers]
            times.append(time.perf_counter() - started)
        reachable = total = 0
        for answer, frags in zip(answers, fragments, strict=True):
            for gold in answer.gold or []:
                if gold.span is None:
                    continue
                total += 1
                reachable += max((iou(f.span, gold.span) for f in frags), default=0) >= 0.5
        print(
            f"   {splitter:<8} gold spans reachable {reachable}/{total} ({reachable / total:.3f}), "
            f"{min(times) / len(answers) * 1e6:.0f} µs per answer"
        )


def _difflib_locate(needle: str, haystack: str) -> tuple[int, int]:
    """The stdlib way: the longest common block, widened to the needle's length around it."""
    matcher = difflib.SequenceMatcher(None, needle, haystack, autojunk=False)
    block = matcher.find_longest_match(0, len(needle), 0, len(haystack))
    start = block.b - block.a
    return max(0, start), start + len(needle)


def _edit(quote: str) -> str:
    """A few characters changed, as a model's retyping would: ё→е-style letter, a digit, a dash."""
    out = quote.replace(" — ", " - ", 1).replace("ё", "е")
    letters = [i for i, ch in enumerate(out) if ch.isalpha()]
    for i in (letters[len(letters) // 3], letters[2 * len(letters) // 3]):
        out = out[:i] + ("а" if out[i] != "а" else "о") + out[i + 1 :]
    return out


def bench_health_code(path: Path) -> None:
    print(f"\n3. a 200-character quote in {path.name}")
    if not path.exists():
        print(f"   skipped: {path} not found")
        return
    text = path.read_text(encoding="utf-8")
    print(f"   {len(text):,} characters")
    quotes = []
    for offset in (90_000, 210_000, 330_000, 450_000, 610_000):
        start = text.index(" ", offset) + 1
        while not text[start].isalpha():
            start += 1
        end = start + 200
        if not re.match(r"\w", text[end - 1]):
            end -= 1
        quotes.append((start, end))
    results: dict[str, list[tuple[float, bool]]] = {
        "rapidfuzz verbatim": [],
        "rapidfuzz edited": [],
        "difflib verbatim": [],
        "difflib edited": [],
    }
    for start, end in quotes:
        for variant in ("verbatim", "edited"):
            needle = text[start:end] if variant == "verbatim" else _edit(text[start:end])
            t0 = time.perf_counter()
            found = locate_quote(needle, text)
            t1 = time.perf_counter()
            results[f"rapidfuzz {variant}"].append(
                (t1 - t0, found is not None and (found.start, found.end) == (start, end))
            )
            t0 = time.perf_counter()
            span = _difflib_locate(needle, text)
            t1 = time.perf_counter()
            results[f"difflib {variant}"].append((t1 - t0, span == (start, end)))
    for name, rows in results.items():
        times = [t for t, _ in rows]
        exact = sum(ok for _, ok in rows)
        print(f"   {name:<20} median {np.median(times) * 1000:>9.1f} ms   exact span {exact}/{len(rows)}")
    for variant in ("verbatim", "edited"):
        ratio = np.median([t for t, _ in results[f"difflib {variant}"]]) / np.median(
            [t for t, _ in results[f"rapidfuzz {variant}"]]
        )
        print(f"   {variant}: rapidfuzz {ratio:.0f}× faster than difflib")


def _clear_caches(words_too: bool) -> None:
    """Empty every cache of the answer's text in block and the cascade (fragments, candidate
    places, lemma sets, numbers); words_too also the caches a live bot keeps warm across
    answers: per word (lemma, Snowball stem) and per cited text (its clauses' lemmas, numbers)."""
    from evals.quotes import cascade
    from evals.text import lemmas, normalize, numerals, tokens

    # the shared text caches (normalized text, its numbers) hold the answer's own text too: emptied
    # whole, cited texts with it, so the warm figure never profits from an answer seen before
    for cached in (cascade._lemma_set, cascade._numbers, cascade._clauses, cascade.candidate_spans, split_fragments,
                   normalize.normalize, normalize._extract_numbers, normalize._held):
        cached.cache_clear()
    if words_too:
        cascade._source.cache_clear()
        cascade._word_key.cache_clear()
        lemmas.lemma.cache_clear()
        tokens.stem.cache_clear()
        for word_cache in (numerals._compound, numerals._unit_word, numerals._may_be_number, numerals.duration):
            word_cache.cache_clear()


def _interleaved(answers: list, rounds: int, words_too: bool) -> dict[str, list[float]]:
    """Each answer's best µs over the rounds for block and for default, the two measured
    alternately answer by answer (the order swapped each round), every per-text cache emptied
    before each call: each answer is new to both, as in a live bot. The caches kept across
    answers (per word, per cited text) are emptied too when words_too (cold). The best of the
    rounds drops the calls the scheduler interrupted (a loaded machine); the interleaving puts
    what load remains on both alike."""
    matchers = {name: get_matcher(name) for name in ("block", "default")}
    best: dict[str, list[float]] = {name: [float("inf")] * len(answers) for name in matchers}
    for r in range(rounds):
        order = ("block", "default") if r % 2 == 0 else ("default", "block")
        for k, answer in enumerate(answers):
            for name in order:
                _clear_caches(words_too)
                started = time.perf_counter_ns()
                matchers[name].place(answer.answer_text, answer.citations)
                best[name][k] = min(best[name][k], (time.perf_counter_ns() - started) / 1000)
    return best


def bench_default(rounds: int) -> None:
    from evals.text.lemmas import lemma

    answers = read_quotes(DEMO / "quotes" / "real.jsonl")
    from scipy.optimize import linear_sum_assignment  # noqa: F401 - loaded once per process (≈ 0.8 s)

    lemma("словарь")  # the dictionary loads once per process (≈ 0.3 s), as at a bot's start
    print(
        f"\n4. default vs block, µs per answer over {len(answers)} realistic answers (each answer's best of "
        f"{rounds} rounds, the two interleaved answer by answer, after a warm-up pass)"
    )
    _interleaved(answers, 1, words_too=False)  # warm-up: imports, the word caches, the allocator
    for state, words_too in (("warm", False), ("cold", True)):
        times = _interleaved(answers, rounds, words_too)
        block = float(np.percentile(times["block"], 95))
        default = float(np.percentile(times["default"], 95))
        ratio = default / block
        verdict = "within" if ratio <= 5 else "over"
        print(
            f"   {state:<5} p95 block {block:>7.0f}   default {default:>7.0f}   ratio {ratio:.1f}× ({verdict} 5×)"
            f"   median ratio {np.median(times['default']) / np.median(times['block']):.1f}×"
        )
    print(
        "   warm: the caches a bot keeps across answers (per word: lemma, stem, its key; per cited text: its clauses'\n"
        "   lemmas, numbers) filled, every cache of the answer's own text emptied before each call;\n"
        "   cold: those emptied too (every word new, pymorphy3 parses each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("health_code", nargs="?", type=Path, default=HEALTH_CODE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only-default", action="store_true", help="run part 4 only")
    args = parser.parse_args()
    if args.only_default:
        bench_default(max(args.rounds, 7))
        return
    bench_matchers(args.rounds)
    bench_splitters(args.rounds)
    bench_health_code(args.health_code)
    bench_default(max(args.rounds, 7))


if __name__ == "__main__":
    main()
