"""``Mnemosyne``: the search engine over one vault.

It keeps an ``Index`` in memory, loaded lazily from the cache (a base block file and a
log of changes since, ``index_store``; docs/reference/index-format.md) and refreshed
incrementally: a stat pass (``discovery``) finds added, changed and deleted notes and
only those are re-parsed; a save logs just those. ``search`` checks the files at most
every ``refresh_interval`` seconds (2 s by default; longer, and off the search path, when
a pass is dear: ``freshness``) and takes other processes' saves from the log at once;
``refresh()`` forces a pass.

The engine never writes a note. It writes only its cache, atomically; a read-only
vault still searches (the cache is skipped with one warning).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import os
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .atomic import is_temp_name, remove_stale_temp_files
from .cache import CACHE_DIR, cache_dir
from .config import VaultConfig, load_config
from .diagnostics import Diagnostic
from .discovery import discover_stats
from .errors import (
    ConfigError,
    InvalidInputError,
    MnemosyneError,
    VaultNotFoundError,
)
from .freshness import (
    BACKGROUND_MIN,
    BackgroundPass,
    check_interval,
    read_pass_record,
    write_pass_record,
)
from .glossary import VAULT_GLOSSARY, Glossary, builtin_glossary, builtin_rows, parse_rows
from .index import BM25FParams, Index, IndexCorruptError
from .index_store import INDEX_FILE, INDEX_FORMAT, IndexStore
from .progress import ProgressCallback, phase
from .ranking import (
    NO_WORD_NOTE,
    RankingParams,
    defer_to_linked,
    plan_query,
    rank,
    verdict,
    weigh_translations,
)
from .redact import MARK_RE, Redactor, load_secret_hashes, lookup_mark
from .snippets import make_snippet
from .tokenizer import name_words, query_units, tokenize
from .vault_lock import VaultLock
from .vault_paths import ARCHIVE_DIR, check_zone, note_stem

__all__ = ["INDEX_FORMAT", "Mnemosyne"]

log = logging.getLogger("birkin_mnemosyne")

# Bump when tokenization or parsing changes what gets indexed.
# 13: notes keep their aliases (key resolution by alias); a chunk-opening "ー" joins the
# run after it
# 14: a hidden hex run's section holds its digest (``redact.lookup_term``)
RECIPE_VERSION = 14
MAX_LIMIT = 200
MAX_QUERY_CHARS = 4000
# Rebuilds of at least this many notes parse in worker processes.
PARALLEL_MIN = 2000
PARALLEL_BATCH = 250
MAX_WORKERS = 4
# A refresh with at least this many notes to parse takes the build lock: another
# process opening the vault meanwhile waits for its result instead of parsing them too.
BUILD_LOCK_MIN = 1000
# A background stat pass that finds more changed notes than this is followed by a
# full refresh (one stat pass and parse, with the build lock) instead.
PASS_CHANGES_MAX = 1000
# A full stat pass that took at least this long (seconds) is recorded for other
# processes to adopt (``freshness.PASS_RECORD``); a cheaper one is not worth a write.
SHARE_MIN = BACKGROUND_MIN
SEMANTIC_ENV = "MNEMOSYNE_SEMANTIC"
_TRUE = ("1", "true", "yes", "on")
# Lexical candidates handed to rank fusion (the hits are cut to `limit` after fusion).
FUSION_POOL = 50
# Redacted section texts kept for snippets (``Mnemosyne._section_text``).
_SECTION_TEXT_CACHE = 2048


# name (or prefix "w_"/"b_") -> (low, high, low excluded); others: finite and >= 0
_RANGES = {
    "k1": (0.0, None, True),
    "w_": (0.0, None, False),
    "b_": (0.0, 1.0, False),
    "stale_factor": (0.0, 1.0, True),
    "recency_half_life_days": (0.0, None, True),
    "current_half_life_days": (0.0, None, True),
    "prior_journal": (0.0, 1.0, True),
    "prior_index": (0.0, 1.0, True),
    "section_tie_share": (0.0, 1.0, False),
    "state_section_share": (0.0, 1.0, False),
    "state_journal_share": (0.0, 1.0, False),
    "kind_named_boost": (1.0, None, False),
    "absent_name_share": (0.0, 1.0, False),
    "absent_coverage": (0.0, 1.0, False),
    "absent_ratio": (0.0, 1.0, False),
    "high_coverage": (0.0, 1.0, False),
    "high_ratio": (0.0, 1.0, False),
    "part_coverage": (0.0, 1.0, True),
    "weak_coverage": (0.0, 1.0, False),
    "weak_ratio": (0.0, 1.0, False),
    "also_min_share": (0.0, 1.0, False),
    "full_min_share": (0.0, 1.0, False),
    "translated_full_share": (0.0, 1.0, False),
    "state_journal_units": (0.0, 1.0, False),
    "second_weight": (0.0, 1.0, False),
    "glossary_credit": (0.0, 1.0, False),
    "glossary_max_share": (0.0, 1.0, True),
}


def _live_paths(index: Index) -> Iterator[str]:
    """Paths of the live (not archived) notes, read from the columns (no row is built)."""
    archived = index.note_column("archived")
    return (
        path
        for path, gone in zip(index.note_column("path"), archived)
        if path is not None and not gone
    )


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat(timespec="seconds")


def _waiting_reporter(on_progress: ProgressCallback | None):
    """A ``(done, total)`` callback that reports another process's build as this one's
    ``index`` phase (``IndexStore`` build lock), or None without ``on_progress``."""
    if on_progress is None:
        return None
    current = {}

    def report(done: int, total: int) -> None:
        parsing = current.get("phase")
        if parsing is None or parsing.total != total:
            parsing = current["phase"] = phase(on_progress, "index", total)
        if done > parsing.done:
            parsing.advance(min(done, total) - parsing.done)

    return report


class Mnemosyne:
    """Search one vault. ``Mnemosyne(vault).search("restore database")``.

    ``index="postgresql://..."`` searches a team index instead of the vault's own
    (``team.engine.TeamEngine``; the vault gives the configuration).
    """

    def __new__(cls, *args, index: str | None = None, **kwargs):
        if index is not None and cls is Mnemosyne:
            from .team.engine import TeamEngine

            return super().__new__(TeamEngine)
        return super().__new__(cls)

    def __init__(
        self,
        vault: str | os.PathLike,
        *,
        refresh_interval: float = 2.0,
        usage_multiplier: Callable[[str, str], float] | None = None,
        usage_max: float = 1.0,
        clock: Callable[[], float] = time.time,
        ranking: dict | None = None,
        parallel: bool | None = None,
        semantic: bool | None = None,
        on_progress: ProgressCallback | None = None,
        index: str | None = None,
    ) -> None:
        if index is not None:  # ``__new__`` made a TeamEngine, which takes it itself
            raise InvalidInputError(
                f"{type(self).__name__} cannot search a team index; use Mnemosyne(vault, index=...)"
            )
        root = Path(os.path.expanduser(str(vault)))
        if not root.is_dir():
            raise VaultNotFoundError(
                f"vault not found: {root} — create the folder or pass the right --vault path"
            )
        self.vault = root.resolve()
        self._vault_str = str(self.vault)
        self.config: VaultConfig = load_config(self.vault)
        self.refresh_interval = refresh_interval
        self.usage_multiplier = usage_multiplier
        self.usage_max = usage_max  # the largest value usage_multiplier can return
        self.parallel = parallel  # None = decide by batch size; False = never
        self.clock = clock
        # Receives the index builds and refreshes (phases index, index-save) and the
        # vector builds (embed) this engine runs: progress.ProgressEvent values.
        self.on_progress = on_progress
        overrides = {**self.config.ranking, **(ranking or {})}
        self._check_overrides(overrides)
        self.bm25 = BM25FParams.from_overrides(overrides)
        self.ranking = RankingParams.from_overrides(overrides)
        self._redactor: Redactor | None = None
        self._index: Index | None = None
        self._keys: Counter | None = None  # stem (casefolded) -> live notes with it
        self._stem_text: str | None = None  # the live paths, casefolded, NUL-separated
        self._key_map: tuple[Counter, dict[str, str]] | None = None
        self._name_map: tuple[Counter, dict[str, tuple[str, ...]]] | None = None
        self._live_count: int | None = None
        self._last_scan: float | None = None  # monotonic time the last stat pass began
        self._checked_at: float | None = None  # wall time the last stat pass began
        self._scan_cost: float | None = None  # seconds the last stat pass took
        self._scan_cpu: float | None = None  # and CPU seconds
        self._scan: BackgroundPass | None = None  # a stat pass running off the search path
        self._temp_checked = False  # .mnemosyne/ searched for stale temporary files
        self._folder_problems: list[str] = []  # unreadable folders seen by the last scan
        self.warnings: list[str] = []  # engine-level (not per-file) warnings
        self._store = IndexStore(
            self.vault,
            recipe=self._recipe,
            warn=self._warn,
            clock=clock,
            clean_temp=lambda: self._clean_temp_files(self.vault / CACHE_DIR, locked=True),
        )
        # Opt-in hybrid retrieval: None reads $MNEMOSYNE_SEMANTIC. The semantic module
        # (and numpy, model2vec) is imported only once a search needs it.
        if semantic is None:
            semantic = os.environ.get(SEMANTIC_ENV, "").strip().lower() in _TRUE
        self.semantic = bool(semantic)
        self._semantic = None  # a SemanticIndex once loaded
        self._semantic_reason: str | None = None  # why hybrid search is off, if it is
        self._generation = 0  # bumped whenever the index changes
        self.fusion = None  # FusionParams; None = the defaults chosen on the benchmark
        # (stat stamp of .mnemosyne/glossary.txt, the glossary built with it)
        self._glossary: tuple[tuple | None, Glossary] | None = None
        # glossary terms looked up in the index: (generation, term -> present)
        # (index generation, glossary, term -> in the index, concept -> its forms' terms)
        self._glossary_known: tuple[int, object, dict, dict] = (-1, None, {}, {})
        self._section_texts: dict[tuple, str] = {}

    def close(self) -> None:
        """Release the open cache files (also done when the engine is garbage-collected)."""
        self._store.close()
        self._index = None
        self._scan = None  # a pass still running finishes on its own; its result is dropped

    def __enter__(self) -> Mnemosyne:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def _check_overrides(overrides: dict) -> None:
        valid = set(BM25FParams.__dataclass_fields__) | set(RankingParams.__dataclass_fields__)
        unknown = sorted(set(overrides) - valid)
        if unknown:
            raise InvalidInputError(
                f"unknown ranking setting(s) {', '.join(unknown)} — valid: {', '.join(sorted(valid))}",
                valid_choices=sorted(valid),
            )
        for name, value in overrides.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidInputError(f"ranking setting {name} must be a number, got {value!r}")
            low, high, low_open = _RANGES.get(
                name[:2] if name[:2] in ("w_", "b_") else name, (0.0, None, False)
            )
            if (
                not math.isfinite(value)
                or value < low
                or (low_open and value == low)
                or (high is not None and value > high)
            ):
                bound = f"more than {low}" if low_open else f"at least {low}"
                bound += f" and at most {high}" if high is not None else ""
                raise InvalidInputError(f"ranking setting {name} must be {bound}, got {value!r}")

    # -- plumbing --------------------------------------------------------------------

    @property
    def redactor(self) -> Redactor:
        """Built on first use; a configured but broken hash file fails closed here."""
        if self._redactor is None:
            hashes = None
            if self.config.secret_hashes is not None:
                hashes = load_secret_hashes(self.config.secret_hashes)
            self._redactor = Redactor(self.config.redaction_disabled, hashes)
        return self._redactor

    @property
    def cache_path(self) -> Path:
        return cache_dir(self.vault) / INDEX_FILE

    def _recipe(self) -> dict:
        return {
            "recipe": RECIPE_VERSION,
            "redaction": self.redactor.fingerprint,
            "type_rules": [list(rule) for rule in self.config.type_rules],
            "max_file_bytes": self.config.max_file_bytes,
        }

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            log.warning("%s", message)

    def _load(self) -> Index:
        if self._index is None:
            self._index = self._store.load()
            self._keys = self._live_count = self._stem_text = None
        return self._index

    def needs_build(self) -> bool:
        """Whether the next search builds the index from every note (none on disk, or of
        another format or recipe) rather than loading it. Reads only the stored index:
        a caller with a short time budget (a Claude Code hook) asks before searching."""
        self._follow(self._load())
        return self._store.needs_base or not self.cache_path.exists()

    def _save(self, index: Index) -> Index:
        saved = self._store.save(index)
        if self._store.damaged is not None:
            # A merge met a damaged postings block: rebuild, as a search that meets one.
            self._warn(f"rebuilding the search index: cache is damaged ({self._store.damaged})")
            self._store.damaged = None
            self.refresh(full=True)
            return self._index
        if saved is not index:  # another process replaced the cache: ours was re-read
            self._index = saved
            self._changed()
        return saved

    def _follow(self, index: Index) -> Index:
        """Take other processes' saves from the index log (one stat when there are none)."""
        fresh, changed = self._store.sync(index)
        if changed:
            self._index = fresh
            self._changed(self._store.moved if fresh is index else None)
        return fresh

    def _changed(self, moved: tuple[list[str], list[str]] | None = None) -> None:
        """The index changed: what is derived from it is worked out again.

        ``moved`` = (paths of live notes that left, of live notes that came): then the
        stem counts and the live count are updated instead of recounted (a recount is
        a pass over every note, ~0.2 s at 100k notes, on the next search).
        """
        self._generation += 1
        self._key_map = self._name_map = self._stem_text = None
        if moved is None or self._keys is None or self._live_count is None:
            self._keys = self._live_count = None
            return
        leaving, coming = moved
        counts = self._keys
        for path in leaving:
            stem = note_stem(path).casefold()
            counts[stem] -= 1
            if counts[stem] <= 0:
                del counts[stem]
        for path in coming:
            counts[note_stem(path).casefold()] += 1
        self._live_count += len(coming) - len(leaving)

    @property
    def _built_at(self) -> float | None:
        return self._store.built_at

    @property
    def _updated_at(self) -> float | None:
        return self._store.updated_at

    def _clean_temp_files(self, where: Path | list, *, locked: bool = False) -> None:
        """Delete stale temporary files of interrupted writes (``atomic``) in ``where``.

        ``where`` is a folder under ``.mnemosyne/`` (searched to the bottom) or a list
        of candidate files. Unless ``locked`` (the caller holds the lock their writers
        hold), this takes the writer lock without waiting, and skips when it is busy.
        """
        if isinstance(where, Path):
            candidates = [
                os.path.join(folder, name)
                for folder, _, names in os.walk(where)
                for name in names
                if is_temp_name(name)
            ]
        else:
            candidates = where
        if not candidates:
            return
        lock = None if locked else VaultLock(self.vault, timeout=0)
        try:
            if lock is not None:
                lock.acquire()
        except (MnemosyneError, OSError):
            return  # a writer is busy (or the vault is read-only): next time
        try:
            removed = remove_stale_temp_files(candidates)
        finally:
            if lock is not None:
                lock.release()
        if removed:
            log.info("removed %d stale temporary file(s) of interrupted writes", len(removed))

    # -- refresh ---------------------------------------------------------------------

    def refresh(
        self,
        *,
        full: bool = False,
        paths: Iterable[str] | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict:
        """Bring the index up to date with the files; returns what changed.

        ``paths`` limits the pass to those vault-relative paths (what a writer just
        touched): the index reflects a write at once without a stat of every file.
        ``on_progress`` (default: the engine's) receives the phase ``index`` (notes
        parsed) when any note is to be parsed, then ``index-save`` when the cache is
        written. Many notes to parse (a build) take the build lock; a process that finds
        it taken waits for that build (``on_progress`` then reports the builder's
        ``index`` phase) and reads its result instead of parsing the same notes.
        """
        on_progress = self.on_progress if on_progress is None else on_progress
        try:
            return self._refresh(full, paths, on_progress)
        except IndexCorruptError as exc:
            if full:
                raise
            # A note column chunk read by the comparison with the files is damaged.
            self._warn(f"rebuilding the search index: cache is damaged ({exc})")
            return self._refresh(True, None, on_progress)

    def _refresh(
        self, full: bool, paths: Iterable[str] | None, on_progress: ProgressCallback | None
    ) -> dict:
        started = time.perf_counter()
        if full:
            self._index = Index()
            self._store.start_full()
            self._changed()
        index = self._load()
        if not full:
            index = self._follow(index)
        scope = None
        if paths is not None:
            scope = set(paths) | self._store.recheck
            self._store.recheck.clear()
            on_disk = self._stat_paths(scope)
        else:
            on_disk = self._stat_pass()
        deleted, changed, added = self._diff(index, on_disk, scope)
        builder = None
        if full or len(changed) + len(added) >= BUILD_LOCK_MIN:
            builder = self._store.build_lock()
            if not builder.try_acquire():
                if full:
                    builder = None  # asked to rebuild: do it, without the lock
                else:
                    if not builder.wait(_waiting_reporter(on_progress)):
                        builder = None  # the builder stalled: build here too
                    # Its result is on disk now: read it, look at the files again.
                    index = self._follow(self._load())
                    if scope is None:
                        on_disk = self._stat_pass()
                    deleted, changed, added = self._diff(index, on_disk, scope)
            elif not full:
                index = self._follow(index)  # a build that ended before we took the lock
                deleted, changed, added = self._diff(index, on_disk, scope)
        try:
            todo = sorted(changed + added)
            store = self._store
            notes, by_path = index.notes, index.by_path
            leaving = [
                p for p in deleted + changed if p in by_path and not notes[by_path[p]]["archived"]
            ]
            coming = []
            for path in deleted:
                index.remove(path)
                store.noted_removed(path)
            with phase(on_progress if todo else None, "index", len(todo)) as parsing:
                for done, doc in enumerate(self._parse(todo), 1):
                    index.add(doc)
                    store.noted_added(doc)
                    if not doc.archived:
                        coming.append(doc.path)
                    parsing.advance()
                    if builder is not None:
                        builder.progress(done, len(todo))
            if deleted or todo or full:
                self._changed(None if full else (leaving, coming))
            if deleted or todo or full or store.needs_base or not self.cache_path.exists():
                with phase(on_progress, "index-save", 1) as saving:
                    index = self._save(index)
                    saving.advance()
        finally:
            if builder is not None:
                builder.release()
        if scope is None:
            self._share_pass()
        return {
            "added": len(added),
            "changed": len(changed),
            "deleted": len(deleted),
            "notes": index.live_notes,
            "seconds": round(time.perf_counter() - started, 3),
        }

    def _stat_pass(self) -> dict[str, tuple[int, int]]:
        """Stat every note (and clean up stale temporary files): path -> (mtime_ns, size)."""
        problems: list[str] = []
        temp_files: list[str] = []
        began, checked, cpu = time.monotonic(), self.clock(), time.thread_time()
        on_disk = discover_stats(
            self.vault, include_archive=True, problems=problems, temp_files=temp_files
        )
        self._scan_cost = time.monotonic() - began
        self._scan_cpu = time.thread_time() - cpu
        self._last_scan, self._checked_at = began, checked
        self._folder_problems = problems
        if not self._temp_checked:
            # Once per engine, the state folders too (discovery skips hidden ones).
            self._temp_checked = True
            temp_files += [
                os.path.join(folder, name)
                for folder, _, names in os.walk(self.vault / ".mnemosyne")
                for name in names
                if is_temp_name(name)
            ]
        self._clean_temp_files(temp_files)
        return on_disk

    @staticmethod
    def _diff(
        index: Index, on_disk: dict[str, tuple[int, int]], scope: set[str] | None
    ) -> tuple[list[str], list[str], list[str]]:
        """(deleted, changed, added) paths: the index against the files (within ``scope``)."""
        if scope is None:
            indexed = index.note_stats()  # from the columns: no note row is built
        else:
            indexed = {}
            for path in scope:
                nid = index.by_path.get(path)
                if nid is not None:
                    meta = index.notes[nid]
                    indexed[path] = (meta["mtime_ns"], meta["size"])
        if indexed == on_disk:
            return [], [], []  # nothing changed: one comparison, in C
        deleted = [p for p in indexed if p not in on_disk]
        changed = [p for p, st in on_disk.items() if p in indexed and indexed[p] != st]
        added = [p for p in on_disk if p not in indexed]
        return deleted, changed, added

    def _stat_paths(self, paths: set[str]) -> dict[str, tuple[int, int]]:
        """Stat named notes the way discovery would (links and hidden parts excluded)."""
        from .vault_paths import check_note_path

        found = {}
        for path in paths:
            try:
                check_note_path(path, allow_archive=True)
            except MnemosyneError:
                continue
            full = self.vault / path
            try:
                if any(p.is_symlink() for p in [full, *full.parents] if self.vault in p.parents):
                    continue
                st = full.stat(follow_symlinks=False)
            except OSError:
                continue
            if not full.is_file():
                continue
            found[path] = (st.st_mtime_ns, st.st_size)
        return found

    def _parse(self, paths: list[str]):
        """Parsed notes in ``paths`` order; large batches are parsed by worker processes.

        Parsing (tokenizing, redacting) is most of an index build and is independent
        per note, so past ``PARALLEL_MIN`` notes it is spread over the machine's cores
        while this process merges the results into the index. The workers are fresh
        ``python -m birkin_mnemosyne.parse_workers`` processes (``parse_workers``): they
        never import the caller's ``__main__``, so an unguarded script, ``python -``,
        a notebook all work; a frozen app parses here. A worker failure costs one
        warning and the rest is parsed here.
        """
        from .document import read_note
        from .parse_workers import parse_in_workers, workers_available

        config = self.config
        redactor = self.redactor

        def parse_one(path: str):
            return read_note(
                self.vault,
                path,
                redactor=redactor,
                type_rules=config.type_rules,
                max_file_bytes=config.max_file_bytes,
            )

        workers = min(os.cpu_count() or 1, MAX_WORKERS, -(-len(paths) // PARALLEL_BATCH))
        if (
            len(paths) < PARALLEL_MIN
            or workers < 2
            or self.parallel is False
            or not workers_available()
        ):
            for path in paths:
                yield parse_one(path)
            return
        hashes = config.secret_hashes
        options = {
            "root": str(self.vault),
            "redaction_disabled": list(config.redaction_disabled),
            "secret_hashes": os.path.abspath(hashes) if hashes else None,
            "type_rules": [list(rule) for rule in config.type_rules],
            "max_file_bytes": config.max_file_bytes,
        }
        yield from parse_in_workers(
            paths,
            options=options,
            workers=workers,
            batch_size=PARALLEL_BATCH,
            parse_one=parse_one,
            warn=self._warn,
        )

    def _maybe_refresh(self) -> None:
        """Before a search: other processes' saves, then the files, when due.

        Other processes' saves are read from the index log on every call (one stat).
        The files are stat'ed at most every ``check_interval``: inline when that pass is
        cheap, else in a background thread whose findings a later call applies (only
        the notes whose stat changed are read). See ``freshness``.
        """
        if self._index is None or self._last_scan is None:
            if not self._adopt_recent_pass():
                self.refresh()
            return
        self._follow(self._index)
        scan = self._scan
        if scan is not None and scan.done.is_set():
            self._scan = None
            self._take_pass(scan)
        if self._store.recheck:
            self.refresh(paths=())
        if time.monotonic() - self._last_scan < self._check_interval():
            return
        cost = self._scan_cost
        if self.refresh_interval <= 0 or cost is None or cost < BACKGROUND_MIN:
            self.refresh()  # cheap (or asked for on every search): inline, as it was
        elif self._scan is None:
            self._scan = BackgroundPass(self.vault, self._index.note_stats(), clock=self.clock)

    def _adopt_recent_pass(self) -> bool:
        """Take another process's recent pass as this engine's first (``freshness``):
        when it began within the check interval, its findings are in the index."""
        if self.refresh_interval <= 0:
            return False
        record = read_pass_record(cache_dir(self.vault))
        if record is None:
            return False
        seconds, cpu = float(record["seconds"]), record["cpu"]
        cpu = None if cpu is None else float(cpu)
        age = self.clock() - float(record["checked_at"])
        if not 0.0 <= age < check_interval(self.refresh_interval, seconds, cpu):
            return False
        index = self._follow(self._load())
        if self._store.needs_base or not self.cache_path.exists() or not index.live_notes:
            return False  # no index on disk to vouch for (a first build, a new format)
        self._last_scan, self._checked_at = time.monotonic() - age, float(record["checked_at"])
        self._scan_cost, self._scan_cpu = seconds, cpu
        self._folder_problems = list(record["problems"])
        return True

    def _share_pass(self) -> None:
        """After a dear pass whose findings are indexed and saved: record it for others."""
        cost = self._scan_cost
        if cost is None or cost < SHARE_MIN or self._checked_at is None:
            return
        write_pass_record(
            cache_dir(self.vault),
            self._checked_at,
            cost,
            self._scan_cpu,
            self._folder_problems,
            root=self.vault,
        )

    def _check_interval(self) -> float:
        return check_interval(self.refresh_interval, self._scan_cost, self._scan_cpu)

    def _take_pass(self, scan: BackgroundPass) -> None:
        """Apply what a background stat pass found."""
        if scan.error is not None:
            log.info("background stat pass failed (%r); the next one runs inline", scan.error)
            self._scan_cost = self._scan_cpu = None
            return
        if self._last_scan is not None and scan.started < self._last_scan:
            return  # an inline pass began after it: nothing it can add
        self._last_scan, self._checked_at = scan.started, scan.checked_at
        self._scan_cost, self._scan_cpu = scan.seconds, scan.cpu_seconds
        self._folder_problems = scan.problems
        self._clean_temp_files(scan.temp_files)
        if len(scan.changed) > PASS_CHANGES_MAX:
            self.refresh()  # a big change: one full pass, with the build lock
            return
        if scan.changed:
            self.refresh(paths=scan.changed)
        self._share_pass()

    @property
    def index(self) -> Index:
        """The up-to-date index (refreshing if the last scan is older than the interval)."""
        self._maybe_refresh()
        return self._index

    # -- keys ------------------------------------------------------------------------

    def _stem_counts(self, index: Index | None = None) -> Counter:
        """Live notes per stem, of ``index`` (default: the up-to-date index)."""
        index = self.index if index is None else index
        if self._keys is None:
            self._keys = Counter(note_stem(path).casefold() for path in _live_paths(index))
        return self._keys

    def keys(self) -> dict[str, str]:
        """path -> key for every live (non-archived) note (the same dict until a change).

        The key is the file-name stem when no other live note shares it (compared
        case-insensitively), else the relative path without ``.md``.
        """
        counts = self._stem_counts()
        if self._key_map is None or self._key_map[0] is not counts:
            mapping = {path: self._key(path, counts) for path in _live_paths(self.index)}
            self._key_map = (counts, mapping)
        return self._key_map[1]

    def note_names(self) -> dict[str, tuple[str, ...]]:
        """path -> (title, *aliases) of every indexed note, archived ones included (the
        same dict until a change): the names key resolution accepts after path and key.

        Titles and aliases are the redacted ones the index holds, so a note is never
        found by a secret in its title.
        """
        counts = self._stem_counts()  # a new Counter after every change of the index
        if self._name_map is None or self._name_map[0] is not counts:
            index = self.index
            names = {
                path: (title, *aliases)
                for path, title, aliases in zip(
                    index.note_column("path"),
                    index.note_column("title"),
                    index.note_column("aliases"),
                )
                if path is not None
            }
            self._name_map = (counts, names)
        return self._name_map[1]

    @staticmethod
    def _key(path: str, counts: Counter) -> str:
        stem = note_stem(path)
        return stem if counts[stem.casefold()] == 1 else path[:-3]

    def key_of(self, path: str, *, index: Index | None = None) -> str:
        """The key of ``path``; ``index`` pins the index it is computed over (no refresh)."""
        if path.startswith(ARCHIVE_DIR + "/"):
            return path[:-3]
        stem = note_stem(path)
        return stem if self._stem_count(stem.casefold(), index) == 1 else path[:-3]

    def _stem_count(self, stem: str, index: Index | None = None) -> int:
        """Live notes whose stem, casefolded, is ``stem``. From the stem counts when they
        are at hand, else by counting it in the live paths joined into one string: a
        search's few keys cost two C-level scans, not a count of every note's stem."""
        if self._keys is not None:
            return self._keys[stem]
        index = self.index if index is None else index
        text = self._stem_text
        if text is None:
            text = self._stem_text = "\0" + "\0".join(_live_paths(index)).casefold() + "\0"
        return text.count(f"/{stem}.md\0") + text.count(f"\0{stem}.md\0")

    # -- search ----------------------------------------------------------------------

    def search(self, query: str, limit: int = 8, **options) -> list[dict]:
        """The hits of ``search_response`` (one per note, best first)."""
        return self.search_response(query, limit, **options)["hits"]

    def search_response(
        self,
        query: str,
        limit: int | None = 8,
        *,
        zone: str | None = None,
        labels: Iterable[str] | None = None,
        include_archive: bool = False,
        expansions: dict | None = None,
        exact: bool = False,
        repos: Iterable[str] | None = None,
    ) -> dict:
        """Search the vault; returns the shared search shape (see DESIGN.md).

        ``limit=None`` returns every match of an ``exact`` search (past ``MAX_LIMIT``).
        ``repos`` keeps the notes of those repositories of a team index (``team``).
        """
        if not isinstance(query, str):
            raise InvalidInputError(f"the query must be a string, got {type(query).__name__}")
        if not query.strip():
            raise InvalidInputError("the query is empty — pass the words to look for")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInputError(
                f"the query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,} — shorten it"
            )
        if limit is None and not exact:
            raise InvalidInputError(
                f"limit=None (every match) is for exact=True searches: a ranked search "
                f"returns the best matches, at most {MAX_LIMIT}"
            )
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT
        ):
            raise InvalidInputError(
                f"{{=limit}} must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}"
            )
        if expansions is not None:
            self._check_expansions(expansions)
        zone = check_zone(zone) if zone else None
        if labels:
            from .labels import parse_label_filter

            required_labels = parse_label_filter(labels)
        else:
            required_labels = []
        repos = self.check_repos(repos)
        index = self.index
        allowed = self._note_filter(index, zone, required_labels, include_archive, repos)
        # Echoed in the response (which may be logged) and read by the verdict, which
        # names query words back: both from the redacted query, redacted once.
        redacted_query = self.redactor.redact(query)

        hybrid = self._semantic_index() if not exact else None
        for attempt in range(2):
            try:
                # Compound splitting looks words up in the index, so it may meet a
                # damaged block too.
                units, hidden = ([], {}) if exact else self.query_units(query, index)
                plan = plan_query(
                    units,
                    index,
                    expansions=expansions,
                    expansion_units=query_units,
                    translations=self._translations(units, index),
                    # from the redacted query: the verdict names these words back
                    names=name_words(MARK_RE.sub(" ", redacted_query)) | hidden,
                    params=self.ranking,
                )
                self._before_scoring(index, plan.terms)
                scores = [index.term_scores(term, self.bm25) for term in plan.terms]
                weigh_translations(plan, scores)
                if exact or not plan.units:
                    # A literal, or a query of stopwords only (they are not indexed).
                    ranked, signals_verdict, term_weights = self._exact(
                        index, query, limit, allowed
                    )
                else:
                    ranked = rank(
                        index,
                        plan,
                        scores,
                        limit=max(limit, FUSION_POOL) if hybrid is not None else limit,
                        params=self.ranking,
                        allowed=allowed,
                        multiplier=self._multiplier(index),
                        multiplier_max=self.usage_max,
                        today=self.clock(),
                    )
                    ranked = defer_to_linked(
                        index,
                        plan,
                        scores,
                        self.ranking,
                        ranked,
                        lambda nid, sid, index=index: self._section_text(index, nid, sid),
                    )
                    signals_verdict = verdict(
                        plan, scores, ranked[0] if ranked else None, params=self.ranking
                    )
                    term_weights = {
                        t: (ts.idf or 0.1) * w for t, ts, w in zip(plan.terms, scores, plan.weights)
                    }
                provenance: dict[int, str] = {}
                if hybrid is not None:
                    ranked, signals_verdict, provenance = self._fuse(
                        hybrid, index, query, ranked, signals_verdict, limit, allowed
                    )
                hits = [self._hit(index, note, term_weights, provenance) for note in ranked]
                break
            except IndexCorruptError as exc:
                if attempt:
                    raise
                # A damaged postings block or column chunk (note rows and headings are
                # read when first used, by ranking too): rebuild once, then answer from
                # the new index.
                self._warn(f"rebuilding the search index: cache is damaged ({exc})")
                self.refresh(full=True)
                index = self._index
                allowed = self._note_filter(index, zone, required_labels, include_archive)
        weak = signals_verdict["no_strong_match"]
        note = signals_verdict.get("absence_note")
        if not ranked and allowed is not None:
            # Nothing found: say so when it is the filter that leaves no note at all,
            # and name the filter where the verdict speaks of the whole vault.
            empty = self._empty_filter_note(index, allowed, zone, required_labels, repos)
            if empty is not None:
                note = empty
            elif note == NO_WORD_NOTE and (zone is not None or required_labels):
                where = f" in zone '{zone}'" if zone is not None else ""
                if required_labels:
                    where += " with the labels " + ", ".join(f"'{x}'" for x in required_labels)
                note = f"no note{where} holds any word of the query"
        signals = signals_verdict["signals"]
        if hybrid is not None:
            mode, reason = "hybrid", None
        elif self.semantic and exact:
            mode, reason = "lexical", "an exact search matches literally; semantic ranking is off"
        else:
            mode, reason = "lexical", self._semantic_reason if self.semantic else None
        return {
            # Echoed redacted: a response may be logged, and a query can hold a secret.
            "query": redacted_query,
            "mode": mode,
            "degraded_reason": reason,
            "hits": [] if weak else hits,
            "no_strong_match": weak,
            "confidence": signals_verdict.get("confidence", "low" if weak else "medium"),
            "absence_note": note,
            "best_weak": hits[:3] if weak else [],
            "signals": signals,
            "index": self.freshness(),
        }

    # -- cross-language glossary ------------------------------------------------------

    def _before_scoring(self, index: Index, terms: list[str]) -> None:
        """Called with the terms a search is about to score (a team index fetches their
        postings in one round trip here); nothing for a local index."""

    @property
    def glossary(self) -> Glossary:
        """The built-in glossary plus the vault's own ``.mnemosyne/glossary.txt``.

        The vault's file is read again when it changes. A file that cannot be read or
        parsed is left out with a warning: search goes on with the built-in rows.
        """
        path = self.vault / VAULT_GLOSSARY
        try:
            info = path.stat()
            stamp: tuple | None = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        if self._glossary is not None and self._glossary[0] == stamp:
            return self._glossary[1]
        glossary = builtin_glossary()
        if stamp is not None:
            try:
                rows = parse_rows(path.read_text(encoding="utf-8"), str(path))
                glossary = Glossary.from_rows([*builtin_rows(), *rows])
            except (OSError, UnicodeDecodeError, ConfigError) as exc:
                self._warn(f"the vault glossary is left out: {exc}")
        self._glossary = (stamp, glossary)
        return glossary

    def query_units(self, text: str, index: Index) -> tuple[list[tuple[str, ...]], dict]:
        """The query units of ``text`` (``tokenizer.query_units``), and the names of the
        hidden values among them.

        A value redaction hides but keeps findable (a run id, a commit id:
        ``redact.LOOKUP_FAMILIES``) is not read as words: it becomes one unit, the digest
        term its sections hold, named by its mark ("[REDACTED:hex]") for the verdict.
        """
        lookups = self.redactor.lookups(text) if len(text) >= 32 else []
        if not lookups:
            return query_units(text, known=index.has_term), {}
        pieces, names, last = [], {}, 0
        for start, end, term in lookups:
            pieces.append(text[last:start])
            names[term] = lookup_mark(term)
            last = end
        pieces.append(text[last:])
        units = query_units(" ".join(pieces), known=index.has_term)
        return units + [(term,) for term in names], names

    def _translations(self, units: list[tuple[str, ...]], index: Index) -> list | None:
        if not units or self.ranking.w_glossary <= 0:
            return None
        glossary = self.glossary
        generation, owner, memo, concepts = self._glossary_known
        if (
            generation != self._generation
            or owner is not glossary
            or len(memo) > 100_000
            or len(concepts) > 20_000
        ):
            memo, concepts = {}, {}
            self._glossary_known = (self._generation, glossary, memo, concepts)

        def known(term: str) -> bool:
            # A concept's forms sit in many postings blocks: remembering the answers
            # saves decompressing those blocks again on the next query.
            found = memo.get(term)
            if found is None:
                found = memo[term] = index.has_term(term)
            return found

        return glossary.translations(units, known, memo=concepts)

    # -- semantic (opt-in) -------------------------------------------------------------

    @property
    def mode(self) -> str:
        """``hybrid`` when semantic search is on and ready, else ``lexical``."""
        return "hybrid" if self._semantic_index() is not None else "lexical"

    def use_semantic(self, on: bool = True) -> None:
        """Turn hybrid retrieval on or off for this engine (as ``semantic=`` does)."""
        self.semantic = bool(on)

    def _semantic_index(self):
        """The ready SemanticIndex, or None (with ``_semantic_reason`` saying why)."""
        if not self.semantic:
            return None
        if self._semantic is None and self._semantic_reason is None:
            from . import semantic

            reason = semantic.missing_extra()
            if reason is None and semantic.prepared_model(self.vault) is None:
                reason = f"semantic search is on but no model is prepared — {semantic.PREPARE_HINT}"
            if reason is None:
                try:
                    self._semantic = semantic.SemanticIndex(self.vault)
                except (OSError, ValueError) as exc:
                    reason = (
                        f"semantic search is on but the prepared model does not load ({exc}) — "
                        f"{semantic.PREPARE_HINT}"
                    )
            if reason is not None:
                self._semantic_reason = f"{reason}; searching lexical-only"
                log.warning("%s", self._semantic_reason)
        if self._semantic is not None:
            index = self.index
            self._semantic.sync(
                index,
                self._generation,
                lambda nid: self._embed_texts(index, nid),
                on_progress=self.on_progress,
            )
            for message in self._semantic.warnings:
                self._warn(message)
        return self._semantic

    def _embed_texts(self, index: Index, nid: int) -> list[str] | None:
        """What is embedded for each section of a note: its context, then its text."""
        from .document import decode_note

        meta = index.notes[nid]
        data = self._read(meta["path"])
        if data is None or len(data) != meta["size"]:
            return None  # gone or changed since it was indexed; the next refresh catches up
        text = decode_note(data)[0]
        offset = meta.get("body_offset") or 0
        title = str(meta["title"] or "")
        out = []
        for sid in index.note_sections(nid):
            heading = index.sec_heading[sid]
            context = f"{title} > {heading}" if heading and heading != title else title
            body = text[offset + index.sec_start[sid] : offset + index.sec_end[sid]]
            out.append(self.redactor.redact(f"{context}\n{body}"))
        return out

    def _fuse(self, hybrid, index, query, ranked, signals_verdict, limit, allowed):
        from dataclasses import replace

        from .fusion import FusionParams, fuse, semantic_share
        from .ranking import RankedNote

        params = self.fusion or FusionParams()
        # The index may have been rebuilt since the search began (a damaged block).
        hybrid.sync(index, self._generation, lambda nid: self._embed_texts(index, nid))
        neighbours = hybrid.query(query, index, allowed=allowed, limit=FUSION_POOL)
        candidates = hybrid.similarities(query, index, [note.nid for note in ranked])
        coverage = hybrid.query_coverage(query)
        fused = fuse(
            [(note.nid, note.full, note.score) for note in ranked],
            [(nid, similarity) for nid, similarity, _ in neighbours],
            limit=limit,
            params=params,
            candidates={nid: similarity for nid, (similarity, _) in candidates.items()},
            coverage=coverage,
        )
        lexical = {note.nid: note for note in ranked}
        semantic = {nid: (similarity, sid) for nid, similarity, sid in neighbours}
        out = []
        for item in fused:
            if item.nid in lexical:
                out.append(replace(lexical[item.nid], score=item.score))
            else:
                similarity, sid = semantic[item.nid]
                out.append(RankedNote(item.nid, item.score, 0.0, False, sid, [], similarity))
        best = neighbours[0][1] if neighbours else 0.0
        verdict_out = dict(signals_verdict)
        verdict_out["signals"] = {
            **signals_verdict["signals"],
            "semantic_best": round(best, 4),
            # how much of the query the model knows, and the weight that gave its leg
            "semantic_coverage": round(coverage, 4),
            "semantic_weight": round(semantic_share(coverage, params), 4),
        }
        if (
            signals_verdict["no_strong_match"]
            and params.strong is not None
            and best >= params.strong
        ):
            verdict_out["no_strong_match"] = False
            verdict_out["absence_note"] = None
        return out, verdict_out, {item.nid: item.provenance for item in fused}

    @staticmethod
    def _check_expansions(expansions: dict) -> None:
        from .ranking import EXPANSION_TIERS

        if not isinstance(expansions, dict):
            raise InvalidInputError("expansions must be an object of tier -> list of strings")
        unknown = sorted(set(expansions) - set(EXPANSION_TIERS))
        if unknown:
            raise InvalidInputError(
                f"unknown expansion tier(s) {', '.join(unknown)} — valid: {', '.join(EXPANSION_TIERS)}",
                valid_choices=EXPANSION_TIERS,
            )

    def check_repos(self, repos) -> frozenset[str] | None:
        """``repos`` as a set (None for no filter); a local index has no repositories."""
        if repos is None:
            return None
        if isinstance(repos, str) or not all(isinstance(r, str) for r in repos):
            raise InvalidInputError(
                f"repos must be a list of repository names, got {repos!r}",
                fix="pass e.g. ['platform']",
            )
        wanted = frozenset(r.strip().strip("/") for r in repos if r.strip())
        if not wanted:
            return None
        if not getattr(self, "index_url", None):
            raise InvalidInputError(
                "repos filters a team index's repositories; this vault's own index has none "
                "— search with --index URL, or filter by zone instead"
            )
        return wanted

    def _note_filter(self, index, zone, required_labels, include_archive, repos=None):
        if zone is None and not required_labels and include_archive and not repos:
            return None
        notes = index.notes
        if required_labels:
            from .labels import matches_labels

        def allowed(nid: int) -> bool:
            meta = notes[nid]
            if meta is None or (meta["archived"] and not include_archive):
                return False
            if repos and meta["path"].split("/", 1)[0] not in repos:
                return False
            if zone is not None:
                # Folder names may be NFD on disk (macOS); the filter is NFC.
                note_zone = unicodedata.normalize("NFC", meta["zone"])
                if not (note_zone == zone or note_zone.startswith(zone + "/")):
                    return False
            return not required_labels or matches_labels(meta["labels"] or [], required_labels)

        return allowed

    def _empty_filter_note(self, index, allowed, zone, required_labels, repos=None) -> str | None:
        """Why a filtered search found nothing, when no live note passes the filter at
        all (a zone that does not exist, labels no note carries); else None."""
        if any(allowed(nid) for nid in index.live_note_ids()):
            return None
        if repos:
            held = {p.split("/", 1)[0] for p in index.by_path}
            if not held & repos:
                shown = ", ".join(sorted(held)[:12])
                return f"no note is in repository {', '.join(sorted(repos))}" + (
                    f" (the repositories are: {shown})" if held else ""
                )
        if zone is not None:
            in_zone = self._note_filter(index, zone, [], True)
            if not any(in_zone(nid) for nid in index.live_note_ids()):
                # read from the columns: no row is built for the notes listed
                folders = (
                    unicodedata.normalize("NFC", folder).split("/", 1)[0]
                    for folder, gone in zip(
                        index.note_column("zone"), index.note_column("archived")
                    )
                    if folder is not None and not gone
                )
                zones = sorted(set(folders) - {""})
                shown = ", ".join(zones[:12]) + (", ..." if len(zones) > 12 else "")
                return f"no note is in zone '{zone}'" + (
                    f" (the zones are: {shown})" if zones else ""
                )
        if required_labels:
            where = f" in zone '{zone}'" if zone is not None else ""
            wanted = ", ".join(f"'{label}'" for label in required_labels)
            return f"no note{where} has the labels {wanted}"
        if zone is not None:
            return f"every note in zone '{zone}' is archived (include the archive to search them)"
        return None

    def _multiplier(self, index: Index):
        usage = self.usage_multiplier
        if usage is None:
            return None
        notes = index.notes

        def multiplier(nid: int) -> float:
            meta = notes[nid]
            return usage(meta["path"], meta["zone"])

        return multiplier

    def _exact(self, index: Index, literal: str, limit: int | None, allowed):
        """Literal, case-insensitive substring search (error strings, paths, ids)."""
        from .document import index_terms
        from .ranking import RankedNote

        needle = literal.casefold()
        words = literal.split()
        inner_terms = index_terms(" ".join(words[1:-1])) if len(words) > 2 else []
        candidates = index.sections_with_all(sorted(set(inner_terms))) if inner_terms else None
        if candidates is None:
            candidate_notes = [nid for nid in index.live_note_ids()]
        else:
            candidate_notes = sorted({index.sec_note[sid] for sid in candidates})
        term_weights = {t: 1.0 for t in tokenize(literal)}
        ranked: list[RankedNote] = []
        for nid in candidate_notes:
            if allowed is not None and not allowed(nid):
                continue
            meta = index.notes[nid]
            if meta is None or not meta.get("indexed", True) or not index.note_count[nid]:
                continue
            body = self._body(meta["path"])
            if body is None:
                continue
            folded = body.casefold()
            if needle not in folded and needle not in str(meta["title"]).casefold():
                continue
            sids = [
                sid
                for sid in index.note_sections(nid)
                if needle in body[index.sec_start[sid] : index.sec_end[sid]].casefold()
            ]
            best = sids[0] if sids else index.note_first[nid]
            count = folded.count(needle)
            ranked.append(RankedNote(nid, float(count), float(count), True, best, sids[1:3], 1.0))
        ranked.sort(key=lambda n: (-n.score, index.notes[n.nid]["path"]))
        ranked = ranked[:limit]
        signals = {
            "no_strong_match": not ranked,
            "confidence": "high" if ranked else "low",
            "absence_note": None if ranked else "no note contains this text",
            "signals": {
                "top_coverage": 1.0 if ranked else 0.0,
                "vault_coverage": 1.0 if ranked else 0.0,
                "top_ratio": 1.0 if ranked else 0.0,
            },
        }
        return ranked, signals, term_weights

    def _read(self, path: str) -> bytes | None:
        """A note's bytes as they are now, None when it cannot be read."""
        try:
            return (self.vault / path).read_bytes()
        except OSError:
            return None

    def _body(self, path: str) -> str | None:
        from .document import redacted_body

        data = self._read(path)
        return None if data is None else redacted_body(data, self.redactor)

    def _section_text(self, index: Index, nid: int, sid: int) -> str | None:
        """The redacted text of one section, as the file holds it now.

        Redacted section texts are remembered by the file's (mtime, size) and the
        section's offsets: a hit shown again costs a stat, not a read and a redaction.
        """
        meta = index.notes[nid]
        try:
            # os.path over pathlib: this runs for every hit of every search.
            info = os.stat(os.path.join(self._vault_str, meta["path"]))
        except OSError:
            return None
        key = (
            self.redactor.fingerprint,
            meta["path"],
            info.st_mtime_ns,
            info.st_size,
            index.sec_start[sid],
            index.sec_end[sid],
            index.sec_heading[sid],
        )
        cache = self._section_texts
        text = cache.get(key)
        if text is None:
            text = self._read_section(index, nid, sid)
            if text is not None:
                cache[key] = text
                if len(cache) > _SECTION_TEXT_CACHE:
                    cache.pop(next(iter(cache)))
        return text

    def _read_section(self, index: Index, nid: int, sid: int) -> str | None:
        from .document import decode_note

        meta = index.notes[nid]
        data = self._read(meta["path"])
        if data is None:
            return None
        if len(data) != meta["size"]:
            # Changed since it was indexed: offsets are off, so re-parse this note.
            from .frontmatter import parse_frontmatter
            from .markdown import parse_markdown

            body = parse_frontmatter(decode_note(data)[0]).body
            for sec in parse_markdown(body).sections:
                if sec.heading == index.sec_heading[sid]:
                    return self.redactor.redact(body[sec.start : sec.end])
            return self.redactor.redact(body[:2000])
        text = decode_note(data)[0]
        offset = meta.get("body_offset") or 0
        return self.redactor.redact(
            text[offset + index.sec_start[sid] : offset + index.sec_end[sid]]
        )

    def _hit(
        self, index: Index, note, term_weights: dict[str, float], provenance: dict | None = None
    ) -> dict:
        meta = index.notes[note.nid]
        sid = note.best_sid
        snippet = ""
        if meta.get("indexed", True) and index.note_count[note.nid]:
            section = self._section_text(index, note.nid, sid)
            if section is not None:
                snippet = make_snippet(section, term_weights)
        return {
            # The index this search ranked: a refresh here (refresh_interval=0) would
            # remove or renumber the notes still to be shaped.
            "key": self.key_of(meta["path"], index=index),
            "path": meta["path"],
            "title": meta["title"],
            "zone": meta["zone"],
            "heading": index.sec_heading[sid] if index.note_count[note.nid] else "",
            "also": [index.sec_heading[s] for s in note.also_sids],
            "line": index.sec_line[sid] if index.note_count[note.nid] else 1,
            "score": round(note.score, 4),
            "provenance": (provenance or {}).get(note.nid, "keyword"),
            "snippet": snippet,
            "labels": list(meta["labels"] or []),
            "date": meta["date"],
            "stale": bool(meta["stale"] or index.sec_stale[sid]),
            "archived": bool(meta["archived"]),
        }

    # -- reporting -------------------------------------------------------------------

    def freshness(self) -> dict:
        """How current the index is.

        ``checked_at`` is when the last stat pass began (what it vouches for);
        ``fresh`` says that was within ``check_interval_s``, the interval passes run at
        (``refresh_interval``, longer for a vault whose pass is dear: ``freshness``).
        ``staleness_window_s`` is the longest an edit made outside this library can go
        unseen by a search: the interval plus the last pass's duration. Writes through
        the library are seen by the next search in every process.
        """
        index = self._load()
        age = None if self._last_scan is None else time.monotonic() - self._last_scan
        interval = self._check_interval()
        fresh = age is not None and age < interval
        return {
            "fresh": fresh,
            "notes": self._count_live(index),
            "built_at": _iso(self._built_at),
            "checked_at": _iso(self._checked_at),
            "stale_files": 0 if fresh else None,
            "check_interval_s": round(interval, 3),
            "staleness_window_s": round(interval + (self._scan_cost or 0.0), 3),
            "checking": self._scan is not None,
        }

    def _count_live(self, index: Index) -> int:
        if self._live_count is None:
            self._live_count = sum(1 for _ in _live_paths(index))
        return self._live_count

    def file_warnings(self) -> list[Diagnostic]:
        index = self.index
        out = []
        for meta in index.notes:
            if meta is None:
                continue
            for w in meta.get("warnings") or []:
                out.append(Diagnostic(w["code"], w["message"], w["path"], w.get("line")))
        return out

    def stats(self) -> dict:
        """Counts, freshness, cache size and every indexing warning."""
        index = self.index
        zones: Counter = Counter()
        archived = skipped = 0
        for meta in index.notes:
            if meta is None:
                continue
            if meta["archived"]:
                archived += 1
                continue
            if not meta.get("indexed", True):
                skipped += 1
            zones[meta["zone"]] += 1
        return {
            "vault": str(self.vault),
            "notes": sum(zones.values()),
            "archived": archived,
            "skipped": skipped,
            "sections": index.live_sections,
            "terms": index.vocabulary_size(),
            "zones": dict(sorted(zones.items())),
            "index": self.freshness(),
            "updated_at": _iso(self._updated_at),
            "cache": {"path": str(self.cache_path), "bytes": self._store.bytes},
            "warnings": [w.to_dict() for w in self.file_warnings()],
            "engine_warnings": list(self.warnings) + list(self._folder_problems),
            "mode": self.mode,
            "degraded_reason": self._semantic_reason if self.semantic else None,
        }

    def note_meta(self, path: str) -> dict | None:
        """Indexed metadata of the note at ``path`` (None if not indexed)."""
        index = self.index
        nid = index.by_path.get(path)
        return None if nid is None else dict(index.notes[nid])

    def note_paths(self, *, include_archive: bool = False) -> list[str]:
        index = self.index
        return sorted(
            m["path"]
            for m in index.notes
            if m is not None and (include_archive or not m["archived"])
        )

    def archived(self, path: str) -> bool:
        return path.startswith(ARCHIVE_DIR + "/")
