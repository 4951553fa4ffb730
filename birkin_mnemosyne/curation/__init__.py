"""Curation: a model proposes a typed plan; deterministic code validates, clamps,
applies and journals it. Review questions and capacity budgets keep the user in charge.

Modules: ``contract`` (CurationPlan/1), ``snapshot`` (fresh view, protected notes),
``gate`` (``validate_clamp``), ``executor`` (``evaluate_plan``), ``catalog``, ``prompt``
(``build_plan_prompt``), ``providers`` (``get_completer``), ``driver``
(``run_curation_pass``, ``curation_catalog``, 0.7.2's ``mechanical_catalog``), ``review``
(questions for the user) and ``capacity`` (budgets).
"""

from importlib import import_module

# Imported at once: the function ``capacity`` shares its module's name, and only a
# binding made after that module is imported keeps the name on the function.
from .capacity import BUDGET_ENV, capacity, load_budgets

# name -> the module of this package that defines it, imported on first use: the CLI
# names the providers in its help without paying for the whole curation path.
_LAZY = {
    "DROP_REASONS": "contract",
    "OPERATIONS": "contract",
    "PLAN_FORMAT": "contract",
    "PLAN_SCHEMA": "contract",
    "extract_plan": "contract",
    "parse_plan": "contract",
    "curation_catalog": "driver",
    "mechanical_catalog": "driver",
    "run_curation_pass": "driver",
    "evaluate_plan": "executor",
    "archive_cap": "gate",
    "validate_clamp": "gate",
    "build_plan_prompt": "prompt",
    "PROVIDERS": "providers",
    "get_completer": "providers",
    "take_snapshot": "snapshot",
}


def __getattr__(name: str):
    if name == "review":
        return import_module(".review", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"review"})


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
