"""Push speed: 200 synthetic tasks to a Label Studio server, then the same push again.

    LABEL_STUDIO_URL=http://127.0.0.1:8080 LABEL_STUDIO_API_KEY=... python bench/label_push.py [--tasks 200]
    python bench/label_push.py --local      # a throwaway server from .venv-labelstudio on 127.0.0.1

Each run pushes into a new project (a timestamped title). Prints the wall time of the first
push (bulk import, one request per 250 tasks) and of the second (nothing to import: it only
lists the project's tasks and compares hashes). Target: a few seconds for 200 tasks.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from labelstudio import server as S  # noqa: E402
from labelstudio.runs import make_run, synthetic_answers  # noqa: E402

from evals.label import push
from evals.label.client import LabelStudioClient


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=250)
    parser.add_argument("--local", action="store_true", help="start a throwaway server (needs .venv-labelstudio)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = None
        if args.local:
            server = S.LabelStudioServer(S.fresh_data_dir(root)).start()
            client = LabelStudioClient(server.url, S.ADMIN_TOKEN)
        else:
            if not os.environ.get("LABEL_STUDIO_URL"):
                print("set LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY, or pass --local", file=sys.stderr)
                return 2
            client = LabelStudioClient.from_env()
        try:
            run_dir = make_run(root, run_id="bench", answers=synthetic_answers(args.tasks), judgments=False)
            title = f"citeval bench {time.strftime('%Y%m%d-%H%M%S')}"
            first = push(run_dir, title, client=client, batch_size=args.batch_size)
            second = push(run_dir, title, client=client, batch_size=args.batch_size)
        finally:
            if server is not None:
                server.stop()
    print(f"first push:  {first.imported} task(s) in {first.requests} request(s): {first.seconds:.2f} s")
    print(f"second push: {second.imported} imported, {second.unchanged} unchanged: {second.seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
