"""`mnemosyne related`: links, backlinks and neighbours from the command line."""

from __future__ import annotations

import json

from birkin_mnemosyne.cli import main


def test_related_text_and_json(vault, capsys):
    vault.write("a.md", "# Alpha\n\nSee [[b]] and [[nowhere]].\n")
    vault.write("b.md", "# Bravo\n\nBack to [[a]].\n")
    vault.write("c.md", "# Charlie\n\nAlpha bravo alpha words.\n")
    assert main(["--vault", str(vault.root), "related", "a", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["path"] for r in data["outbound"]] == ["b.md"]
    assert [r["path"] for r in data["backlinks"]] == ["b.md"]
    assert [r["target"] for r in data["unresolved"]] == ["nowhere"]
    assert main(["--vault", str(vault.root), "related", "a"]) == 0
    out = capsys.readouterr().out
    assert "links to:\n  b  b.md  Bravo" in out and "[[nowhere]]" in out
    assert main(["--vault", str(vault.root), "related", "zzz"]) == 1
    assert "mnemosyne: error:" in capsys.readouterr().err
