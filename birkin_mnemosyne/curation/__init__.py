"""Curation: a model proposes a typed plan; deterministic code validates, clamps,
applies and journals it. Review questions and capacity budgets keep the user in charge.

Modules: ``contract`` (CurationPlan/1), ``snapshot`` (fresh view, protected notes),
``gate`` (``validate_clamp``), ``executor`` (``evaluate_plan``), ``catalog``, ``prompt``
(``build_plan_prompt``), ``providers`` (``get_completer``), ``driver``
(``run_curation_pass``, ``curation_catalog``, 0.7.2's ``mechanical_catalog``), ``review``
(questions for the user) and ``capacity`` (budgets).
"""

from . import review
from .capacity import BUDGET_ENV, capacity, load_budgets
from .contract import DROP_REASONS, OPERATIONS, PLAN_FORMAT, PLAN_SCHEMA, extract_plan, parse_plan
from .driver import curation_catalog, mechanical_catalog, run_curation_pass
from .executor import evaluate_plan
from .gate import archive_cap, validate_clamp
from .prompt import build_plan_prompt
from .providers import PROVIDERS, get_completer
from .snapshot import take_snapshot

__all__ = [
    "BUDGET_ENV",
    "DROP_REASONS",
    "OPERATIONS",
    "PLAN_FORMAT",
    "PLAN_SCHEMA",
    "PROVIDERS",
    "archive_cap",
    "build_plan_prompt",
    "capacity",
    "curation_catalog",
    "evaluate_plan",
    "extract_plan",
    "get_completer",
    "load_budgets",
    "mechanical_catalog",
    "parse_plan",
    "review",
    "run_curation_pass",
    "take_snapshot",
    "validate_clamp",
]
