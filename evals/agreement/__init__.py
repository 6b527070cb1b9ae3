"""Inter-rater agreement of the human raters (DESIGN 6, agreement.json; issue 7).

`stats` holds pure statistics over a units × raters table; `table` turns judgments into
such a table; `report` computes every field's agreement; `io` reads and writes files.
"""

from evals.agreement.io import (
    AGREEMENT_FILE,
    AdjudicationResult,
    AgreeResult,
    ResolvedLabel,
    adjudicate,
    agree,
    load_context,
    locate,
    read_judgments,
    read_resolved,
    write_agreement,
)
from evals.agreement.report import (
    AgreementReport,
    Context,
    Disagreement,
    FieldAgreement,
    compute_agreement,
    render_text,
)
from evals.agreement.stats import (
    Estimate,
    Interval,
    bootstrap_ci,
    cohen_kappa,
    encode,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
    with_ci,
)
from evals.agreement.table import FIELD_GRAIN, FIELDS, AgreementTable, UnitKey, agreement_table

__all__ = [
    "AGREEMENT_FILE", "FIELDS", "FIELD_GRAIN",
    "AdjudicationResult", "AgreeResult", "AgreementReport", "AgreementTable", "Context", "Disagreement",
    "Estimate", "FieldAgreement", "Interval", "ResolvedLabel", "UnitKey",
    "adjudicate", "agree", "agreement_table", "bootstrap_ci", "cohen_kappa", "compute_agreement", "encode",
    "fleiss_kappa", "gwet_ac1", "krippendorff_alpha", "load_context", "locate", "percent_agreement",
    "read_judgments", "read_resolved", "render_text", "with_ci", "write_agreement",
]
