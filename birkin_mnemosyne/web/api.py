"""The REST API of ``mnemosyne serve``: one endpoint per ``VaultMemory`` operation.

``ROUTES`` maps ``(method, path)`` to a handler ``(api, params, body) -> dict``. A handler
reads its query parameters through ``Params`` (a bad value is ``InvalidInputError``,
as a bad argument is at every door) and returns the library's own JSON shape. The
server (``server.py``) owns the HTTP side: security, bodies, status codes.

docs/reference/web-api.md lists the endpoints; ``status_of`` gives each error its status.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from urllib.parse import parse_qs

from .. import _version
from ..errors import (
    AmbiguousKeyError,
    InvalidInputError,
    JournalError,
    MnemosyneError,
    NoteExistsError,
    NoteNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from ..memory import VaultMemory
from .render import render_note

__all__ = ["ROUTES", "Api", "Params", "status_of"]

MAX_PARAM_CHARS = 10_000


def status_of(error: MnemosyneError) -> int:
    """The HTTP status of a library error (docs/reference/web-api.md)."""
    if isinstance(error, NoteNotFoundError):
        return 404
    if isinstance(
        error,
        (AmbiguousKeyError, NoteExistsError, VersionConflictError, WriteRefusedError, JournalError),
    ):
        return 409
    return 400


class Params:
    """A request's query parameters, each read once with its type checked."""

    def __init__(self, query: str) -> None:
        try:
            self._values = parse_qs(query, keep_blank_values=True, strict_parsing=False)
        except ValueError as exc:
            raise InvalidInputError(f"the query string cannot be read: {exc}") from exc

    def text(self, name: str, *, required: bool = False) -> str | None:
        values = self._values.get(name)
        if not values or values[-1] == "":
            if required:
                raise InvalidInputError(f"the parameter {name!r} is missing")
            return None
        value = values[-1]
        if len(value) > MAX_PARAM_CHARS:
            raise InvalidInputError(
                f"the parameter {name!r} is {len(value):,} characters; the limit is "
                f"{MAX_PARAM_CHARS:,}"
            )
        return value

    def number(self, name: str, default: int | None = None) -> int | None:
        value = self.text(name)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise InvalidInputError(
                f"the parameter {name!r} must be a whole number, got {value!r}"
            ) from None

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.text(name)
        if value is None:
            return default
        if value.lower() in ("true", "1", "yes"):
            return True
        if value.lower() in ("false", "0", "no"):
            return False
        raise InvalidInputError(
            f"the parameter {name!r} must be true or false, got {value!r}",
            valid_choices=["true", "false"],
        )

    def items(self, name: str) -> list[str] | None:
        value = self.text(name)
        if value is None:
            return None
        return [item.strip() for item in value.split(",") if item.strip()]


def _field(body: dict, name: str, kinds: type | tuple, default=None, *, required: bool = False):
    if name not in body or body[name] is None:
        if required:
            raise InvalidInputError(f"the body needs {name!r}")
        return default
    value = body[name]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise InvalidInputError(f"{name!r} has the wrong type: {type(value).__name__}")
    if not isinstance(value, kinds):
        raise InvalidInputError(f"{name!r} has the wrong type: {type(value).__name__}")
    return value


class Api:
    """The vault behind the endpoints: one ``VaultMemory``, one call at a time."""

    def __init__(self, memory: VaultMemory, budgets: dict | None = None) -> None:
        from ..curation import load_budgets
        from ..handoffs import HandoffStore

        self.memory = memory
        self.budgets = load_budgets(budgets)
        self.handoffs = HandoffStore(memory.vault)
        # The library's objects are not shared across threads: the server's request
        # threads take turns (a local viewer's calls are short).
        self.lock = threading.Lock()

    def call(self, method: str, path: str, query: str, body: dict | None) -> dict:
        handler = ROUTES[(method, path)]
        params = Params(query)
        with self.lock:
            return handler(self, params, body or {})


# -- reading ------------------------------------------------------------------------


def _search(api: Api, p: Params, body: dict) -> dict:
    return api.memory.search_response(
        p.text("q", required=True),
        p.number("limit", 8),
        zone=p.text("zone"),
        labels=p.items("labels"),
        include_archive=p.flag("include_archive"),
        repos=p.items("repos") or None,
    )


def _latest(api: Api, p: Params, body: dict) -> dict:
    return api.memory.latest(p.text("q", required=True), p.number("limit", 10), zone=p.text("zone"))


def _host_history(api: Api, p: Params, body: dict) -> dict:
    return api.memory.host_history(
        p.text("host", required=True), p.text("topic"), p.number("limit", 20)
    )


def _note(api: Api, p: Params, body: dict) -> dict:
    return api.memory.get_note(
        p.text("key", required=True),
        section=p.text("section"),
        outline=p.flag("outline"),
        max_chars=p.number("max_chars"),
        offset=p.number("offset", 0),
    )


