"""``MnemosyneMemoryProvider``: a birkin-mnemosyne vault as a Hermes Agent memory provider.

Hermes Agent (``hermes-agent``) runs one external memory provider beside its built-in
MEMORY.md/USER.md. This one keeps a Markdown vault and calls ``VaultMemory`` in-process
(no server, no subprocess, no network):

=======================  ============================================================
Hermes calls             this provider
=======================  ============================================================
``initialize``           opens the vault: ``memory.<name>.vault`` in Hermes's
                         ``config.yaml``, else ``$MNEMOSYNE_VAULT``, else
                         ``<hermes_home>/<name>/vault`` (one per profile; only this
                         default is created when missing)
``system_prompt_block``  how to use the tools, then the vault's digest
``prefetch``             the strong hits of a search for the user's message as compact
                         text within ``prefetch_budget`` tokens; Hermes fences it
``get_tool_schemas``     ``mnemosyne_search``, ``mnemosyne_latest``,
                         ``mnemosyne_host_history``, ``mnemosyne_get``,
                         ``mnemosyne_remember``, ``mnemosyne_edit``,
                         ``mnemosyne_move``, ``mnemosyne_recent``
``handle_tool_call``     one ``VaultMemory`` call; always a JSON string, errors included
``sync_turn``            records as used (``record_access``) the notes the turn drew on:
                         read with ``mnemosyne_get``, or recalled and named in the reply
``on_memory_write``      mirrors the built-in memory tool's writes into two vault notes
``on_pre_compress``      the notes this session wrote, read and recalled, so the summary
                         keeps their keys
``on_session_end``       forgets the session's bookkeeping; writes nothing
=======================  ============================================================

Writes happen only when ``agent_context`` is ``"primary"``: Hermes's rule is that cron,
subagent and flush contexts must not write, so there the vault is opened without crash
recovery and ``mnemosyne_remember``, ``mnemosyne_edit`` and an applied ``mnemosyne_move``
are refused (a move's preview is allowed: it writes nothing). Tool names carry the
``mnemosyne_`` prefix (see ``tool_schemas``).

Every ``VaultMemory`` call holds one lock: Hermes calls ``prefetch`` on a thread of its
own, ``sync_turn`` on a background worker and tools on the agent's thread.

Imports are absolute: Hermes may load this package's files under module names of its own.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from agent.memory_provider import MemoryProvider

from birkin_mnemosyne.atomic import atomic_write_bytes
from birkin_mnemosyne.engine import MAX_QUERY_CHARS
from birkin_mnemosyne.errors import (
    InvalidInputError,
    MnemosyneError,
    NoteNotFoundError,
    VaultNotFoundError,
    WriteRefusedError,
    error_dict,
)
from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore, render_record
from birkin_mnemosyne.hermes_plugin.settings import (
    DEFAULT_NAME,
    FALSE_WORDS,
    SETTINGS,
    TRUE_WORDS,
    default_hermes_home,
    parse_settings,
    read_hermes_config,
)
from birkin_mnemosyne.hermes_plugin.tool_schemas import (
    GET_DEFAULT_CHARS,
    HISTORY_DEFAULT_LIMIT,
    LATEST_DEFAULT_LIMIT,
    RECENT_DEFAULT_LIMIT,
    SCHEMAS,
    SEARCH_DEFAULT_LIMIT,
    TOOL_NAMES,
)
from birkin_mnemosyne.markdown import estimate_tokens
from birkin_mnemosyne.memory import VaultMemory
from birkin_mnemosyne.memory_index import MemoryIndex
from birkin_mnemosyne.progress_view import ProgressLog
from birkin_mnemosyne.vault_paths import slugify

__all__ = ["DEFAULT_NAME", "SETTINGS", "TOOL_NAMES", "MnemosyneMemoryProvider"]

log = logging.getLogger(__name__)

# A recalled snippet is cut here so one long section cannot take the whole budget.
SNIPPET_CHARS = 320
# Notes listed by on_pre_compress, most important first (written, read, recalled).
PRE_COMPRESS_NOTES = 10
# Names and titles shorter than this are too common to count as "named in the reply".
MIN_MENTION_CHARS = 4
# A handoff captured by the provider keeps this much of the last exchange.
HANDOFF_CHARS = 2000
MIRROR_TITLES = {"memory": "Hermes memory", "user": "Hermes user profile"}


def _error_json(exc: MnemosyneError) -> str:
    """A library error as the tool result: the shape every door shares (``error_type``,
    ``message``, ``hint``, the error's fields; fixes name this provider's tools), plus
    ``error`` = the message, as Hermes tools report errors."""
    data = error_dict(exc, "hermes", offered=TOOL_NAMES)
    return json.dumps({"error": data["message"], **data}, ensure_ascii=False)


def _text_of(message: object) -> str:
    """The text of an OpenAI-style message (a string, or a list of parts)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


