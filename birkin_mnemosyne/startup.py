"""The verified startup reader: everything a session must know, in one exact bundle.

``StartupReader(vault).read(paths, task=..., project_key=..., task_key=...)`` returns
the resident memory INDEX (when the vault opted in), the latest handoff of the scope,
the files asked for and — when ``task`` is given — every document whose trigger the
task covers (``memory_index.trigger_matches``). Each document is complete: never truncated. A required file that
is missing or unreadable fails the whole read with a clear error instead of a partial
bundle, and so does a bundle over its limits (files, bytes per file, total bytes).

The bundle carries a coverage receipt: the SHA-256 of every source file's bytes, of the
INDEX text, and the id of the handoff it included. ``verify(bundle)`` re-reads the
sources and says whether the bundle is still exact. Sizes are estimated in tokens as
UTF-8 bytes / 4 (``markdown.estimate_tokens``). Served text is redacted like every other
read; the receipt hashes the bytes on disk.
"""

from __future__ import annotations

import hashlib
import os

from .atomic import ensure_no_symlink
from .change_plans import require_vault, vault_config, vault_redactor
from .errors import InvalidInputError, InvalidPathError, NoteNotFoundError
from .handoffs import HandoffScope, HandoffStore, render_record
from .markdown import estimate_tokens
from .memory_index import ESTIMATE, MemoryIndex
from .vault_paths import check_note_path

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_FILES",
    "DEFAULT_MAX_TOTAL_BYTES",
    "StartupReader",
]

