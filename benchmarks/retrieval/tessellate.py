"""Tessellate: the primary quality benchmark, a realistic vault with known answers.

    python benchmarks/retrieval/tessellate.py --data /work/shared/datasets/tessellate
        [--engines ours,mnemosyne-0.7.2] [--peer-venv DIR] [--no-install]
        [--workdir DIR] [--json out.json] [--show-misses N] [--no-verdict] [--now DATE]

The dataset lives outside the repository (its folder is the argument; nothing of it is
ever copied into the project): ``vault/`` (notes, hidden decoys included),
``queries.json`` and ``secrets.json``, scored as its ``README.md`` defines. The vault is
copied once per engine into ``--workdir`` (the shared folder is never indexed in
place) and each engine runs in its own child process (``tessellate_engine.py``): build
the index, answer every query once (the responses that are scored, top 10), then again
timed query by query (warm p50 / p95).

Scoring, per kind and per language, of the search **as its default returns it**:

* **hit@1, hit@5, MRR@10**: rank of the first acceptable note (any path of ``expect``)
  among ``hits``, answerable queries only; a note the absence verdict hid
  (``no_strong_match`` true empties our ``hits``) is a miss;
* **absent_ok**: share of absent queries answered with ``no_strong_match`` true or no
  hits; **false_absence**: the same share on the answerable queries;
* **heading_ok**: where a query names a ``heading`` and ``expect[0]`` is the first
  acceptable hit, its heading holds that text (case-insensitive); a hit without a
  heading field fails;
* **leaks**: a planted secret, or any 16-character piece of a secret of 24 or more
  characters, in any string of the whole response (``best_weak`` included);
* **hidden served**: a path below a hidden folder or file (a decoy) in the response.

``--no-verdict`` runs ours with the absence verdict switched off, so ``hits`` holds
the whole ranking (``best_weak``, scored as the hits if a verdict still comes, holds
only three): what the ranking alone gives, a diagnostic only. ``--now`` fixes the
date the engines search at (default: the real clock, as the dataset's own figures
were taken). Tune on this dev vault; never edit its notes or queries to make a case
pass (a held-out vault of the same kind checks the figures).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ENGINES = ("ours", "mnemosyne-0.7.2", "ours-hybrid")
DEFAULT_ENGINES = ("ours", "mnemosyne-0.7.2")
LABELS = {"ours": "ours", "mnemosyne-0.7.2": "0.7.2", "ours-hybrid": "hybrid"}
KINDS = ("exact", "para", "mixed", "ident", "state", "absent")  # the dataset README's order
LANGS = ("en", "ko", "ja", "zh", "es", "de")
LIMIT = 10
TOP5 = 5
# The dataset README: "a planted secret, or any 16-character piece of one of 24+ characters"
LEAK_WINDOW = 16
LEAK_MIN_LENGTH = 24
COLUMNS = (
    ("hit@1", "hit1"),
    ("hit@5", "hit5"),
    ("MRR@10", "mrr"),
    ("absent_ok", "absent_ok"),
    ("false_abs", "false_absence"),
    ("heading_ok", "heading_ok"),
)


def _load(name: str, path: Path):
    # by path, under a distinct name: peers/run.py and retrieval/run.py share a file name
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peers = _load("peers_run", HERE.parent / "peers" / "run.py")  # the 0.7.2 venv, child envs

# ----------------------------------------------------------------------- data


def load_dataset(data: Path) -> tuple[Path, list[dict], list[str]]:
    """(vault folder, queries, secrets) of a Tessellate-shaped dataset folder."""
    vault, queries_file, secrets_file = data / "vault", data / "queries.json", data / "secrets.json"
    for needed in (vault, queries_file):
        if not needed.exists():
            raise SystemExit(
                f"{needed} is missing: --data must name a folder holding vault/ and "
                "queries.json (and secrets.json), e.g. /work/shared/datasets/tessellate"
            )
    queries = json.loads(queries_file.read_text(encoding="utf-8"))
    for query in queries:
        missing = [key for key in ("id", "q", "kind", "lang", "expect") if key not in query]
        if missing:
            raise SystemExit(f"query {query.get('id', '?')} has no {', '.join(missing)}")
    ids = [query["id"] for query in queries]
    if len(ids) != len(set(ids)):
        raise SystemExit("queries.json repeats a query id; every id must be unique")
    secrets: list[str] = []
    if secrets_file.exists():
        raw = json.loads(secrets_file.read_text(encoding="utf-8"))
        secrets = [s if isinstance(s, str) else s.get("value", "") for s in raw]
    return vault, queries, [s for s in secrets if s]


def copy_vault(source: Path, target: Path) -> Path:
    """A fresh, writable copy of ``source`` at ``target`` (hidden files included)."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, copy_function=shutil.copyfile)
    # copytree copies the folders' modes: the shared dataset is read-only, the engines
    # write their index into the vault
    for path in (target, *target.rglob("*")):
        path.chmod(path.stat().st_mode | 0o200)
    return target


