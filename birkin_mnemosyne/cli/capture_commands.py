"""Placeholder: filled in by the Claude Code work (#18)."""

from __future__ import annotations

REGISTER = ()
