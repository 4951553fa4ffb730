"""Claude Code integration: lifecycle hooks, reflexes, session capture and the installer.

Nothing here runs a daemon or calls a model. Each hook is one short ``mnemosyne hook
EVENT`` process that reads Claude Code's hook JSON on stdin (``hooks``); reflex triggers
are read from notes (``reflexes``); a transcript becomes a journal note (``capture``,
``transcript``); ``install`` writes the hooks and the MCP registration into Claude
Code's settings and removes exactly that again.
"""
