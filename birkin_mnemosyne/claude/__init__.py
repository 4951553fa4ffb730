"""Claude Code integration: lifecycle hooks, reflexes, session capture and the installer.

Nothing here runs a daemon or calls a model. Each hook is one short ``mnemosyne hook
EVENT`` process that reads Claude Code's hook JSON on stdin (``hooks``), firing the
reflex triggers notes declare (``birkin_mnemosyne.reflexes``, kept in the index); a
transcript is read without its private spans (``transcript``) and becomes a journal
note (``capture``); ``install`` writes the hooks and the MCP registration into Claude
Code's settings and removes exactly that again. docs/how-to/claude-code.md is the guide.
"""