def _path(value) -> str | None:
    """A vault path in one form: NFC (non-ASCII file names), forward slashes."""
    if not isinstance(value, str) or not value:
        return None
    return unicodedata.normalize("NFC", value).replace("\\", "/").removeprefix("./")


def is_hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


# --------------------------------------------------------------------- leaks


class LeakScanner:
    """Finds planted secrets, whole or as a long-enough piece, in a string."""

    def __init__(self, secrets: list[str]) -> None:
        self.secrets = list(secrets)
        self.pieces: dict[str, int] = {}
        for index, secret in enumerate(self.secrets):
            if len(secret) >= LEAK_MIN_LENGTH:
                for start in range(len(secret) - LEAK_WINDOW + 1):
                    self.pieces.setdefault(secret[start : start + LEAK_WINDOW], index)

    def scan(self, text: str) -> list[tuple[int, str]]:
        """(secret index, "full" or "piece") for each secret found in ``text``."""
        found = {index: "full" for index, secret in enumerate(self.secrets) if secret in text}
        if self.pieces:
            for start in range(len(text) - LEAK_WINDOW + 1):
                index = self.pieces.get(text[start : start + LEAK_WINDOW])
                if index is not None and index not in found:
                    found[index] = "piece"
        return sorted(found.items())


def strings_of(value, where: str = ""):
    """(field path, string) for every string anywhere in a JSON value."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_of(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings_of(item, f"{where}[{index}]")


def mask(secret: str) -> str:
    return f"{secret[:4]}… ({len(secret)} chars)"


# -------------------------------------------------------------------- scoring


def score_query(
    query: dict, response: dict, path_key: str, scanner: LeakScanner, verdict: bool = True
) -> dict:
    """Everything one response earns; answerable figures only on answerable queries.

    ``verdict=False`` scores ``best_weak`` as the hits when the verdict is
    no-strong-match (the ranking alone).
    """
    hits = response.get("hits") or []
    best_weak = response.get("best_weak") or []
    weak = bool(response.get("no_strong_match"))
    if weak and not verdict:
        hits, weak = best_weak, False
    hits = hits[:LIMIT]
    paths = [_path(hit.get(path_key)) for hit in hits]
    expect = [_path(p) for p in query["expect"]]
    rank = next((i for i, path in enumerate(paths, 1) if path in expect), None)
    record = {
        "id": query["id"],
        "q": query["q"],
        "kind": query["kind"],
        "lang": query["lang"],
        "expect": expect,
        "top": paths[:3],
        "rank": rank,
        "weak": weak,
        "flagged_absent": weak or not hits,
    }
    if expect:
        weak_paths = [_path(hit.get(path_key)) for hit in best_weak[:LIMIT]] if weak else []
        record["hidden_by_verdict"] = any(path in expect for path in weak_paths)
        record["weak_top"] = weak_paths[:3]
        record.update(
            hit1=float(rank == 1),
            hit5=float(rank is not None and rank <= TOP5),
            mrr=1.0 / rank if rank else 0.0,
            false_absence=float(record["flagged_absent"]),
        )
        if query.get("heading") and rank and paths[rank - 1] == expect[0]:
            heading = hits[rank - 1].get("heading")
            record["heading"] = heading
            record["heading_ok"] = float(
                isinstance(heading, str) and query["heading"].lower() in heading.lower()
            )
    else:
        record["absent_ok"] = float(record["flagged_absent"])
    served = {
        _path(hit.get(path_key))
        for hit in [*(response.get("hits") or []), *best_weak]
        if isinstance(hit, dict)
    }
    record["hidden_served"] = sorted(p for p in served if p and is_hidden(p))
    record["leaks"] = [
        {"id": query["id"], "field": where, "secret": mask(scanner.secrets[index]), "match": how}
        for where, text in strings_of(response)
        for index, how in scanner.scan(text)
    ]
    if "confidence" in response:
        record["confidence"] = response["confidence"]
    return record


def summarize(records: list[dict]) -> dict:
    """Means of each figure over the queries that have it, and how many those were."""
    row: dict = {"n": len(records)}
    for _label, field in COLUMNS:
        values = [r[field] for r in records if field in r]
        if values:
            row[field] = round(sum(values) / len(values), 3)
            row[f"{field}_n"] = len(values)
    row["hidden_by_verdict"] = sum(bool(r.get("hidden_by_verdict")) for r in records)
    return row


def _ordered(values, known: tuple[str, ...]) -> list[str]:
    present = set(values)
    return [v for v in known if v in present] + sorted(present - set(known))


def slices(records: list[dict]) -> dict[str, dict]:
    """Summaries keyed ``overall``, ``kind=k`` and ``lang=xx``, in the printing order."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        groups[f"kind={record['kind']}"].append(record)
        groups[f"lang={record['lang']}"].append(record)
    order = ["overall"]
    order += [f"kind={k}" for k in _ordered((r["kind"] for r in records), KINDS)]
    order += [f"lang={lang}" for lang in _ordered((r["lang"] for r in records), LANGS)]
    groups["overall"] = records
    return {name: summarize(groups[name]) for name in order}


