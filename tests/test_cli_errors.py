"""The CLI's error surface: an unexpected failure is exit 4, never mistaken for 'not found'."""

from __future__ import annotations

from birkin_mnemosyne.cli import main


def test_internal_error_exits_4_with_one_line(vault, capsys, monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    vault.write("a.md", "# A\n\nzebra\n")

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(engine_module.Mnemosyne, "search_response", broken)
    assert main(["--vault", str(vault.root), "search", "zebra"]) == 4
    err = capsys.readouterr().err
    assert err.startswith("mnemosyne: internal error: RuntimeError: boom") and err.count("\n") == 1
    assert main(["-v", "--vault", str(vault.root), "search", "zebra"]) == 4
    assert "Traceback" in capsys.readouterr().err


def test_reindex_reports_an_unwritable_cache(vault, capsys, monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    vault.write("a.md", "# A\n\nzebra\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(engine_module, "write_block_file", refuse)
    assert main(["--vault", str(vault.root), "reindex"]) == 0
    assert "not cached" in capsys.readouterr().err
