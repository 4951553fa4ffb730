"""``VaultMemory``: the facade every door (CLI, MCP server, Hermes) calls.

One method per user-facing operation, each returning a plain JSON-able dict (the shapes
are in DESIGN.md and docs/reference/notes.md). Nothing that writes a note bypasses it:

* every write holds the vault's cross-process lock (``vault_lock.VaultLock``) and goes
  through ``atomic.atomic_write_bytes`` (temp file, fsync, rename, fsync the folder), so a
  crash leaves the old or the new bytes, never a torn file;
* conditional writes check ``expected_version`` (the sha256 of the file's bytes) under
  that lock, right before writing;
* moves and multi-file edits (archive, restore, rezone, move, label apply) are journaled
  (``journal.Journal``) and can be undone byte for byte; crash recovery runs on open;
* after a write the engine's index is refreshed for the touched paths at once;
* usage (``record_access``) lives in ``.mnemosyne/state/`` (``dynamics.UsageStore``) and
  lifts ranking by a bounded multiplier (at most ``dynamics.MAX_BOOST``).

Key resolution is strict: exact path, exact key, or a case-insensitive match that names
exactly one note. Anything else is an error listing candidates; nothing is guessed.

The class is assembled from one module per group of operations over shared plumbing:

* ``vault_memory``: the class itself (options, crash recovery on open, ``close``,
  ``status``);
* ``base``: what every group shares (lock, clock, reads and atomic writes, ``resolve``);
* ``reading``: ``get_note``, ``get_notes``, ``search``, ``list_notes``, ``related``,
  ``render_digest``;
* ``state``: ``latest``, ``host_history`` (state questions, newest first);
* ``activity``: ``recent`` (notes by their last change, from the journal and file times);
* ``writing``: ``write_note`` (create, append, replace) and its near-duplicate check;
* ``editing``: ``edit_note`` (prepend, find-replace, replace a section);
* ``lifecycle``: the journaled moves ``forget``, ``restore``, ``rezone``; ``undo``,
  ``journal``;
* ``moving``: ``move`` (a new path or title, with the wikilinks to it rewritten);
* ``labelling``: ``label_preview`` / ``label_apply`` plans, ``suggest_labels``;
* ``usage``: ``record_access``, ``usage_of``, ``stale``.
"""

from .base import STATE_DIR as STATE_DIR
from .editing import EDIT_OPERATIONS
from .vault_memory import VaultMemory
from .writing import WRITE_MODES

__all__ = ["EDIT_OPERATIONS", "VaultMemory", "WRITE_MODES"]
