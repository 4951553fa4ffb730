"""Warnings collected while reading a vault (a shared record type, importable anywhere).

Parsers return ``Diagnostic`` records without a path; the indexer fills ``path`` in
with ``dataclasses.replace``. Nothing here raises: a warning never stops indexing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in one file.

    ``code`` is a stable slug (``invalid_frontmatter``, ``unclosed_fence``,
    ``not_utf8``, ``binary_file``, ``too_large``, ``unreadable``, ...); ``message`` is a
    sentence for a person; ``line`` is 1-based when known.
    """

    code: str
    message: str
    path: str = ""
    line: int | None = None

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "path": self.path, "line": self.line}

    def __str__(self) -> str:
        where = self.path or "<text>"
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.message}"
