"""Write docs/reference/cli.md from the ``mnemosyne`` parser's --help text.

Run from a checkout after changing the command line: ``python scripts/gen_cli_docs.py``.
``--check`` only compares and exits 1 when the page is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference" / "cli.md"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from birkin_mnemosyne.cli.reference import render_reference

    text = render_reference()
    current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else None
    if "--check" in argv:
        if current != text:
            print(
                f"{PAGE.relative_to(ROOT)} is out of date: run python scripts/{Path(__file__).name}"
            )
            return 1
        return 0
    if current != text:
        PAGE.write_bytes(text.encode("utf-8"))
        print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