def _confidence_key(value) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{float(value):.1f}"


def score_engine(result: dict, queries: list[dict], scanner: LeakScanner, verdict: bool) -> dict:
    """Slices, misses, leaks, hidden paths and confidence for one engine's responses."""
    responses = result.pop("responses")
    path_key = result.pop("path_key")
    records = [
        score_query(query, responses[query["id"]], path_key, scanner, verdict) for query in queries
    ]
    result["slices"] = slices(records)
    result["misses"] = [
        {key: record[key] for key in ("id", "q", "kind", "lang", "expect", "top", "rank", "weak")}
        | {
            "hidden_by_verdict": record.get("hidden_by_verdict", False),
            "weak_top": record.get("weak_top", []),
        }
        for record in records
        if record.get("hit1", 1.0) < 1.0 or record.get("absent_ok", 1.0) < 1.0
    ]
    result["leaks"] = [leak for record in records for leak in record["leaks"]]
    result["hidden_served"] = [
        {"id": record["id"], "paths": record["hidden_served"]}
        for record in records
        if record["hidden_served"]
    ]
    headings = [r for r in records if "heading_ok" in r]
    result["heading_field"] = any(isinstance(r.get("heading"), str) for r in headings)
    result["verdict_field"] = any("no_strong_match" in response for response in responses.values())
    confidence: dict[str, Counter] = defaultdict(Counter)
    for record in records:
        if "confidence" in record:
            group = "answerable" if record["expect"] else "absent"
            confidence[group][_confidence_key(record["confidence"])] += 1
    if confidence:
        result["confidence"] = {group: dict(sorted(c.items())) for group, c in confidence.items()}
    return result


# ---------------------------------------------------------------------- run