class MnemosyneMemoryProvider(MemoryProvider):
    """A Markdown vault as Hermes's external memory (see the module docstring).

    ``name`` is what ``memory.provider`` selects (the plugin folder's name); ``config``
    overrides settings read from ``config.yaml`` (same keys as ``SETTINGS``).
    """

    def __init__(self, name: str = DEFAULT_NAME, *, config: dict | None = None) -> None:
        self._name = name
        self._overrides = dict(config or {})
        self._lock = threading.RLock()
        self._memory: VaultMemory | None = None
        self._problem = ""
        self._settings = parse_settings(None)
        self._session_id = ""
        self._context = "primary"
        self._hermes_home: Path | None = None
        self._warn: Callable[[str], object] | None = None
        self._handlers = {
            "mnemosyne_search": self._search,
            "mnemosyne_latest": self._latest,
            "mnemosyne_host_history": self._host_history,
            "mnemosyne_get": self._get,
            "mnemosyne_remember": self._remember,
            "mnemosyne_edit": self._edit,
            "mnemosyne_move": self._move,
            "mnemosyne_recent": self._recent,
        }
        self._forget_session()

    def __repr__(self) -> str:
        return f"MnemosyneMemoryProvider(name={self._name!r})"

    # -- identity and configuration ------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def memory(self) -> VaultMemory | None:
        """The open ``VaultMemory`` (None before ``initialize``, after ``shutdown``, or
        when the vault could not be opened: see ``problem``)."""
        return self._memory

    @property
    def problem(self) -> str:
        """Why the vault is not open ("" when it is)."""
        return self._problem

    @property
    def writable(self) -> bool:
        """Writes are allowed: Hermes's ``agent_context`` is ``"primary"``."""
        return self._context == "primary"

    def is_available(self) -> bool:
        """Always: the vault is local files and the library is the standard library.
        A vault that cannot be opened is reported by ``initialize`` instead, to the user
        (Hermes's warning callback), in the system prompt and in every tool result."""
        return True

    def settings(self, hermes_home: str | os.PathLike | None = None) -> dict:
        """The effective settings: defaults < ``memory.<name>`` in config.yaml < ``config``."""
        home = Path(hermes_home) if hermes_home is not None else default_hermes_home()
        where = f"memory.{self._name}"
        memory_section = read_hermes_config(home).get("memory")
        raw = memory_section.get(self._name) if isinstance(memory_section, dict) else None
        settings = parse_settings(raw, where=f"{where} in {home / 'config.yaml'}")
        if self._overrides:
            overridden = parse_settings(self._overrides, where="the provider's config")
            settings.update({key: overridden[key] for key in self._overrides})
        return settings

    def vault_location(self, hermes_home: str | os.PathLike, settings: dict) -> tuple[Path, str]:
        """``(vault folder, where it was named)``: the ``vault`` setting (``"setting"``),
        else ``$MNEMOSYNE_VAULT`` (``"environment"``), else ``<hermes_home>/<name>/vault``
        (``"default"``, the only one created when missing)."""
        home = Path(hermes_home)
        if settings["vault"]:
            configured, source = settings["vault"], "setting"
        else:
            configured, source = os.environ.get("MNEMOSYNE_VAULT", "").strip(), "environment"
        if not configured:
            return home / self._name / "vault", "default"
        for spelling in ("${HERMES_HOME}", "$HERMES_HOME"):
            configured = configured.replace(spelling, str(home))
        return Path(os.path.expanduser(configured)), source

    def get_config_schema(self) -> list[dict]:
        """The fields `hermes memory setup` asks for (all optional, none secret)."""
        fields = []
        for key, (default, meaning) in SETTINGS.items():
            field = {"key": key, "description": meaning}
            if isinstance(default, bool):
                field.update(default="true" if default else "false", choices=["true", "false"])
            elif default != "":
                field["default"] = str(default)
            fields.append(field)
        return fields

    def save_config(self, values: dict, hermes_home: str) -> None:
        """Store ``values`` under ``memory.<name>`` in ``<hermes_home>/config.yaml`` (where
        `hermes memory setup` reads the current values back); invalid ones raise."""
        import yaml

        home = Path(hermes_home)
        cleaned = {key: value for key, value in values.items() if value not in (None, "")}
        where = f"memory.{self._name}"
        parse_settings(cleaned, where=where)
        data = read_hermes_config(home)
        section = data.get("memory")
        if not isinstance(section, dict):
            section = data["memory"] = {}
        block = section.get(self._name)
        block = dict(block) if isinstance(block, dict) else {}
        # Store what the user meant: numbers and booleans, not the wizard's strings.
        normal = parse_settings({**block, **cleaned}, where=where)
        block.update({key: normal[key] for key in cleaned})
        section[self._name] = block
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
        atomic_write_bytes(home / "config.yaml", text.encode("utf-8"))

    def backup_paths(self) -> list[str]:
        """The vault, when it lives outside Hermes's home (`hermes backup` walks only that)."""
        try:
            home = default_hermes_home()
            vault, _ = self.vault_location(home, self.settings(home))
            vault, home = vault.resolve(), home.resolve()
        except (MnemosyneError, OSError):
            return []
        if vault == home or home in vault.parents or not vault.is_dir():
            return []
        return [str(vault)]

    # -- lifecycle -----------------------------------------------------------------------

    def initialize(self, session_id: str, **kwargs) -> None:
        """Open the vault for a session. Never raises: a problem is kept in ``problem``,
        logged, and shown to the user through Hermes's ``warning_callback`` when given."""
        self.shutdown()
        self._session_id = str(session_id or "")
        self._context = str(kwargs.get("agent_context") or "primary")
        warn = kwargs.get("warning_callback")
        self._warn = warn if callable(warn) else None
        home = kwargs.get("hermes_home")
        self._hermes_home = Path(home) if home else default_hermes_home()
        self._forget_session()
        try:
            settings = self.settings(self._hermes_home)
            vault, source = self.vault_location(self._hermes_home, settings)
            if not vault.is_dir():
                self._missing_vault(vault, source)
            # Crash recovery rewrites files: only a primary agent may do it. The first
            # search of a large vault builds its index: one log line when it starts
            # and one when it ends (the MCP server's ``ProgressLog``).
            index = settings["index"] or os.environ.get("MNEMOSYNE_INDEX", "").strip() or None
            memory = VaultMemory(
                vault,
                recover=self.writable and index is None,
                on_progress=ProgressLog(log.info),
                index=index,
            )
        except MnemosyneError as exc:
            self._fail(f"{exc}")
            return
        with self._lock:
            self._memory = memory
            self._settings = settings
            self._problem = ""

    def _missing_vault(self, vault: Path, source: str) -> None:
        """Create the default vault (a primary agent only); refuse any other."""
        if os.path.lexists(vault):
            raise VaultNotFoundError(f"the vault {vault} is not a folder — move that file away")
        if source == "default" and self.writable:
            try:
                vault.mkdir(parents=True)
            except OSError as exc:
                raise WriteRefusedError(
                    f"cannot create the vault folder {vault}: {exc.strerror or exc} — set "
                    f"memory.{self._name}.vault in config.yaml to a folder you can write"
                ) from None
            log.info("created the Mnemosyne vault %s", vault)
            return
        fix = {
            "setting": f"create it, or correct memory.{self._name}.vault in config.yaml",
            "environment": "create it, or correct $MNEMOSYNE_VAULT",
            "default": "the primary agent creates it on its first session",
        }[source]
        raise VaultNotFoundError(f"no vault folder at {vault} — {fix}")

    def _fail(self, problem: str) -> None:
        self._problem = problem
        message = f"Mnemosyne memory is unavailable this session: {problem}"
        log.warning("%s", message)
        if self._warn is not None:
            try:
                self._warn(message)
            except Exception:  # a display callback must not break the provider
                log.debug("warning_callback failed", exc_info=True)

    def shutdown(self) -> None:
        """Close the vault (its open index file)."""
        with self._lock:
            memory, self._memory = self._memory, None
            if memory is not None:
                memory.close()
                self._problem = "the provider was shut down"

    def on_session_switch(
        self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False, **kwargs
    ) -> None:
        """Follow Hermes to a new session id; a reset starts the bookkeeping afresh."""
        with self._lock:
            self._session_id = str(new_session_id or "")
            if reset:
                self._forget_session()

    def on_session_end(self, messages: list[dict]) -> None:
        """Capture a handoff when ``capture_handoffs`` is on (and a project is bound), then
        forget the session's bookkeeping. Nothing else is written."""
        with self._lock:
            self._capture_handoff(messages, "end")
            self._forget_session()

    # -- session memory (issue 6): INDEX and handoffs of a bound project -------------------

    def _project_key(self, settings: dict) -> str:
        return settings.get("project_key") or os.environ.get("MNEMOSYNE_PROJECT_KEY", "")

    def _session_memory(self, memory: VaultMemory, settings: dict) -> str:
        """The resident INDEX and the latest handoff of the bound project ("" unbound)."""
        project = self._project_key(settings)
        if not project:
            return ""
        parts = []
        try:
            index = MemoryIndex(memory.vault)
            if index.enabled:
                parts.append(index.render()["text"].rstrip("\n"))
            latest = HandoffStore(memory.vault).latest(HandoffScope(project))
            if latest is not None:
                parts.append("Where the last session left off:\n" + render_record(latest).rstrip())
        except MnemosyneError as exc:
            log.debug("Mnemosyne session memory failed: %s", exc)
        return "\n\n".join(parts)

    def _capture_handoff(self, messages: list[dict], event: str) -> None:
        """A handoff from the session's last exchange and the notes it used (lock held)."""
        memory, settings = self._memory, self._settings
        if memory is None or not self.writable or not settings.get("capture_handoffs"):
            return
        project = self._project_key(settings)
        if not project:
            return
        said = [
            (m.get("role"), " ".join(_text_of(m).split()))
            for m in messages or []
            if isinstance(m, dict)
        ]
        asked = next((text for role, text in reversed(said) if role == "user" and text), "")
        answered = next((text for role, text in reversed(said) if role == "assistant" and text), "")
        links = list({**self._written, **self._read})
        fields = {
            "work_done": answered[:HANDOFF_CHARS],
            "open_items": [asked[:HANDOFF_CHARS]] if asked else [],
            "links": links[:PRE_COMPRESS_NOTES],
        }
        if not any(fields.values()):
            return
        digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()
        capture_id = f"hermes-{self._session_id}-{event}-{digest[:12]}"
        try:
            HandoffStore(memory.vault).capture(HandoffScope(project), fields, capture_id=capture_id)
        except MnemosyneError as exc:
            log.warning("Mnemosyne could not capture a handoff: %s", exc)

    def _forget_session(self) -> None:
        # key -> {"key", "title", "path"}; insertion order = first seen
        self._written: dict[str, dict] = {}
        self._read: dict[str, dict] = {}
        self._recalled: dict[str, dict] = {}
        self._read_this_turn: set[str] = set()

    # -- system prompt and recall --------------------------------------------------------

    def system_prompt_block(self) -> str:
        """How to use the vault, and its digest within ``digest_budget`` tokens."""
        with self._lock:
            if self._memory is None:
                if not self._problem:
                    return ""
                return f"# Mnemosyne memory\nUnavailable this session: {self._problem}"
            memory, settings = self._memory, self._settings
            try:
                count = len(memory.engine.keys())
                budget = settings["digest_budget"]
                digest = memory.render_digest(budget_tokens=budget) if count and budget else ""
            except MnemosyneError as exc:
                log.warning("Mnemosyne digest failed: %s", exc)
                count, digest = len(memory.engine.keys()), ""
        lines = [
            "# Mnemosyne memory",
            f"A local Markdown vault ({memory.vault}, {count} notes) keeps long-term notes "
            "across sessions. Notes matching the user's message are recalled before each "
            "turn, with their keys in brackets.",
            "- mnemosyne_search finds more (words, an identifier, or exact=true for a "
            "literal string); no_strong_match=true means the vault has nothing good on it.",
            "- mnemosyne_latest gives the newest sections holding every word (the current "
            "state of something); mnemosyne_host_history what happened to one host.",
            "- mnemosyne_get reads a note by key: whole, one section, or a slice.",
            "- mnemosyne_remember saves what is worth keeping beyond this session "
            "(mode=append adds to an existing note); mnemosyne_edit changes part of a note "
            "(prepend, find_replace, replace_section), mnemosyne_move moves or renames one "
            "and rewrites the links to it.",
            "- mnemosyne_recent lists the notes changed lately.",
        ]
        if not self.writable:
            lines.append(
                f"This session is read-only (agent context {self._context!r}): "
                "mnemosyne_remember, mnemosyne_edit and mnemosyne_move are refused."
            )
        if not count:
            lines.append("The vault is empty so far.")
        if digest:
            lines += ["", digest.rstrip("\n")]
        return "\n".join(lines)

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """Strong search hits for ``query`` as plain text within ``prefetch_budget`` tokens,
        or "" (no vault, recall off, nothing matched well). Hermes fences and times it."""
        text = " ".join(str(query or "").split())[:MAX_QUERY_CHARS]
        with self._lock:
            memory, settings = self._memory, self._settings
            if memory is None or not text:
                return ""
            limit, budget = settings["prefetch_limit"], settings["prefetch_budget"]
            if not limit or not budget:
                return self._session_memory(memory, settings)
            try:
                response = memory.search_response(text, min(limit, 50))
            except MnemosyneError as exc:
                log.debug("Mnemosyne prefetch failed: %s", exc)
                return self._session_memory(memory, settings)
            rendered, shown = _render_recall(response["hits"], budget)
            for hit in shown:
                self._recalled.setdefault(hit["key"], _note_ref(hit))
            session = self._session_memory(memory, settings)
        return "\n\n".join(part for part in (session, rendered) if part)

    # -- tools ---------------------------------------------------------------------------

    def get_tool_schemas(self) -> list[dict]:
        return [dict(schema) for schema in SCHEMAS]

    def handle_tool_call(self, tool_name: str, args: dict, **kwargs) -> str:
        """Run one tool; the result (or the error) as a JSON string. Never raises."""
        try:
            handler = self._handlers.get(tool_name)
            if handler is None:
                return json.dumps(
                    {
                        "error": f"unknown tool {tool_name!r} — this provider handles "
                        f"{', '.join(TOOL_NAMES)}",
                        "error_type": "InvalidInputError",
                    }
                )
            if args is None:
                args = {}
            if not isinstance(args, dict):
                return json.dumps(
                    {
                        "error": f"{tool_name} takes an object of named arguments, got "
                        f"{type(args).__name__}",
                        "error_type": "InvalidInputError",
                    }
                )
            schema = next(s for s in SCHEMAS if s["name"] == tool_name)
            known = schema["parameters"]["properties"]
            unknown = sorted(str(key) for key in args if key not in known)
            missing = [key for key in schema["parameters"]["required"] if args.get(key) is None]
            if unknown or missing:
                problems = []
                if missing:
                    problems.append(f"missing {', '.join(missing)}")
                if unknown:
                    problems.append(f"unknown argument(s) {', '.join(unknown)}")
                return json.dumps(
                    {
                        "error": f"{tool_name}: {'; '.join(problems)} — valid arguments: "
                        f"{', '.join(known)}",
                        "error_type": "InvalidInputError",
                    }
                )
            with self._lock:
                if self._memory is None:
                    return json.dumps(
                        {
                            "error": f"Mnemosyne memory is unavailable: {self._problem or 'not initialized'}",
                            "error_type": "VaultNotFoundError",
                        },
                        ensure_ascii=False,
                    )
                clean = {key: value for key, value in args.items() if value is not None}
                result = handler(self._memory, clean)
            return json.dumps(result, ensure_ascii=False, default=str)
        except MnemosyneError as exc:
            return _error_json(exc)
        except Exception as exc:  # a bug: say so, and never break Hermes's turn
            log.exception("Mnemosyne tool %s failed", tool_name)
            return json.dumps(
                {
                    "error": f"internal error in the Mnemosyne provider: "
                    f"{type(exc).__name__}: {exc} — please report it",
                    "error_type": "internal",
                },
                ensure_ascii=False,
            )

    def _search(self, memory: VaultMemory, args: dict) -> dict:
        response = memory.search_response(
            args["query"],
            _whole(args.get("limit", SEARCH_DEFAULT_LIMIT)),
            zone=args.get("zone"),
            labels=args.get("labels"),
            exact=_flag(args.get("exact", False)),
            repos=args.get("repos") or None,
        )
        for hit in response["hits"]:
            self._recalled.setdefault(hit["key"], _note_ref(hit))
        return response

    def _latest(self, memory: VaultMemory, args: dict) -> dict:
        result = memory.latest(
            args["query"], _whole(args.get("limit", LATEST_DEFAULT_LIMIT)), zone=args.get("zone")
        )
        for hit in result["hits"]:
            self._recalled.setdefault(hit["key"], _note_ref(hit))
        return result

    def _host_history(self, memory: VaultMemory, args: dict) -> dict:
        result = memory.host_history(
            args["host"], args.get("topic"), _whole(args.get("limit", HISTORY_DEFAULT_LIMIT))
        )
        for entry in result["entries"]:
            self._recalled.setdefault(entry["key"], _note_ref(entry))
        return result

    def _get(self, memory: VaultMemory, args: dict) -> dict:
        key, keys = args.get("key"), args.get("keys")
        if (key is None) == (keys is None):
            raise InvalidInputError(
                "mnemosyne_get: missing key — give key (one note's key or path) or keys (a "
                "list of them)"
                if key is None
                else "mnemosyne_get takes key or keys, not both"
            )
        options = {
            "section": args.get("section"),
            "outline": _flag(args.get("outline", False)),
            "max_chars": _whole(args.get("max_chars", GET_DEFAULT_CHARS)),
            "offset": _whole(args.get("offset", 0)),
        }
        if keys is not None:
            result = memory.get_notes(keys, **options)
            read = result["notes"]
        else:
            result = memory.get_note(key, **options)
            read = [result]
        for note in read:
            self._read.setdefault(note["key"], _note_ref(note))
            self._read_this_turn.add(note["path"])
        return result

    def _refuse_read_only(self) -> None:
        if not self.writable:
            raise WriteRefusedError(
                f"this Hermes session is read-only for memory (agent context "
                f"{self._context!r}; only the primary agent writes) — nothing was saved"
            )

    def _edit(self, memory: VaultMemory, args: dict) -> dict:
        self._refuse_read_only()
        result = memory.edit_note(
            args["key"],
            args["operation"],
            args["content"],
            find=args.get("find"),
            section=args.get("section"),
            expected_count=_whole(args.get("expected_count", 1)),
            expected_version=args.get("expected_version"),
            source=args.get("source") or self._source(),
        )
        self._written[result["key"]] = _note_ref(result)
        return result

    def _move(self, memory: VaultMemory, args: dict) -> dict:
        confirm = _flag(args.get("confirm", False))
        if confirm is True:
            self._refuse_read_only()
        result = memory.move(
            args["key"],
            args.get("to"),
            title=args.get("title"),
            confirm=confirm,
            plan_id=args.get("plan_id"),
        )
        if result["mode"] == "applied":
            # Notes this session holds refs to by their old path now live elsewhere.
            for group in (self._written, self._read, self._recalled):
                for ref_key, ref in list(group.items()):
                    if ref["path"] == result["previous_path"]:
                        del group[ref_key]
            self._written[result["key"]] = {
                "key": result["key"],
                "title": str(result["title"] or result["key"]),
                "path": result["path"],
            }
            if result["previous_path"] in self._read_this_turn:
                self._read_this_turn.discard(result["previous_path"])
                self._read_this_turn.add(result["path"])
        return result

    def _recent(self, memory: VaultMemory, args: dict) -> dict:
        return memory.recent(
            _whole(args.get("limit", RECENT_DEFAULT_LIMIT)),
            since=args.get("since"),
            until=args.get("until"),
        )

    def _remember(self, memory: VaultMemory, args: dict) -> dict:
        self._refuse_read_only()
        result = memory.write_note(
            args["title"],
            args["body"],
            mode=args.get("mode", "create"),
            zone=args.get("zone"),
            tags=args.get("tags"),
            labels=args.get("labels"),
            source=args.get("source") or self._source(),
            expected_version=args.get("expected_version"),
        )
        title = args["title"] if result["created"] else result["key"]
        self._written[result["key"]] = {
            "key": result["key"],
            "title": str(title),
            "path": result["path"],
        }
        return result

    def _source(self) -> str:
        return f"hermes session {self._session_id}" if self._session_id else "hermes"

    # -- after a turn --------------------------------------------------------------------

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict] | None = None,
    ) -> None:
        """Record as used the notes this turn drew on: those read with ``mnemosyne_get``,
        and those recalled this session whose key, title or path the reply names."""
        with self._lock:
            used = set(self._read_this_turn)
            self._read_this_turn.clear()
            memory = self._memory
            if memory is None or not self.writable:
                return
            reply = str(assistant_content or "").casefold()
            for ref in self._recalled.values():
                names = (ref["key"], ref["title"], ref["path"])
                if any(len(n) >= MIN_MENTION_CHARS and n.casefold() in reply for n in names):
                    used.add(ref["path"])
            for path in sorted(used):
                try:
                    memory.record_access(path)
                except MnemosyneError as exc:  # deleted or moved since: nothing to reinforce
                    log.debug("Mnemosyne could not record use of %s: %s", path, exc)

    def on_memory_write(
        self, action: str, target: str, content: str, metadata: dict | None = None
    ) -> None:
        """Mirror a write of Hermes's built-in memory tool: a dated section appended to the
        vault note "Hermes memory" (``target="memory"``) or "Hermes user profile"
        (``target="user"``, typed ``profile`` so the digest lists it first)."""
        content = str(content or "").strip()
        if action not in ("add", "replace", "remove") or not content:
            return
        with self._lock:
            memory = self._memory
            if memory is None or not self.writable or not self._settings["mirror_builtin"]:
                return
            title = MIRROR_TITLES.get(target, MIRROR_TITLES["memory"])
            if action == "add":
                body = content
            elif action == "replace":
                old = str((metadata or {}).get("old_text") or "").strip()
                body = content + (f"\n\n(This replaces: {old})" if old else "")
            else:
                body = f"No longer true (removed from Hermes's built-in memory): {content}"
            zone = self._settings["zone"]
            path = f"{zone}/{slugify(title)}.md" if zone else f"{slugify(title)}.md"
            try:
                try:
                    result = memory.write_note(
                        path, body, mode="append", source=self._source(), zone=zone or None
                    )
                except NoteNotFoundError:
                    result = memory.write_note(
                        title,
                        body,
                        zone=zone or None,
                        note_type="profile" if target == "user" else None,
                        source=self._source(),
                    )
            except MnemosyneError as exc:
                log.warning("Mnemosyne could not mirror a built-in memory write: %s", exc)
                return
            self._written.setdefault(
                result["key"], {"key": result["key"], "title": title, "path": result["path"]}
            )

    def on_pre_compress(self, messages: list[dict]) -> str:
        """The notes worth keeping in the compression summary: those this session wrote,
        read and recalled (in that order); with none, the strong hits for what the user
        asked in the messages about to be compressed."""
        with self._lock:
            memory = self._memory
            if memory is None:
                return ""
            self._capture_handoff(messages, "compress")
            refs: dict[str, tuple[dict, str]] = {}
            for label, group in (
                ("written", self._written),
                ("read", self._read),
                ("recalled", self._recalled),
            ):
                for key, ref in group.items():
                    refs.setdefault(key, (ref, label))
            if not refs:
                asked = " ".join(
                    _text_of(m)
                    for m in messages or []
                    if isinstance(m, dict) and m.get("role") == "user"
                )
                query = " ".join(asked.split())[-MAX_QUERY_CHARS:]
                if query:
                    try:
                        hits = memory.search_response(query, 3)["hits"]
                    except MnemosyneError:
                        hits = []
                    for hit in hits:
                        refs.setdefault(hit["key"], (_note_ref(hit), "related"))
        if not refs:
            return ""
        lines = [
            "Mnemosyne vault notes this conversation relied on — keep their keys in the "
            "summary so they can be read again with mnemosyne_get:"
        ]
        for ref, label in list(refs.values())[:PRE_COMPRESS_NOTES]:
            lines.append(f"- [{ref['key']}] {ref['title']} ({ref['path']}; {label})")
        if len(refs) > PRE_COMPRESS_NOTES:
            lines.append(f"- … and {len(refs) - PRE_COMPRESS_NOTES} more")
        return "\n".join(lines)


