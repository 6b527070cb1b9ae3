"""Names the command line needs without importing the backends (which load the Anthropic SDK):
the backend SPEC forms (DESIGN 7) and the environment variables of the run settings files."""

BACKEND_SPECS: tuple[str, ...] = (
    "reference", "replay:PATH", "http:URL", "python:module:function", "faults:KIND[,KIND]:SPEC",
)
# files that change a replayed answer, recorded in the run manifest (RunSettings)
PRICES_ENV = "CITEVAL_PRICES"  # a price table overriding the shipped one (evals/run/backends/prices.py)
REFUSAL_PATTERNS_ENV = "CITEVAL_REFUSAL_PATTERNS"  # refusal regexes replacing the shipped ones (replay.py)


def spec_forms() -> str:
    """'reference, replay:PATH, http:URL, python:module:function or faults:KIND[,KIND]:SPEC'."""
    return ", ".join(BACKEND_SPECS[:-1]) + " or " + BACKEND_SPECS[-1]