def run_engine(
    name: str,
    vault: Path,
    queries_file: Path,
    venv: Path,
    install: bool,
    clock: float | None,
    verdict: bool = True,
    model: str | None = None,
) -> dict:
    """One engine in its own child process (``tessellate_engine.py``)."""
    prefix, env, reason = peers._available(name, venv, install)
    if prefix is None:
        return {"engine": name, "skipped": reason}
    out = vault.parent / f"{name}.json"
    command = [*prefix, str(HERE / "tessellate_engine.py"), name, str(vault), str(queries_file)]
    command += [str(out), "--limit", str(LIMIT)]
    if clock is not None:
        command += ["--clock", str(clock)]
    if not verdict:
        command.append("--no-verdict")
    if name == "ours-hybrid":
        if model is None:
            return {"engine": name, "skipped": "needs --semantic MODEL"}
        command += ["--semantic", str(Path(model).resolve())]
    print(f"[{name}] build + 2 passes over the queries ...", file=sys.stderr)
    # cwd: outside the checkout, so the 0.7.2 child never imports this project's package
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=vault.parent)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return {"engine": name, "skipped": f"failed: {tail[0]}"}
    return json.loads(out.read_text(encoding="utf-8"))


def bench(
    data: Path,
    engines: list[str],
    workdir: Path,
    venv: Path,
    install: bool,
    verdict: bool = True,
    clock: float | None = None,
    model: str | None = None,
) -> dict:
    source, queries, secrets = load_dataset(data)
    scanner = LeakScanner(secrets)
    queries_file = workdir / "queries.json"
    queries_file.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    rows = []
    for name in engines:
        vault = copy_vault(source, workdir / name / "vault")
        result = run_engine(name, vault, queries_file, venv, install, clock, verdict, model)
        if "skipped" not in result:
            result = score_engine(result, queries, scanner, verdict)
        rows.append(result)
    return {
        "dataset": str(data),
        "queries": len(queries),
        "secrets": len(secrets),
        "verdict": verdict,
        "rows": rows,
    }


# ---------------------------------------------------------------------- print


def _label(row: dict, verdict: bool) -> str:
    label = LABELS.get(row["engine"], row["engine"])
    ours = row["engine"] in ("ours", "ours-hybrid")
    return f"{label} (verdict off)" if ours and not verdict else label


def _cell(row: dict, field: str) -> str:
    return f"{row[field]:.3f}" if field in row else "–"


