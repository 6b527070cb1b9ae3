"""Runner throughput against a local answer service that replies after 100 ms.

    python bench/replay.py [--questions 200] [--concurrency 16] [--delay 0.1]

Prints the wall time of `start_run` and its ratio to the ideal ceil(N / concurrency) × delay
(the best any runner could do). Target: ≤ 1.1×.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import httpx  # noqa: E402
from answer_server import AnswerServer  # noqa: E402
from factories import write_dataset  # noqa: E402

from evals.run.runner import RunOptions, start_run  # noqa: E402


def serve(delay: float, urls: multiprocessing.Queue) -> None:
    with AnswerServer(delay=delay) as server:
        urls.put(server.url)
        threading.Event().wait()


async def bare_httpx(url: str, n: int, concurrency: int) -> float:
    """The floor: the same requests from a bare httpx loop, no runner around them."""
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency), trust_env=False) as client:

        async def one(i: int) -> None:
            async with gate:
                payload = {"question_id": f"b{i}", "question": "?", "asked_at": "2025-01-01", "user": None}
                (await client.post(url, json=payload)).json()

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ds = write_dataset(Path(tmp) / "ds")
        with open(ds / "questions.jsonl", "w", encoding="utf-8") as handle:
            for i in range(args.questions):
                handle.write(json.dumps({"question_id": f"q{i:04d}", "question": f"Вопрос {i}?"}) + "\n")
        # the service runs in its own process so that it does not compete with the runner for the GIL
        ctx = multiprocessing.get_context("spawn")
        urls: multiprocessing.Queue = ctx.Queue()
        service = ctx.Process(target=serve, args=(args.delay, urls), daemon=True)
        service.start()
        url = urls.get(timeout=30)
        marks: list[float] = []  # first and last progress call: the answering phase alone
        t0 = time.perf_counter()
        result = start_run(ds, f"http:{url}", out=Path(tmp) / "runs", run_id="bench",
                           options=RunOptions(concurrency=args.concurrency, timeout=10, retries=0),
                           on_progress=lambda p: marks.append(time.perf_counter()))
        wall = time.perf_counter() - t0
        bare = asyncio.run(bare_httpx(url, args.questions, args.concurrency))
        service.terminate()
        assert result.answered == args.questions and result.errors == 0
    ideal = math.ceil(args.questions / args.concurrency) * args.delay
    print(f"questions {args.questions}, concurrency {args.concurrency}, server delay {args.delay * 1000:.0f} ms")
    answering = marks[-1] - marks[0]
    print(f"wall {wall:.2f} s   ideal {ideal:.2f} s   ratio {wall / ideal:.2f}x (target <= 1.1x)")
    print(f"bare httpx loop {bare:.2f} s   ratio {bare / ideal:.2f}x (the floor on this machine)")
    print(f"answering phase {answering:.2f} s   ratio {answering / ideal:.2f}x "
          f"(the rest is loading the dataset and opening the client: {wall - answering:.2f} s)")


if __name__ == "__main__":
    main()
