"""Opt-in semantic retrieval: model2vec static embeddings of the index's sections.

The one module that imports the ``semantic`` extra (``numpy``, ``model2vec``), and
only inside functions: importing it without the extra works, and ``missing_extra()``
says what to install.

* **Preparation is explicit.** ``prepare(vault, model)`` loads a model once (a Hugging
  Face id or a local model2vec folder), optionally reduces and quantizes it, saves it to
  ``.mnemosyne/models/semantic/`` and records what it prepared in ``prepared.json``.
  Search only ever loads that folder: it never downloads anything.
* **Vectors per section**, the sections of the lexical index, each embedded with its
  context (``note title > heading``) prefixed. A vector is keyed by the sha256 of the
  exact embedded text, so an edit re-embeds only the sections whose text changed;
  vectors no section uses any more are pruned.
* **Storage** (``.mnemosyne/cache/``): ``semantic-vectors.npy`` (float16 rows, loaded
  with ``allow_pickle=False``) beside ``semantic-vectors.json``:

  ============  ==============================================================
  field         meaning
  ============  ==============================================================
  format        ``mnemosyne-vectors/1``
  contract      model id, fingerprint (sha256 of the prepared files), dimension,
                dtype, chunking version, normalisation; must equal the running
                configuration or the stored vectors are refused and rebuilt
  rows          number of rows of the array; ``npy_sha256`` its file's digest
  hashes        sha256 of the embedded text of each row, in row order
  notes         path -> [mtime_ns, size, [row hash of each section]]
  ============  ==============================================================
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from .atomic import atomic_write_bytes, atomic_write_text
from .cache import cache_dir
from .errors import ExtraNotInstalledError, InvalidInputError
from .progress import ProgressCallback, phase

__all__ = [
    "DEFAULT_MODEL",
    "SemanticIndex",
    "missing_extra",
    "model_dir",
    "prepare",
    "prepared_model",
]

DEFAULT_MODEL = "minishlab/potion-multilingual-128M"
MODEL_DIR = Path(".mnemosyne") / "models" / "semantic"
RECORD = "prepared.json"
RECORD_FORMAT = "mnemosyne-semantic-model/1"
VECTORS = "semantic-vectors.npy"
HEADER = "semantic-vectors.json"
VECTOR_FORMAT = "mnemosyne-vectors/1"
# Bump when what is embedded for a section changes (context prefix, text source).
CHUNKING_VERSION = 1
DTYPE = "float16"
NORMALISATION = "l2"
EMBED_BATCH = 512
# Sections looked at per query before they are grouped into notes.
SECTION_POOL = 400

# A word, for query coverage: a run of letters or digits.
_WORD = re.compile(r"\w+")

PREPARE_HINT = (
    f"run: mnemosyne semantic prepare (default model {DEFAULT_MODEL}; "
    "--model PATH for a local model2vec folder)"
)


def missing_extra() -> str | None:
    """None when numpy and model2vec import, else the message naming the install command."""
    try:
        import model2vec  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        return str(ExtraNotInstalledError("semantic", "semantic search"))
    return None


def _require() -> None:
    message = missing_extra()
    if message is not None:
        raise ExtraNotInstalledError("semantic", "semantic search")


def model_dir(vault: str | os.PathLike) -> Path:
    return Path(vault) / MODEL_DIR


def _fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.name != RECORD):
        digest.update(path.name.encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def prepare(
    vault: str | os.PathLike,
    model: str = DEFAULT_MODEL,
    *,
    dimensions: int | None = None,
    quantize: str | None = DTYPE,
) -> dict:
    """Load ``model`` once (this may download a hub id), save it for this vault, record it.

    ``dimensions`` keeps only the first N (PCA-ordered) dimensions; ``quantize`` stores
    the weights as that dtype (``float16`` by default, ``None`` keeps them).
    """
    _require()
    from model2vec import StaticModel

    if dimensions is not None and (isinstance(dimensions, bool) or dimensions < 1):
        raise InvalidInputError(f"dimensions must be a positive whole number, got {dimensions!r}")
    local = Path(os.path.expanduser(model))
    source = str(local.resolve()) if local.is_dir() else model
    loaded = StaticModel.from_pretrained(
        source, quantize_to=quantize, dimensionality=dimensions, force_download=False
    )
    target = model_dir(vault)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".prepare-", dir=target.parent))
    try:
        loaded.save_pretrained(str(staging))
        record = {
            "format": RECORD_FORMAT,
            "model": model,
            "source": source,
            "fingerprint": _fingerprint(staging),
            "dimensions": int(loaded.dim),
            "quantize": quantize,
        }
        (staging / RECORD).write_text(json.dumps(record, indent=1), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return record


def prepared_model(vault: str | os.PathLike) -> dict | None:
    """The record of the model prepared for ``vault`` (None when there is none)."""
    try:
        record = json.loads((model_dir(vault) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        return None
    return record


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class SemanticIndex:
    """Section vectors of one vault, kept in step with its lexical index.

    ``model`` is anything with model2vec's ``encode(list[str]) -> array``; by default the
    prepared model is loaded. ``embedded`` counts the section texts sent to the model.
    """

    def __init__(self, vault: str | os.PathLike, *, model=None, record: dict | None = None):
        _require()
        import numpy as np

        self._np = np
        self.vault = Path(vault)
        if model is None:
            record = prepared_model(vault)
            if record is None:
                raise FileNotFoundError("no semantic model is prepared for this vault")
            from model2vec import StaticModel

            model = StaticModel.from_pretrained(str(model_dir(vault)), force_download=False)
        self.model = model
        record = record or {"model": "injected", "fingerprint": "injected"}
        self.contract = {
            "model": record.get("model"),
            "fingerprint": record.get("fingerprint"),
            "dimensions": None,  # filled from the first embedding
            "dtype": DTYPE,
            "chunking": CHUNKING_VERSION,
            "normalisation": NORMALISATION,
        }
        self.embedded = 0
        self.warnings: list[str] = []
        self._hashes: list[str] = []
        self._notes: dict[str, list] = {}
        self._matrix = None  # float32, L2-normalised rows
        self._sec_rows = None  # row of each section id (-1: none)
        self._generation = None
        self._loaded = False
        self._last = None  # (query text, section similarities) of the last query

    # -- storage ---------------------------------------------------------------------

    @property
    def vectors_path(self) -> Path:
        return cache_dir(self.vault) / VECTORS

    @property
    def header_path(self) -> Path:
        return cache_dir(self.vault) / HEADER

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)  # the engine logs them

    def _load_stored(self) -> None:
        self._loaded = True
        np = self._np
        try:
            header = json.loads(self.header_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError):
            self._warn("semantic vectors refused: the header is unreadable; re-embedding")
            return
        if not isinstance(header, dict) or header.get("format") != VECTOR_FORMAT:
            self._warn("semantic vectors refused: unknown format; re-embedding")
            return
        stored = header.get("contract") or {}
        wanted = {k: v for k, v in self.contract.items() if v is not None}
        differs = sorted(k for k, v in wanted.items() if stored.get(k) != v)
        if differs:
            found = ", ".join(f"{k} {stored.get(k)!r} (now {wanted[k]!r})" for k in differs)
            self._warn(
                f"semantic vectors refused: they were built with {found}; "
                "re-embedding every section with the running configuration"
            )
            return
        try:
            data = self.vectors_path.read_bytes()
            if hashlib.sha256(data).hexdigest() != header.get("npy_sha256"):
                raise ValueError("digest mismatch")
            import io

            matrix = np.load(io.BytesIO(data), allow_pickle=False)
            if matrix.ndim != 2 or matrix.shape[0] != len(header["hashes"]):
                raise ValueError("shape mismatch")
        except (OSError, ValueError, KeyError, TypeError):
            self._warn("semantic vectors refused: the array file is damaged; re-embedding")
            return
        self.contract["dimensions"] = int(matrix.shape[1])
        self._hashes = list(header["hashes"])
        self._notes = dict(header.get("notes") or {})
        self._matrix = matrix.astype(np.float32)

    def _save(self) -> None:
        import io

        np = self._np
        buffer = io.BytesIO()
        matrix = self._matrix if self._matrix is not None else np.zeros((0, 0), np.float32)
        np.save(buffer, matrix.astype(DTYPE), allow_pickle=False)
        data = buffer.getvalue()
        header = {
            "format": VECTOR_FORMAT,
            "contract": self.contract,
            "rows": len(self._hashes),
            "npy_sha256": hashlib.sha256(data).hexdigest(),
            "hashes": self._hashes,
            "notes": self._notes,
        }
        try:
            atomic_write_bytes(self.vectors_path, data, root=self.vault)
            atomic_write_text(self.header_path, json.dumps(header), root=self.vault)
        except (OSError, ValueError) as exc:
            self._warn(f"semantic vectors not cached: {exc}")

    # -- embedding -------------------------------------------------------------------

    def embed(self, texts: list[str]):
        """L2-normalised float32 rows for ``texts``."""
        np = self._np
        vectors = np.asarray(self.model.encode(list(texts)), dtype=np.float32)
        if vectors.ndim == 1:
            vectors = vectors.reshape(1, -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        # Round through the stored dtype so fresh and reloaded vectors score alike.
        return (vectors / norms).astype(DTYPE).astype(np.float32)

    def sync(
        self,
        index,
        generation,
        section_texts: Callable[[int], list[str] | None],
        *,
        on_progress: ProgressCallback | None = None,
    ) -> dict:
        """Bring the vectors in line with ``index``; ``section_texts(nid)`` reads a note.

        Returns ``{"embedded": n, "pruned": n}``. Does nothing when ``generation`` (the
        engine's index version) has not changed since the last call. ``on_progress``
        receives the ``embed`` phase (sections embedded) when any section is new.
        """
        if generation is not None and generation == self._generation:
            return {"embedded": 0, "pruned": 0}
        np = self._np
        if not self._loaded:
            self._load_stored()
        old_rows = {h: i for i, h in enumerate(self._hashes)}
        notes: dict[str, list] = {}
        note_hashes: dict[int, list[str]] = {}
        todo: dict[str, str] = {}
        for nid, meta in enumerate(index.notes):
            if meta is None or not index.note_count[nid]:
                continue
            path = meta["path"]
            count = len(index.note_sections(nid))
            stored = self._notes.get(path)
            if (
                stored
                and stored[0] == meta["mtime_ns"]
                and stored[1] == meta["size"]
                and len(stored[2]) == count
                and all(h in old_rows or h in todo for h in stored[2])
            ):
                hashes = stored[2]
            else:
                texts = section_texts(nid)
                if texts is None or len(texts) != count:
                    continue
                hashes = []
                for text in texts:
                    digest = _sha(text)
                    hashes.append(digest)
                    if digest not in old_rows:
                        todo[digest] = text
            notes[path] = [meta["mtime_ns"], meta["size"], hashes]
            note_hashes[nid] = hashes
        used = list(dict.fromkeys(h for hs in note_hashes.values() for h in hs))
        kept = set(used)
        pruned = sum(1 for h in old_rows if h not in kept)
        fresh = {}
        if todo:
            texts = list(todo.values())
            digests = list(todo)
            self.embedded += len(texts)
            with phase(on_progress, "embed", len(texts)) as embedding:
                for start in range(0, len(texts), EMBED_BATCH):
                    chunk = self.embed(texts[start : start + EMBED_BATCH])
                    for digest, row in zip(digests[start : start + EMBED_BATCH], chunk):
                        fresh[digest] = row
                    embedding.advance(len(chunk))
        changed = bool(todo) or pruned or notes != self._notes
        if fresh:
            self.contract["dimensions"] = int(next(iter(fresh.values())).shape[0])
        dim = self.contract["dimensions"] or 0
        rows = [fresh[h] if h in fresh else self._matrix[old_rows[h]] for h in used]
        self._matrix = np.stack(rows) if rows else np.zeros((0, dim), np.float32)
        self._hashes = used
        self._notes = notes
        row_of = {h: i for i, h in enumerate(used)}
        sec_rows = np.full(len(index.sec_note), -1, dtype=np.int64)
        for nid, hashes in note_hashes.items():
            for sid, digest in zip(index.note_sections(nid), hashes):
                sec_rows[sid] = row_of[digest]
        self._sec_rows = sec_rows
        self._last = None  # similarities of the old vectors
        self._generation = generation
        if changed:
            self._save()
        return {"embedded": len(todo), "pruned": pruned}

    # -- query -----------------------------------------------------------------------

    def query_coverage(self, text: str) -> float:
        """Share of the words of ``text`` the model knows as one whole vocabulary token.

        A word is a run of letters or digits; it counts when the model's tokenizer maps
        it to exactly one token that is not the unknown token. An English model sees a
        Korean or Chinese query as ``[UNK]`` or single-character pieces (0.0), Spanish
        prose about half-covered, an English question fully. 1.0 when the model has no
        tokenizer to ask (an injected test model). 0.0 for a query with no words.
        """
        tokenizer = getattr(self.model, "tokenizer", None)
        if tokenizer is None or not hasattr(tokenizer, "encode"):
            return 1.0
        words = _WORD.findall(text)
        if not words:
            return 0.0
        unknown = getattr(self.model, "unk_token_id", None)
        # One word at a time: encode_batch wakes the tokenizer's thread pool, which
        # cost milliseconds per query in the benchmark for a handful of words.
        encoded = [tokenizer.encode(word, add_special_tokens=False) for word in words]
        whole = sum(1 for e in encoded if len(e.ids) == 1 and e.ids[0] != unknown)
        return whole / len(words)

    def _section_sims(self, text: str):
        """Cosine similarity of ``text`` to every section (-2 for sections without a row)."""
        np = self._np
        last = self._last
        if last is not None and last[0] == text:
            return last[1]
        q = self.embed([text])[0]
        row_sims = self._matrix @ q
        valid = np.nonzero(self._sec_rows >= 0)[0]
        sims = np.full(len(self._sec_rows), -2.0, dtype=np.float32)
        sims[valid] = row_sims[self._sec_rows[valid]]
        self._last = (text, sims)
        return sims

    def _ready(self) -> bool:
        return self._matrix is not None and len(self._matrix) > 0 and self._sec_rows is not None

    def query(self, text: str, index, *, allowed=None, limit: int = 50) -> list[tuple]:
        """Notes by decreasing cosine similarity: ``[(nid, similarity, best_sid), ...]``."""
        np = self._np
        if not self._ready():
            return []
        sims = self._section_sims(text)
        pool = min(len(sims), max(SECTION_POOL, limit * 8))
        top = np.argpartition(-sims, pool - 1)[:pool] if pool < len(sims) else np.arange(len(sims))
        top = top[np.argsort(-sims[top], kind="stable")]
        out: list[tuple] = []
        seen = set()
        for sid in top.tolist():
            similarity = float(sims[sid])
            if similarity <= -2.0:
                break
            nid = index.sec_note[sid]
            if nid in seen:
                continue
            meta = index.notes[nid]
            if meta is None or (allowed is not None and not allowed(nid)):
                continue
            seen.add(nid)
            out.append((nid, similarity, sid))
            if len(out) >= limit:
                break
        return out

    def similarities(self, text: str, index, nids) -> dict[int, tuple[float, int]]:
        """``{nid: (similarity, best_sid)}`` of the given notes: their best section.

        Used to rerank the lexical candidates, which the nearest-neighbour pool of
        ``query`` may not reach; notes without an embedded section are left out.
        """
        if not self._ready():
            return {}
        sims = self._section_sims(text)
        out: dict[int, tuple[float, int]] = {}
        for nid in nids:
            sids = [sid for sid in index.note_sections(nid) if sims[sid] > -2.0]
            if sids:
                best = max(sids, key=lambda sid: float(sims[sid]))
                out[nid] = (float(sims[best]), best)
        return out