def _note_html(api: Api, p: Params, body: dict) -> dict:
    note = api.memory.get_note(p.text("key", required=True))
    html, outline = render_note(note["text"])
    return {
        "key": note["key"],
        "path": note["path"],
        "title": note["title"],
        "zone": note["zone"],
        "version": note["version"],
        "labels": note.get("labels", []),
        "html": html,
        "outline": outline,
    }


def _notes(api: Api, p: Params, body: dict) -> dict:
    return api.memory.list_notes(
        p.text("zone"),
        p.items("labels"),
        p.number("page", 1),
        p.number("limit", 20),
        since=p.text("since"),
        until=p.text("until"),
    )


def _related(api: Api, p: Params, body: dict) -> dict:
    return api.memory.related(p.text("key", required=True), limit=p.number("limit", 5))


def _graph(api: Api, p: Params, body: dict) -> dict:
    from ..memory.reading import DEFAULT_GRAPH_LIMIT

    return api.memory.link_graph(
        p.text("key"), depth=p.number("depth", 1), limit=p.number("limit", DEFAULT_GRAPH_LIMIT)
    )


def _status(api: Api, p: Params, body: dict) -> dict:
    return api.memory.status()


def _capacity(api: Api, p: Params, body: dict) -> dict:
    from ..curation import capacity

    return capacity(api.memory, api.budgets)


def _recent(api: Api, p: Params, body: dict) -> dict:
    return api.memory.recent(p.number("limit", 20), since=p.text("since"), until=p.text("until"))


def _journal_entries(api: Api, p: Params, body: dict) -> dict:
    return api.memory.journal_entries(
        p.number("limit", 20), since=p.text("since"), until=p.text("until")
    )


def _journal(api: Api, p: Params, body: dict) -> dict:
    return api.memory.journal(p.number("limit", 20))


def _handoffs(api: Api, p: Params, body: dict) -> dict:
    from ..handoffs import HandoffScope

    scope = HandoffScope(p.text("project", required=True), p.text("task"))
    return api.handoffs.resume(scope, history=p.number("history", 3))


# -- curation and review ------------------------------------------------------------


def _catalog(api: Api, p: Params, body: dict) -> dict:
    from ..curation import curation_catalog

    return curation_catalog(api.memory)


def _plan(api: Api, p: Params, body: dict) -> dict:
    from ..curation import evaluate_plan

    plan = _field(body, "plan", dict, required=True)
    return evaluate_plan(
        api.memory,
        plan,
        apply=_field(body, "apply", bool, False),
        plan_id=_field(body, "plan_id", str),
    )


def _questions(api: Api, p: Params, body: dict) -> dict:
    from ..curation import review

    return review.questions(api.memory, budgets=api.budgets)


def _answer(api: Api, p: Params, body: dict) -> dict:
    from ..curation import review

    return review.apply(
        api.memory,
        _field(body, "question_id", str, required=True),
        _field(body, "answer", str, required=True),
        body=_field(body, "body", str),
        budgets=api.budgets,
    )


def _review_undo(api: Api, p: Params, body: dict) -> dict:
    from ..curation import review

    return review.undo(api.memory, _field(body, "transaction_id", str, required=True))


# -- writing ------------------------------------------------------------------------


def _undo(api: Api, p: Params, body: dict) -> dict:
    return api.memory.undo(
        _field(body, "transaction_id", str),
        last=_field(body, "last", bool, False),
        kind=_field(body, "kind", str),
        confirm=_field(body, "confirm", bool, False),
    )


def _session(api: Api, p: Params, body: dict) -> dict:
    # the server fills in csrf and auth (it owns them)
    return {"vault": str(api.memory.vault), "version": _version.__version__}


Handler = Callable[[Api, Params, dict], dict]

ROUTES: dict[tuple[str, str], Handler] = {
    ("GET", "/api/session"): _session,
    ("GET", "/api/search"): _search,
    ("GET", "/api/latest"): _latest,
    ("GET", "/api/host-history"): _host_history,
    ("GET", "/api/note"): _note,
    ("GET", "/api/note/html"): _note_html,
    ("GET", "/api/notes"): _notes,
    ("GET", "/api/related"): _related,
    ("GET", "/api/graph"): _graph,
    ("GET", "/api/status"): _status,
    ("GET", "/api/capacity"): _capacity,
    ("GET", "/api/recent"): _recent,
    ("GET", "/api/journal"): _journal,
    ("GET", "/api/journal-entries"): _journal_entries,
    ("GET", "/api/handoffs"): _handoffs,
    ("GET", "/api/curation/catalog"): _catalog,
    ("GET", "/api/review/questions"): _questions,
    ("POST", "/api/undo"): _undo,
    ("POST", "/api/curation/plan"): _plan,
    ("POST", "/api/review/apply"): _answer,
    ("POST", "/api/review/undo"): _review_undo,
}