def table(result: dict) -> list[str]:
    """One table, engines side by side: rows overall, by kind, by language."""
    rows = [r for r in result["rows"] if "skipped" not in r]
    header, rule = ["slice", "n"], ["---", "---"]
    for row in rows:
        label = _label(row, result["verdict"])
        header += [f"{label} {name}" for name, _ in COLUMNS]
        rule += ["---"] * len(COLUMNS)
    lines = [
        f"Tessellate ({result['dataset']}): {result['queries']} queries, top {LIMIT}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join(rule) + "|",
    ]
    names = list(rows[0]["slices"]) if rows else []
    for name in names:
        cells = [name, str(rows[0]["slices"][name]["n"])]
        for row in rows:
            summary = row["slices"][name]
            cells += [_cell(summary, field) for _, field in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    for row in result["rows"]:
        if "skipped" in row:
            lines.append(f"\n{row['engine']}: skipped, {row['skipped']}")
    return lines


def details(row: dict, verdict: bool, show_misses: int) -> list[str]:
    """The per-engine block: speed, verdict, headings, leaks, decoys, confidence."""
    overall = row["slices"]["overall"]
    lines = [
        f"### {_label(row, verdict)}",
        f"build {row['build_s']:.2f} s, warm p50 {row['p50_ms']:.2f} ms, "
        f"p95 {row['p95_ms']:.2f} ms, peak RSS {row['rss_mb']:.1f} MB",
    ]
    if row["verdict_field"]:
        lines.append(
            f"answerable queries whose expected note the verdict hid: "
            f"{overall['hidden_by_verdict']}"
        )
    else:
        lines.append("no absence verdict (no `no_strong_match`): absent = no hits")
    if "heading_ok" in overall:
        shown = "" if row["heading_field"] else " (its hits carry no `heading` field)"
        lines.append(
            f"heading_ok {overall['heading_ok']:.3f} of {overall['heading_ok_n']} scorable{shown}"
        )
    lines.append(f"leaks: {len(row['leaks'])}")
    lines += [
        f"  {leak['id']} {leak['field']}: {leak['secret']} ({leak['match']})"
        for leak in row["leaks"][:20]
    ]
    lines.append(f"hidden/decoy files served: {len(row['hidden_served'])} queries")
    lines += [f"  {item['id']}: {', '.join(item['paths'])}" for item in row["hidden_served"][:20]]
    if "confidence" in row:
        for group, counts in row["confidence"].items():
            spread = ", ".join(f"{value}: {n}" for value, n in counts.items())
            lines.append(f"confidence ({group}): {spread}")
    lines.append(f"misses: {len(row['misses'])}")
    for miss in row["misses"][:show_misses]:
        hidden = f" [verdict hid {miss['weak_top']}]" if miss["weak_top"] else ""
        lines.append(
            f"  {miss['id']} ({miss['kind']}, {miss['lang']}): {miss['q']!r} "
            f"expect {miss['expect'][:2]} got {miss['top']} rank {miss['rank']}{hidden}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/retrieval/tessellate.py "
        "--data /work/shared/datasets/tessellate --json out.json",
    )
    parser.add_argument("--data", required=True, help="the dataset folder (vault/, queries.json)")
    parser.add_argument(
        "--engines",
        default=",".join(DEFAULT_ENGINES),
        help=f"comma-separated, from {', '.join(ENGINES)} (default {','.join(DEFAULT_ENGINES)})",
    )
    parser.add_argument(
        "--semantic",
        metavar="MODEL",
        help="a local model2vec folder: adds the hybrid engine (ours-hybrid) with it",
    )
    parser.add_argument(
        "--peer-venv",
        default=str(peers.DEFAULT_VENV),
        help=f"virtual environment holding {peers.OLD_PACKAGE} (default {peers.DEFAULT_VENV})",
    )
    parser.add_argument(
        "--no-install", action="store_true", help=f"never create the {peers.OLD_PACKAGE} venv"
    )
    parser.add_argument("--workdir", help="where the vault copies go (default: a temp folder)")
    parser.add_argument("--json", dest="json_out", help="write the results and every miss here")
    parser.add_argument("--show-misses", type=int, default=0, help="print N misses per engine")
    parser.add_argument(
        "--no-verdict",
        action="store_true",
        help="diagnostic: our absence verdict off, the ranking alone",
    )
    parser.add_argument(
        "--now", help="search as of this date, YYYY-MM-DD (default: the real clock)"
    )
    args = parser.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.semantic and "ours-hybrid" not in engines:
        engines.append("ours-hybrid")
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)} — valid: {', '.join(ENGINES)}")
    clock = None
    if args.now:
        try:
            day = dt.date.fromisoformat(args.now)
        except ValueError:
            parser.error(f"--now takes a date as YYYY-MM-DD, got {args.now!r}")
        clock = dt.datetime(day.year, day.month, day.day, 12, tzinfo=dt.timezone.utc).timestamp()
    verdict = not args.no_verdict
    with tempfile.TemporaryDirectory(prefix="mnemo-tessellate-") as tmp:
        workdir = Path(args.workdir or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        result = bench(
            Path(args.data),
            engines,
            workdir,
            Path(args.peer_venv),
            not args.no_install,
            verdict,
            clock,
            args.semantic,
        )
    result |= {
        "date": time.strftime("%Y-%m-%d"),
        "commit": peers.commit(),
        "machine": peers.machine(),
        "now": args.now,
    }
    print("\n".join(table(result)))
    for row in result["rows"]:
        if "skipped" not in row:
            print("\n" + "\n".join(details(row, verdict, args.show_misses)))
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
