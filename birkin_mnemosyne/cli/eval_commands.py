"""``mnemosyne eval``: score search on the vault owner's own questions (``evaluate``)."""

from __future__ import annotations

import sys

from ..errors import InvalidInputError
from ..evaluate import DEFAULT_K, evaluate, load_cases
from .common import add_command, add_json_flag, progress_of
from .output import print_json


def register_eval(sub):
    p = add_command(
        sub,
        "eval",
        help="score search on your own questions (hit@1, hit@3, MRR, absence)",
        description=(
            "Run every question of a case file (JSON, or YAML: `cases:` then items\n"
            "`{q: ..., expect: [{path: ..., heading: ...}]}`; `expect: []` = the vault has no\n"
            "answer) and report hit@1, hit@3, MRR, absence accuracy and the false-absence\n"
            "rate, each case's mark and the top results of every miss. A hit whose note\n"
            "quotes the question verbatim is flagged, and a second summary leaves such\n"
            "notes out. --set tries a ranking setting for this run only. Read-only."
        ),
        examples=[
            "mnemosyne --vault examples/vault eval examples/cases.yaml",
            "mnemosyne eval cases.yaml --set weak_coverage=0.5 --set w_title=2.5 --json",
        ],
    )
    p.add_argument("cases", help="the case file (.json, else the YAML subset)")
    p.add_argument(
        "-k",
        type=int,
        default=DEFAULT_K,
        metavar="N",
        help=f"results per question; MRR counts ranks up to N (default {DEFAULT_K})",
    )
    p.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a ranking setting for this run, as in the configuration's ranking (repeatable)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_eval)
    return p


def parse_settings(pairs: list[str]) -> dict:
    """``["w_title=2.5"]`` -> ``{"w_title": 2.5}``; the engine checks names and ranges."""
    settings = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        try:
            number = float(value)
        except ValueError:
            number = None
        if not sep or not name or number is None:
            raise InvalidInputError(
                f"--set {pair!r} is not NAME=NUMBER — e.g. --set weak_coverage=0.5"
            )
        settings[name] = number
    return settings


def _where(row: dict) -> list[str]:
    return [
        f"{i}. {t['path']}" + (f" › {t['heading']}" if t["heading"] else "") + f"  ({t['score']})"
        for i, t in enumerate(row["top"], 1)
    ]


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def run_eval(args) -> int:
    settings = parse_settings(args.settings)
    from ..engine import Mnemosyne

    # Open the vault first: a missing vault is the error to report, not the case file.
    with Mnemosyne(args.vault, ranking=settings or None, on_progress=progress_of(args)) as engine:
        cases = load_cases(args.cases)
        report = evaluate(engine, cases, k=args.k)
    report["ranking"] = settings
    if args.json:
        print_json(report)
        return 0
    out = sys.stdout
    for number, row in enumerate(report["results"], 1):
        flags = ""
        if row["kind"] == "absence":
            flags = "  (absence case)" if row["correct"] else "  (absence case: matched)"
        elif row["false_absence"]:
            weak = row["weak_rank"]
            flags = "  (no strong match" + (
                f"; rank {weak} among best_weak)" if weak else "; not among best_weak)"
            )
        elif row["rank"] is not None and row["rank"] > 3:
            flags = f"  (rank {row['rank']})"
        if row.get("self_quote"):
            flags += "  [self-quote: the note contains the question]"
        out.write(f"{number:>3}. {row['mark']:<9} {row['q']}{flags}\n")
        if row["mark"] == "miss":
            for line in _where(row) or ["(no results)"]:
                out.write(f"        {line}\n")
    s = report["summary"]
    k = report["k"]
    out.write(
        f"hit@1 {_fmt(s['hit_at_1'])}  hit@3 {_fmt(s['hit_at_3'])}  MRR@{k} {_fmt(s['mrr'])}"
        f"  ({s['answerable']} answerable)  absence accuracy {_fmt(s['absence_accuracy'])}"
        f" ({s['absence_cases']} cases)  false absence {_fmt(s['false_absence_rate'])}\n"
    )
    g = report["guarded"]
    if s["self_quoted"]:
        out.write(
            f"without self-quoting notes ({s['self_quoted']} flagged): hit@1 {_fmt(g['hit_at_1'])}"
            f"  hit@3 {_fmt(g['hit_at_3'])}  MRR@{k} {_fmt(g['mrr'])}\n"
        )
    else:
        out.write("self-quote guard: no top-3 hit's note contains its question\n")
    if settings:
        out.write(
            "ranking overrides: " + ", ".join(f"{n}={v:g}" for n, v in settings.items()) + "\n"
        )
    for warning in report["warnings"]:
        print(f"mnemosyne: warning: {warning}", file=sys.stderr)
    return 0


REGISTER = (register_eval,)
