"""The verbatim-quote lab (DESIGN 9): which matcher puts each cited quote in the right place
of a paraphrased answer.

- models: QuoteAnswer / QuoteCitation / GoldPlacement (the quotes file), Placement (an offer);
- reader: read_quotes (file:line errors), validate_quotes_folder (for `citeval data validate`);
- fragments: split_fragments, the candidate places every matcher chooses among;
- matchers: the Matcher interface, the built-ins, get_matcher (also python:module:function);
- evaluate: evaluate_quotes, placement_metrics, sweeps, tuning, McNemar comparison;
- locate: locate_quote, a quote's best span in a long text (QUOTE_NOT_FOUND details).

Injecting quotes into an answer (Telegram, Label Studio, production logs) builds on
Matcher.place and Placement.placed_at.
"""

from evals.contract.quotes import GoldPlacement, Placement, QuoteAnswer, QuoteCitation
from evals.quotes.evaluate import (
    IOU_CORRECT,
    QuoteEvaluation,
    evaluate_path,
    evaluate_quotes,
    iou,
    is_heldout,
    mcnemar,
    placement_metrics,
    run_matcher,
    tune_threshold,
)
from evals.quotes.fragments import Fragment, split_fragments
from evals.quotes.locate import QuoteLocation, describe_near_miss, locate_quote, quote_difference
from evals.quotes.matchers import (
    BUILTIN,
    DEFAULT_THRESHOLDS,
    Matcher,
    embedding_available,
    get_matcher,
    parse_matchers,
)
from evals.store.quotes import check_quotes_file, quote_files, read_quotes, validate_quotes_folder

__all__ = [
    "BUILTIN",
    "DEFAULT_THRESHOLDS",
    "IOU_CORRECT",
    "Fragment",
    "GoldPlacement",
    "Matcher",
    "Placement",
    "QuoteAnswer",
    "QuoteCitation",
    "QuoteEvaluation",
    "QuoteLocation",
    "check_quotes_file",
    "describe_near_miss",
    "embedding_available",
    "evaluate_path",
    "evaluate_quotes",
    "get_matcher",
    "iou",
    "is_heldout",
    "locate_quote",
    "mcnemar",
    "parse_matchers",
    "placement_metrics",
    "quote_difference",
    "quote_files",
    "read_quotes",
    "run_matcher",
    "split_fragments",
    "tune_threshold",
    "validate_quotes_folder",
]
