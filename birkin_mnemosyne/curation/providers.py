"""Provider adapters: ``get_completer(name)`` returns ``complete(prompt) -> str``.

| name | runs | notes |
|---|---|---|
| ``claude`` | ``claude -p`` | Claude Code in print mode; the prompt goes on stdin |
| ``codex`` | ``codex exec --output-schema FILE -`` | the CurationPlan/1 schema constrains the reply |
| ``api`` | Anthropic Messages API over ``urllib`` | key from ``ANTHROPIC_API_KEY`` |
| ``gemini`` | ``gemini -p ...`` | Gemini CLI; the prompt goes on stdin |
| ``local`` | ``ollama run MODEL`` | model from ``MNEMOSYNE_LOCAL_MODEL`` (default below) |

The prompt always travels on stdin (never the command line, where other users of the
machine could read it). Every failure — program missing, non-zero exit, time-out,
HTTP error, no key — is a ``PlanError`` naming the fix. Tests pass a fake ``runner``
(or fake executables on ``PATH``) and a fake ``opener``; nothing here is called in tests
against a real provider.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping

from ..errors import PlanError
from .contract import PLAN_SCHEMA

__all__ = ["API_URL", "DEFAULT_API_MODEL", "DEFAULT_LOCAL_MODEL", "PROVIDERS", "get_completer"]

PROVIDERS = ("claude", "codex", "api", "gemini", "local")
API_URL = "https://api.anthropic.com/v1/messages"
API_VERSION = "2023-06-01"
DEFAULT_API_MODEL = "claude-sonnet-4-5"
DEFAULT_LOCAL_MODEL = "llama3.1"
DEFAULT_TIMEOUT = 600.0
MAX_TOKENS = 8192
_STDERR_SHOWN = 400

Complete = Callable[[str], str]


def _run(argv: list[str], prompt: str, runner, timeout: float, env: Mapping[str, str]) -> str:
    program = argv[0]
    if shutil.which(program, path=env.get("PATH")) is None:
        raise PlanError(
            f"{program!r} is not on PATH — install it, or pick another provider "
            f"({', '.join(PROVIDERS)})"
        )
    try:
        done = runner(
            argv,
            input=prompt,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
            env=dict(env),
        )
    except subprocess.TimeoutExpired:
        raise PlanError(f"{program} did not answer within {timeout:g} s — try again") from None
    except OSError as exc:
        raise PlanError(f"could not run {program}: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or "").strip()[-_STDERR_SHOWN:]
        raise PlanError(
            f"{program} exited with status {done.returncode}"
            + (f": {tail}" if tail else "")
            + " — check that it is logged in and works from a terminal"
        )
    return done.stdout or ""


def _api_completer(model: str | None, opener, timeout: float, env: Mapping[str, str]) -> Complete:
    # urllib (with http.client, ssl, email) only when the api provider is used: ~17 ms
    # of every CLI start otherwise.
    import urllib.error
    import urllib.request

    opener = opener or urllib.request.urlopen

    def complete(prompt: str) -> str:
        key = env.get("ANTHROPIC_API_KEY")
        if not key:
            raise PlanError(
                "the api provider needs ANTHROPIC_API_KEY in the environment — set it, or "
                f"pick another provider ({', '.join(PROVIDERS)})"
            )
        body = {
            "model": model or env.get("MNEMOSYNE_CURATOR_MODEL") or DEFAULT_API_MODEL,
            "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt}],
        }
        request = urllib.request.Request(
            env.get("MNEMOSYNE_API_URL") or API_URL,
            data=json.dumps(body).encode("utf-8"),
            headers={
                "content-type": "application/json",
                "x-api-key": key,
                "anthropic-version": API_VERSION,
            },
            method="POST",
        )
        try:
            with opener(request, timeout=timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise PlanError(
                f"the Messages API answered HTTP {exc.code} — check the key and model name"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            raise PlanError(f"could not reach the Messages API: {exc}") from None
        except ValueError:
            raise PlanError("the Messages API answered something that is not JSON") from None
        blocks = payload.get("content") if isinstance(payload, dict) else None
        if not isinstance(blocks, list):
            raise PlanError("the Messages API reply has no content blocks")
        return "".join(
            block.get("text", "")
            for block in blocks
            if isinstance(block, dict) and block.get("type") == "text"
        )

    return complete


def get_completer(
    name: str,
    *,
    model: str | None = None,
    runner: Callable = subprocess.run,
    opener: Callable | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Complete:
    """The ``complete(prompt) -> str`` of provider ``name`` (one of ``PROVIDERS``).

    ``runner`` and ``opener`` (default ``urllib.request.urlopen``) are what the command
    line and HTTP providers call: tests pass fakes."""
    environ: Mapping[str, str] = os.environ if env is None else env
    if name == "api":
        return _api_completer(model, opener, timeout, environ)
    if name == "claude":
        argv = ["claude", "-p", "--output-format", "text"]
        if model:
            argv += ["--model", model]
        return lambda prompt: _run(argv, prompt, runner, timeout, environ)
    if name == "gemini":
        argv = ["gemini", "-p", "Follow the instructions given on standard input."]
        if model:
            argv += ["-m", model]
        return lambda prompt: _run(argv, prompt, runner, timeout, environ)
    if name == "local":
        chosen = model or environ.get("MNEMOSYNE_LOCAL_MODEL") or DEFAULT_LOCAL_MODEL
        return lambda prompt: _run(["ollama", "run", chosen], prompt, runner, timeout, environ)
    if name == "codex":

        def complete(prompt: str) -> str:
            with tempfile.TemporaryDirectory(prefix="mnemosyne-codex-") as folder:
                schema = os.path.join(folder, "curation-plan.schema.json")
                with open(schema, "w", encoding="utf-8") as handle:
                    json.dump(PLAN_SCHEMA, handle)
                argv = ["codex", "exec", "--skip-git-repo-check", "--sandbox", "read-only"]
                argv += ["--output-schema", schema]
                if model:
                    argv += ["--model", model]
                return _run([*argv, "-"], prompt, runner, timeout, environ)

        return complete
    raise PlanError(
        f"unknown provider {name!r} — valid providers: {', '.join(PROVIDERS)}",
        valid_choices=PROVIDERS,
    )