DEFAULT_MAX_FILES = 40
DEFAULT_MAX_FILE_BYTES = 256 * 1024
DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024
BUNDLE_FORMAT = "mnemosyne-startup/1"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class StartupReader:
    """Read and verify startup bundles of one vault (see the module docstring)."""

    def __init__(
        self,
        vault: str | os.PathLike,
        *,
        max_files: int = DEFAULT_MAX_FILES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
        index: MemoryIndex | None = None,
        handoffs: HandoffStore | None = None,
    ) -> None:
        self.vault = require_vault(vault).resolve()
        for name, value in (
            ("max_files", max_files),
            ("max_file_bytes", max_file_bytes),
            ("max_total_bytes", max_total_bytes),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
        self.max_files = max_files
        self.max_file_bytes = max_file_bytes
        self.max_total_bytes = max_total_bytes
        self.index = index or MemoryIndex(self.vault)
        self.handoffs = handoffs or HandoffStore(self.vault)

    def __repr__(self) -> str:
        return f"StartupReader({str(self.vault)!r})"

    def _path(self, raw: object) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise InvalidInputError(
                f"a startup path must be a vault-relative note path, got {raw!r}"
            )
        raw = raw.strip()
        if not raw.lower().endswith(".md"):
            raw += ".md"
        return check_note_path(raw)

    def _read_bytes(self, path: str) -> bytes:
        file = self.vault / path
        try:
            ensure_no_symlink(file, root=self.vault)
            return file.read_bytes()
        except FileNotFoundError:
            raise NoteNotFoundError(
                f"required startup file {path} is missing — nothing was returned",
                fix="fix the path ({list_notes} shows them) or drop it from the request",
            ) from None
        except (OSError, InvalidPathError) as exc:
            raise InvalidInputError(
                f"required startup file {path} cannot be read ({exc}) — nothing was returned"
            ) from None

    def read(
        self,
        paths: list[str] | tuple[str, ...] = (),
        *,
        task: str | None = None,
        project_key: str | None = None,
        task_key: str | None = None,
    ) -> dict:
        """One bundle for a session start; raises rather than return a partial one."""
        if isinstance(paths, str):
            paths = [paths]
        wanted: dict[str, str] = {}
        for raw in paths:
            wanted.setdefault(self._path(raw), "requested")
        enabled = self.index.enabled
        matched: list[dict] = []
        if task is not None:
            if not isinstance(task, str):
                raise InvalidInputError("task must be a string describing the work")
            if enabled:
                matched = self.index.matching(task)
                for route in matched:
                    wanted.setdefault(route["path"], "trigger")
        if len(wanted) > self.max_files:
            raise InvalidInputError(
                f"the startup bundle would hold {len(wanted)} files, over the limit of "
                f"{self.max_files} — ask for fewer files or a narrower task"
            )
        redactor = vault_redactor(vault_config(self.vault))
        files, receipt, total = [], [], 0
        for path, reason in wanted.items():
            data = self._read_bytes(path)
            if len(data) > self.max_file_bytes:
                raise InvalidInputError(
                    f"startup file {path} is {len(data)} bytes, over the per-file limit of "
                    f"{self.max_file_bytes}",
                    fix="split it with {index_split}, or raise the limit",
                )
            total += len(data)
            if total > self.max_total_bytes:
                raise InvalidInputError(
                    f"the startup files exceed the total limit of {self.max_total_bytes} bytes "
                    "— ask for fewer files or raise the limit"
                )
            text = data.decode("utf-8", "replace")
            digest = _sha256(data)
            files.append(
                {
                    "path": path,
                    "reason": reason,
                    "text": redactor.redact(text),
                    "bytes": len(data),
                    "sha256": digest,
                    "estimated_tokens": estimate_tokens(text),
                }
            )
            receipt.append({"path": path, "sha256": digest, "bytes": len(data)})
        index = self.index.render() if enabled else None
        handoff = None
        if project_key is not None:
            handoff = self.handoffs.latest(HandoffScope(project_key, task_key))
        elif task_key is not None:
            raise InvalidInputError("task_key needs project_key — pass both")
        tokens = sum(f["estimated_tokens"] for f in files)
        tokens += index["estimated_tokens"] if index else 0
        tokens += estimate_tokens(render_record(handoff)) if handoff else 0
        return {
            "format": BUNDLE_FORMAT,
            "index": index,
            "handoff": handoff,
            "files": files,
            "matched_routes": matched,
            "scope": {"project_key": project_key, "task_key": task_key},
            "receipt": {
                "files": receipt,
                "index_sha256": _sha256(index["text"].encode("utf-8")) if index else None,
                "handoff_capture_id": handoff["capture_id"] if handoff else None,
            },
            "estimated_tokens": tokens,
            "estimate": ESTIMATE,
            "limits": {
                "max_files": self.max_files,
                "max_file_bytes": self.max_file_bytes,
                "max_total_bytes": self.max_total_bytes,
            },
            "warnings": list(index["warnings"]) if index else [],
        }

    def verify(self, context: dict) -> dict:
        """Re-read a bundle's sources: ``{"exact", "changed", "missing", "checked", ...}``."""
        receipt = context.get("receipt") if isinstance(context, dict) else None
        if not isinstance(receipt, dict) or not isinstance(receipt.get("files"), list):
            raise InvalidInputError("verify needs a bundle from read() (it has no 'receipt')")
        changed, missing = [], []
        for row in receipt["files"]:
            path = self._path(row.get("path"))
            file = self.vault / path
            try:
                ensure_no_symlink(file, root=self.vault)
                data = file.read_bytes()
            except (OSError, InvalidPathError):
                missing.append(path)
                continue
            if _sha256(data) != row.get("sha256"):
                changed.append(path)
        index_changed = False
        if receipt.get("index_sha256") is not None:
            now = self.index.render() if self.index.enabled else None
            digest = _sha256(now["text"].encode("utf-8")) if now else None
            index_changed = digest != receipt["index_sha256"]
        handoff_changed = False
        scope = context.get("scope") or {}
        if scope.get("project_key") is not None:
            latest = self.handoffs.latest(HandoffScope(scope["project_key"], scope.get("task_key")))
            handoff_changed = (latest or {}).get("capture_id") != receipt.get("handoff_capture_id")
        exact = not (changed or missing or index_changed or handoff_changed)
        return {
            "exact": exact,
            "changed": changed,
            "missing": missing,
            "index_changed": index_changed,
            "handoff_changed": handoff_changed,
            "checked": len(receipt["files"]),
        }