def _note_ref(note: dict) -> dict:
    return {
        "key": note["key"],
        "title": str(note.get("title") or note["key"]),
        "path": note["path"],
    }


def _whole(value: object) -> object:
    """Digits sent as a string (models do) become an int; anything else is left for the
    library to judge."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return value


def _flag(value: object) -> object:
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    return value


def _render_recall(hits: list[dict], budget_tokens: int) -> tuple[str, list[dict]]:
    """Hits as compact lines (key, title, where, date; then the snippet) within
    ``budget_tokens``, estimated as ``markdown.estimate_tokens`` does."""
    header = "Notes from the Mnemosyne vault that match this message (read one with mnemosyne_get):"
    lines = [header]
    shown: list[dict] = []
    for hit in hits:
        where = hit["path"] + (f" › {hit['heading']}" if hit.get("heading") else "")
        flags = " (stale)" if hit.get("stale") else ""
        date = f", {hit['date']}" if hit.get("date") else ""
        block = [f"- [{hit['key']}] {hit['title']}{flags} — {where}{date}"]
        snippet = " ".join(str(hit.get("snippet") or "").split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 1].rstrip() + "…"
        if snippet:
            block.append(f"  {snippet}")
        # Whole hits while they fit; then a hit's line without its snippet; then stop.
        if estimate_tokens("\n".join([*lines, *block])) > budget_tokens:
            block = block[:1]
            if estimate_tokens("\n".join([*lines, *block])) > budget_tokens:
                break
        lines += block
        shown.append(hit)
    if not shown:
        return "", []
    return "\n".join(lines), shown
