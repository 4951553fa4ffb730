"""``mnemosyne serve``'s REST API through a real HTTP server on loopback."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from birkin_mnemosyne.memory import VaultMemory
from birkin_mnemosyne.web.server import CSP, MAX_BODY_BYTES, make_server

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "vault"
TOKEN = "t0ken-for-the-web-tests-0123456789"
AWS_KEY = "AKIAQX4TZ7PLM2NB8RWD"


class Client:
    def __init__(self, server) -> None:
        self.server = server
        self.port = server.server_address[1]
        self.host = f"127.0.0.1:{self.port}"
        self.csrf = None

    def request(self, method, path, body=None, headers=None, raw: bytes | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": self.host, **(headers or {})}
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            payload = response.read()
            kind = response.getheader("Content-Type") or ""
            parsed = json.loads(payload) if kind.startswith("application/json") else payload
            return response.status, parsed, response
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, headers=None, **kw):
        if self.csrf is None:
            self.csrf = self.get("/api/session")[1]["csrf"]
        return self.request(
            "POST", path, body, {"X-Mnemosyne-CSRF": self.csrf, **(headers or {})}, **kw
        )


def _serve(vault: Path, token: str | None = None):
    server = make_server(VaultMemory(vault), "127.0.0.1", 0, token=token)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def vault(tmp_path):
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLES, target, ignore=shutil.ignore_patterns(".mnemosyne"))
    (target / "runbooks" / "hostile.md").write_text(
        "# Hostile note\n\n<script>alert(1)</script> and [click](javascript:alert(2))\n\n"
        f"The deploy key is {AWS_KEY} for now. See [[postgres-restore]].\n",
        encoding="utf-8",
    )
    return target


@pytest.fixture
def client(vault):
    server, thread = _serve(vault)
    yield Client(server)
    server.shutdown()
    thread.join(10)
    server.close()


@pytest.fixture
def token_client(vault):
    server, thread = _serve(vault, TOKEN)
    yield Client(server)
    server.shutdown()
    thread.join(10)
    server.close()


def test_session_hands_out_the_csrf_value_and_says_no_token_is_needed(client, vault):
    status, data, _ = client.get("/api/session")
    assert status == 200
    assert data["auth"] == "none" and data["authenticated"] is True
    assert len(data["csrf"]) >= 32 and data["vault"] == str(vault)


def test_search_answers_in_the_librarys_own_shape(client, vault):
    status, data, response = client.get("/api/search?q=restore+database&limit=3")
    expected = VaultMemory(vault).search_response("restore database", limit=3)
    assert status == 200
    assert set(data) == set(expected)
    assert [h["path"] for h in data["hits"]] == [h["path"] for h in expected["hits"]]
    assert data["hits"][0]["key"] == "postgres-restore"
    assert response.getheader("Content-Security-Policy") == CSP
    assert response.getheader("Cache-Control") == "no-store"


def _library(name):
    def call(memory):
        from birkin_mnemosyne import curation
        from birkin_mnemosyne.curation import review
        from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore

        calls = {
            "latest": lambda: memory.latest("failover"),
            "host-history": lambda: memory.host_history("db1"),
            "note": lambda: memory.get_note("postgres-restore"),
            "notes": lambda: memory.list_notes("runbooks", limit=3),
            "related": lambda: memory.related("postgres-restore"),
            "graph": lambda: memory.link_graph(),
            "graph-around": lambda: memory.link_graph("postgres-restore", depth=2),
            "status": lambda: memory.status(),
            "capacity": lambda: curation.capacity(memory, curation.load_budgets(None)),
            "recent": lambda: memory.recent(5),
            "journal": lambda: memory.journal(5),
            "journal-entries": lambda: memory.journal_entries(5),
            "catalog": lambda: curation.curation_catalog(memory),
            "questions": lambda: review.questions(memory),
            "handoffs": lambda: HandoffStore(memory.vault).resume(HandoffScope("atlas")),
        }
        return calls[name]()

    return call


@pytest.mark.parametrize(
    "path,name",
    [
        ("/api/latest?q=failover", "latest"),
        ("/api/host-history?host=db1", "host-history"),
        ("/api/note?key=postgres-restore", "note"),
        ("/api/notes?zone=runbooks&limit=3", "notes"),
        ("/api/related?key=postgres-restore", "related"),
        ("/api/graph", "graph"),
        ("/api/graph?key=postgres-restore&depth=2", "graph-around"),
        ("/api/status", "status"),
        ("/api/capacity", "capacity"),
        ("/api/recent?limit=5", "recent"),
        ("/api/journal?limit=5", "journal"),
        ("/api/journal-entries?limit=5", "journal-entries"),
        ("/api/curation/catalog", "catalog"),
        ("/api/review/questions", "questions"),
        ("/api/handoffs?project=atlas", "handoffs"),
    ],
)
def test_every_read_endpoint_answers_the_librarys_shape(client, vault, path, name):
    status, data, _ = client.get(path)
    assert status == 200, data
    expected = _library(name)(VaultMemory(vault))
    assert isinstance(data, dict) and set(data) == set(expected)


def test_the_graph_around_a_note_starts_at_it_and_links_only_listed_notes(client):
    _, data, _ = client.get("/api/graph?key=postgres-restore&depth=1")
    keys = [n["key"] for n in data["nodes"]]
    assert data["center"] == keys[0] == "postgres-restore"
    assert "db1" in keys
    assert all(a in keys and b in keys for a, b in data["edges"])
    _, whole, _ = client.get("/api/graph?limit=3")
    assert len(whole["nodes"]) == 3 and whole["truncated"] is True


def test_a_note_renders_inert_with_its_secret_redacted(client):
    status, data, _ = client.get("/api/note/html?key=hostile")
    assert status == 200
    html = data["html"]
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript' not in html
    assert AWS_KEY not in html and '<span class="redacted">[REDACTED:' in html
    assert '<a href="#/note/postgres-restore" class="wikilink">' in html
    assert data["outline"] == [{"heading": "Hostile note", "level": 1, "anchor": "h-hostile-note"}]


@pytest.mark.parametrize(
    "path,status,error_type",
    [
        ("/api/search", 400, "InvalidInputError"),
        ("/api/search?q=x&limit=zero", 400, "InvalidInputError"),
        ("/api/search?q=x&limit=0", 400, "InvalidInputError"),
        ("/api/note?key=no-such-note", 404, "NoteNotFoundError"),
        ("/api/graph?key=postgres-restore&depth=9", 400, "InvalidInputError"),
        ("/api/search?q=x&include_archive=maybe", 400, "InvalidInputError"),
        ("/api/nothing-here", 404, "NotFound"),
        ("/nothing-here", 404, "NotFound"),
    ],
)
def test_errors_come_in_the_shared_shape_with_their_status(client, path, status, error_type):
    got, data, _ = client.get(path)
    assert got == status
    assert data["error"]["error_type"] == error_type and data["error"]["message"]


def test_a_method_an_endpoint_does_not_take_is_405_with_allow(client):
    status, data, response = client.post("/api/search", {})
    assert status == 405 and response.getheader("Allow") == "GET"
    status, _, response = client.get("/api/undo")
    assert status == 405 and response.getheader("Allow") == "POST"


def test_a_post_without_the_csrf_header_is_refused(client, vault):
    VaultMemory(vault).write_note("Scratch", "one line", zone="inbox")
    status, data, _ = client.request("POST", "/api/undo", {"last": True})
    assert status == 403 and data["error"]["error_type"] == "CsrfError"
    status, data, _ = client.request(
        "POST", "/api/undo", {"last": True}, {"X-Mnemosyne-CSRF": "guess"}
    )
    assert status == 403
    assert (vault / "inbox" / "scratch.md").exists()


def test_undo_previews_then_applies_only_when_confirmed(client, vault):
    done = VaultMemory(vault).write_note("Scratch", "one line", zone="inbox")
    note = vault / done["path"]
    status, preview, _ = client.post("/api/undo", {"last": True})
    assert status == 200, preview
    assert preview["transaction_id"] == done["transaction_id"] and note.exists()
    status, result, _ = client.post(
        "/api/undo", {"transaction_id": done["transaction_id"], "confirm": True}
    )
    assert status == 200, result
    assert not note.exists()
    status, again, _ = client.post(
        "/api/undo", {"transaction_id": done["transaction_id"], "confirm": True}
    )
    assert status == 409 and again["error"]["error_type"] == "JournalError"


def test_a_foreign_host_or_origin_is_refused(client):
    status, data, _ = client.get("/api/status", headers={"Host": "evil.example:80"})
    assert status == 403 and data["error"]["error_type"] == "HostError"
    status, data, _ = client.get("/api/status", headers={"Origin": "http://evil.example"})
    assert status == 403 and data["error"]["error_type"] == "OriginError"
    status, _, _ = client.get("/api/status", headers={"Origin": f"http://{client.host}"})
    assert status == 200
    status, _, _ = client.get("/api/status", headers={"Host": f"localhost:{client.port}"})
    assert status == 200


@pytest.mark.parametrize(
    "headers,raw,status,error_type",
    [
        ({"Content-Type": "text/plain"}, b'{"last": true}', 415, "UnsupportedMediaType"),
        ({"Content-Type": "application/json"}, b"{not json", 400, "InvalidInputError"),
        ({"Content-Type": "application/json"}, b"[1, 2]", 400, "InvalidInputError"),
        ({"Content-Type": "application/json"}, b'{"confirm": "yes"}', 400, "InvalidInputError"),
    ],
)
def test_bad_bodies_are_refused(client, headers, raw, status, error_type):
    got, data, _ = client.post("/api/undo", headers=headers, raw=raw)
    assert got == status and data["error"]["error_type"] == error_type


def test_an_oversized_body_is_refused_before_it_is_read(client):
    client.post("/api/session")  # fetches the csrf value
    conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
    conn.putrequest("POST", "/api/undo", skip_host=True)
    conn.putheader("Host", client.host)
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
    conn.putheader("X-Mnemosyne-CSRF", client.csrf)
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["error"]["error_type"] == "PayloadTooLarge"
    conn.close()


def test_the_page_is_served_with_its_policy(client):
    status, body, response = client.get("/")
    assert status == 200 and b"<html" in body.lower()
    assert response.getheader("Content-Security-Policy") == CSP
    assert response.getheader("X-Frame-Options") == "DENY"
    for name in ("/app.js", "/app.css"):
        status, body, _ = client.get(name)
        assert status == 200 and body


def test_with_a_token_every_api_call_needs_it(token_client):
    c = token_client
    status, data, response = c.get("/api/status")
    assert status == 401 and response.getheader("WWW-Authenticate").startswith("Bearer")
    status, data, _ = c.get("/api/status", headers={"Authorization": "Bearer wrong-token-123456"})
    assert status == 401
    status, data, _ = c.get("/api/status", headers={"Authorization": f"Bearer {TOKEN}"})
    assert status == 200 and "notes" in data
    status, session, _ = c.get("/api/session")
    assert session["auth"] == "token" and session["authenticated"] is False
    assert "vault" not in session
    status, _, _ = c.get("/")  # the page itself holds no data
    assert status == 200


def test_a_bearer_request_needs_no_csrf_header(token_client, vault):
    done = VaultMemory(vault).write_note("Scratch", "one line", zone="inbox")
    status, data, _ = token_client.request(
        "POST", "/api/undo", {"last": True}, {"Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200 and data["transaction_id"] == done["transaction_id"]


def test_login_sets_an_httponly_cookie_that_opens_the_api_and_logout_closes_it(token_client):
    c = token_client
    status, data, _ = c.post("/api/login", {"token": "not-the-token-000000"})
    assert status == 401
    status, data, response = c.post("/api/login", {"token": TOKEN})
    assert status == 200
    cookie = response.getheader("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    session = cookie.split(";")[0]
    status, data, _ = c.get("/api/status", headers={"Cookie": session})
    assert status == 200
    status, data, _ = c.get("/api/session", headers={"Cookie": session})
    assert data["authenticated"] is True
    status, _, _ = c.post("/api/logout", headers={"Cookie": session})
    assert status == 200
    status, _, _ = c.get("/api/status", headers={"Cookie": session})
    assert status == 401


def _serve_cli(vault: Path, address: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(vault), "serve"]
    return subprocess.run([*command, "--http", address], capture_output=True, text=True, timeout=60)


def test_serve_refuses_a_network_address_without_a_token(vault):
    done = _serve_cli(vault, "0.0.0.0:8765")
    assert done.returncode == 2
    assert "needs a token" in done.stderr
    done = _serve_cli(vault, "nowhere")
    assert done.returncode == 2 and "HOST:PORT" in done.stderr


def test_a_review_answer_is_applied_and_undone_through_the_api(client, vault):
    memory = VaultMemory(vault)
    body = memory.get_note("nginx-reload")["text"].split("\n", 1)[1]
    memory.write_note("Reload nginx safely (copy)", body, zone="runbooks")
    copy = vault / "runbooks" / "reload-nginx-safely-copy.md"
    _, listed, _ = client.get("/api/review/questions")
    question = next(q for q in listed["questions"] if q["kind"] == "duplicate")
    status, data, _ = client.post(
        "/api/review/apply", {"question_id": question["id"], "answer": "no-such-choice"}
    )
    assert status == 400 and "drop_second" in data["error"]["valid_choices"]
    status, done, _ = client.post(
        "/api/review/apply", {"question_id": question["id"], "answer": "drop_second"}
    )
    assert status == 200, done
    assert not copy.exists()
    status, undone, _ = client.post("/api/review/undo", {"transaction_id": done["transaction_id"]})
    assert status == 200, undone
    assert copy.exists()


def test_a_curation_plan_is_a_dry_run_until_applied_with_its_plan_id(client, vault):
    plan = {
        "format": "CurationPlan/1",
        "summary": "file the inbox note",
        "operations": [
            {"op": "rezone", "note": "inbox", "zone": "lessons", "target": None, "reason": "r"}
        ],
    }
    status, dry, _ = client.post("/api/curation/plan", {"plan": plan})
    assert status == 200, dry
    assert dry["mode"] == "preview" and [a["to"] for a in dry["accepted"]] == ["lessons/inbox.md"]
    assert (vault / "inbox.md").exists()
    status, data, _ = client.post("/api/curation/plan", {"plan": "not a plan"})
    assert status == 400 and data["error"]["error_type"] == "InvalidInputError"
    status, applied, _ = client.post(
        "/api/curation/plan", {"plan": plan, "apply": True, "plan_id": dry["plan_id"]}
    )
    assert status == 200, applied
    assert applied["mode"] == "applied" and applied["transaction_id"]
    assert (vault / "lessons" / "inbox.md").exists() and not (vault / "inbox.md").exists()


def test_a_handoff_needs_its_project(client):
    status, data, _ = client.get("/api/handoffs")
    assert status == 400 and "'project'" in data["error"]["message"]
