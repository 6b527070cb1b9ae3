"""citeval's command line: `python cli.py …` and the console script `citeval` (cli:app).

The commands live in the citeval_cli package; this file only keeps both entry points working.
"""

import sys

from citeval_cli.app import app

__all__ = ["app"]

if __name__ == "__main__":  # `python cli.py …`
    sys.exit(app())
