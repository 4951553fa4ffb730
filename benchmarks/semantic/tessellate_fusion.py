"""Fusion on the Tessellate dev vault: capture what the hybrid engine fuses, replay variants.

    python benchmarks/semantic/tessellate_fusion.py --data ../shared/datasets/tessellate \\
        --model ../shared/models/m2v-minilm-256 [--lang en] [--json out.json]

Every query goes once through the hybrid engine (the model prepared into a copy of the
vault, default settings otherwise), recording what ``Mnemosyne._fuse`` is handed and
finds: the lexical candidates (note, full match, score), the lexical verdict, the
semantic neighbours and the cosines of the lexical candidates, the query's model
coverage. Each fusion variant below is then replayed through ``fusion.fuse`` (pure
maths, so a replay is what a real run gives: the engine's own answers at the shipped
constants are checked against their replay) and scored as ``retrieval/tessellate.py``
scores a response (MRR@10, absent_ok, false absences), per kind and per language.

Also printed: the calibration the relevance floor comes from, the highest cosine any
unanswerable (``absent``) query reaches per language, against where the answerable
queries' best cosines lie.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "retrieval"))

import tessellate  # noqa: E402  (retrieval/tessellate.py: the dataset and its scoring)

from birkin_mnemosyne import Mnemosyne, fusion, semantic  # noqa: E402
from birkin_mnemosyne.fusion import FusionParams  # noqa: E402

LIMIT = tessellate.LIMIT


def capture(vault: Path, model: str, queries: list[dict]) -> tuple[list[dict], list[dict]]:
    """(per query the fusion inputs, the engine's own responses)."""
    semantic.prepare(vault, model)
    engine = Mnemosyne(vault, refresh_interval=1e9, semantic=True)
    engine.refresh()
    if engine.mode != "hybrid":
        raise SystemExit(f"hybrid search did not start: {engine.stats()['degraded_reason']}")
    calls: list[dict] = []
    real_fuse = fusion.fuse
    real = Mnemosyne._fuse

    def recording_fuse(lexical, neighbours, **kwargs):
        calls[-1].update(
            lexical=lexical,
            semantic=neighbours,
            candidates=kwargs.get("candidates") or {},
            coverage=kwargs.get("coverage", 1.0),
        )
        return real_fuse(lexical, neighbours, **kwargs)

    def recording(self, hybrid, index, query, ranked, signals_verdict, limit, allowed):
        calls.append(
            {
                "weak": bool(signals_verdict["no_strong_match"]),
                "paths": {note.nid: index.notes[note.nid]["path"] for note in ranked},
            }
        )
        out = real(self, hybrid, index, query, ranked, signals_verdict, limit, allowed)
        for nid, _ in calls[-1]["semantic"]:
            calls[-1]["paths"].setdefault(nid, index.notes[nid]["path"])
        return out

    fusion.fuse, Mnemosyne._fuse = recording_fuse, recording
    try:
        responses = []
        for query in queries:
            before = len(calls)
            responses.append(engine.search_response(query["q"], limit=LIMIT))
            if len(calls) == before:  # exact or stopword-only: no fusion
                calls.append(None)
    finally:
        fusion.fuse, Mnemosyne._fuse = real_fuse, real
    return calls, responses


def replay(call: dict | None, params: FusionParams, response: dict) -> dict:
    """The response ``params`` would give (hits as paths), from one captured call."""
    if call is None:
        return response
    fused = fusion.fuse(
        call["lexical"],
        call["semantic"],
        limit=LIMIT,
        params=params,
        candidates=call["candidates"],
        coverage=call["coverage"],
    )
    weak = call["weak"]
    best = call["semantic"][0][1] if call["semantic"] else 0.0
    if weak and params.strong is not None and best >= params.strong:
        weak = False
    hits = [{"path": call["paths"][item.nid], "provenance": item.provenance} for item in fused]
    return _response(hits, weak)


def lexical_only(call: dict | None, response: dict) -> dict:
    """The lexical order as the engine ranked it, under the lexical verdict."""
    if call is None:
        return response
    hits = [{"path": call["paths"][nid]} for nid, _, _ in call["lexical"][:LIMIT]]
    return _response(hits, call["weak"])


def _response(hits: list[dict], weak: bool) -> dict:
    """The parts of a search response the scoring reads, as the engine shapes them."""
    return {
        "hits": [] if weak else hits,
        "best_weak": hits[:3] if weak else [],
        "no_strong_match": weak,
    }


def score(queries, responses, langs) -> dict:
    scanner = tessellate.LeakScanner([])
    records = [
        tessellate.score_query(q, r, "path", scanner)
        for q, r in zip(queries, responses)
        if langs is None or q["lang"] in langs
    ]
    return tessellate.slices(records)


def calibration(queries, calls) -> list[str]:
    by_lang: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for query, call in zip(queries, calls):
        if call is None or not call["semantic"]:
            continue
        group = "absent" if query["kind"] == "absent" else "answerable"
        by_lang[query["lang"]][group].append(call["semantic"][0][1])
    lines = ["| lang | absent n | absent max cosine | answerable n | answerable quartiles |"]
    lines.append("|---|---|---|---|---|")
    for lang, groups in sorted(by_lang.items()):
        absent, answerable = groups["absent"], groups["answerable"]
        quart = statistics.quantiles(answerable, n=4) if len(answerable) > 1 else answerable
        lines.append(
            f"| {lang} | {len(absent)} | {max(absent, default=float('nan')):.3f} | "
            f"{len(answerable)} | {' / '.join(f'{v:.3f}' for v in quart)} |"
        )
    return lines


# The grid the defaults are chosen from (the floor is calibrated, not searched).
GRID = {
    "semantic_weight": (0.1, 0.2, 0.3, 0.5),
    "rerank_band": (0.0, 0.05, 0.1, 0.3, 1.0),
    "min_coverage": (0.5, 0.75, 0.9),
}
# A variant may lose at most this much MRR on any kind or language slice (issue #21).
SLICE_LOSS = 0.01


def calibrated_floor(queries, calls, params: FusionParams) -> float:
    """The relevance floor: just above the best cosine any unanswerable query reaches
    among those the model speaks to (a semantic weight above zero at its coverage)."""
    best = [
        call["semantic"][0][1]
        for query, call in zip(queries, calls)
        if query["kind"] == "absent"
        and call is not None
        and call["semantic"]
        and fusion.semantic_share(call["coverage"], params) > 0.0
    ]
    return round(max(best, default=0.0) + 0.005, 3)


def _mrr(row: dict, name: str) -> float:
    return row.get(name, {}).get("mrr", 0.0)


def worst_loss(row: dict, lexical: dict) -> float:
    """The largest MRR loss against lexical on any kind or language slice (0 if none)."""
    losses = [
        base["mrr"] - _mrr(row, name)
        for name, base in lexical.items()
        if name.startswith(("kind=", "lang=")) and "mrr" in base
    ]
    return max([0.0, *losses])


def acceptable(row: dict, lexical: dict) -> bool:
    """No kind or language slice more than ``SLICE_LOSS`` below lexical, and absence
    no worse."""
    overall, base = row["overall"], lexical["overall"]
    return (
        worst_loss(row, lexical) <= SLICE_LOSS
        and overall.get("absent_ok", 0.0) >= base.get("absent_ok", 0.0)
        and overall.get("false_absence", 0.0) <= base.get("false_absence", 0.0)
    )


def report(queries, calls, responses, langs) -> dict:
    """Score lexical, the shipped constants and the grid on the captured calls; print the
    calibration, the best grid rows and the slices; return the scores."""
    lexical = [lexical_only(call, r) for call, r in zip(calls, responses)]
    results = {"lexical": score(queries, lexical, langs)}
    shipped = [replay(c, FusionParams(), r) for c, r in zip(calls, responses)]
    results["shipped"] = score(queries, shipped, langs)
    print("\n".join(calibration(queries, calls)) + "\n")
    ranked = []
    for values in itertools.product(*GRID.values()):
        params = FusionParams(**dict(zip(GRID, values)))
        params = replace(params, floor=calibrated_floor(queries, calls, params))
        row = score(queries, [replay(c, params, r) for c, r in zip(calls, responses)], langs)
        gain = (_mrr(row, "kind=para"), _mrr(row, "overall"))
        # of equals, the more cautious first: smaller weight and band, higher coverage gate
        caution = (-params.semantic_weight, -params.rerank_band, params.min_coverage)
        ok, loss = acceptable(row, results["lexical"]), worst_loss(row, results["lexical"])
        # the acceptable by their gain; when none is, the least harmful (the rule's fallback)
        order = (ok, *gain, *caution) if ok else (ok, -round(loss, 3), *gain, *caution)
        ranked.append((order, params, row, loss))
    ranked.sort(key=lambda item: item[0], reverse=True)
    if not ranked[0][0][0]:
        print("no variant keeps every slice within 0.01 of lexical: least harmful first\n")
    print(
        "| ok | worst slice loss | weight | band | min coverage | floor | para MRR | "
        "overall MRR | mixed | state |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for order, params, row, loss in ranked[:12]:
        ok, para, overall = order[0], _mrr(row, "kind=para"), _mrr(row, "overall")
        print(
            f"| {'yes' if ok else 'no'} | {loss:.3f} | {params.semantic_weight} | {params.rerank_band} | "
            f"{params.min_coverage} | {params.floor} | {para:.3f} | {overall:.3f} | "
            f"{_mrr(row, 'kind=mixed'):.3f} | {_mrr(row, 'kind=state'):.3f} |"
        )
    _, chosen, results["chosen"], _ = ranked[0]
    print(f"\nchosen: {chosen}\n")
    names = list(results)

    print(
        "| slice | n | "
        + " | ".join(f"{n} MRR" for n in names)
        + " | lexical absent_ok / false_abs | "
        + " | ".join(f"{n} absent_ok / false_abs" for n in names[1:])
        + " |"
    )
    print("|---|---|" + "---|" * (2 * len(names)))
    for slice_name in results["lexical"]:
        cells = [slice_name, str(results["lexical"][slice_name]["n"])]
        cells += [f"{results[n][slice_name].get('mrr', float('nan')):.3f}" for n in names]
        for n in names:
            row = results[n][slice_name]
            cells.append(
                f"{row.get('absent_ok', float('nan')):.3f} / {row.get('false_absence', float('nan')):.3f}"
            )
        print("| " + " | ".join(cells) + " |")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--model", required=True)
    parser.add_argument("--lang", help="comma-separated languages to score (default: all)")
    parser.add_argument("--json", type=Path, help="write the captured calls and scores here")
    args = parser.parse_args(argv)
    source, queries, _ = tessellate.load_dataset(args.data)
    with tempfile.TemporaryDirectory(prefix="mnemo-fusion-") as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(source, vault)
        calls, responses = capture(vault, args.model, queries)
    # the replay at the shipped constants equals the engine's own answers
    for query, call, response in zip(queries, calls, responses):
        again = replay(call, FusionParams(), response)
        ours = [h["path"] for h in response["hits"]]
        if ours != [h["path"] for h in again["hits"]]:
            raise SystemExit(f"replay differs from the engine on {query['id']}")
    langs = set(args.lang.split(",")) if args.lang else None
    results = report(queries, calls, responses, langs)
    if args.json:
        args.json.write_text(
            json.dumps({"calls": calls, "results": results}, ensure_ascii=False, default=str),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
