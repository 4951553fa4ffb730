"""A note's Markdown as safe HTML for the web page (``render_note``).

Note text is untrusted: an agent or an import wrote it. So the renderer writes every
character of it escaped and builds only the elements it knows — headings (with ids the
outline links to), paragraphs, lists and task items, block quotes, fenced and indented
code, tables, rules; inline code, emphasis, strike-through, links and wikilinks. Raw
HTML in a note shows as text. A link keeps its target only for ``http:``, ``https:``
and ``mailto:`` (anything else, ``javascript:`` included, is shown as text), and opens
with ``rel="noopener noreferrer"``; a wikilink or a link to a ``.md`` path becomes a
link inside the page (``#/note/KEY``). Images are not loaded (the page's CSP allows
none from elsewhere): their alt text is shown as a link. A redaction mark
(``[REDACTED:kind]``) is set apart as ``<span class="redacted">``. A YAML frontmatter
block is shown as a folded ``<details>``.

Standard library only; no HTML from the note reaches the output unescaped.
"""

from __future__ import annotations

import re
from html import escape
from urllib.parse import quote

__all__ = ["ANCHOR_PREFIX", "render_note", "slug"]

_SAFE_SCHEMES = ("http://", "https://", "mailto:")
# Heading ids start with this, so a heading never takes the id of an element of the
# page around it ("Status" -> h-status, not the page's #status).
ANCHOR_PREFIX = "h-"
_MAX_INLINE_DEPTH = 8

_FENCE_RE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([^`\s]*)")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_RULE_RE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_ITEM_RE = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_TASK_RE = re.compile(r"^\[([ xX])\]\s+(.*)$")
_QUOTE_RE = re.compile(r"^\s{0,3}>\s?(.*)$")
_TABLE_SEP_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")

# Inline tokens, tried in this order at each position (the first that matches wins).
_INLINE_RE = re.compile(
    r"(?P<code>(`+)(?P<code_text>.+?)(?<!`)\2(?!`))"
    r"|(?P<redacted>\[REDACTED:[^\]\s]{1,40}\])"
    r"|(?P<wiki>!?\[\[(?P<wiki_text>[^\[\]\n]{1,300})\]\])"
    r"|(?P<link>(?P<bang>!?)\[(?P<link_text>[^\[\]\n]{0,300})\]"
    r"\((?P<url>[^()\s]{1,2000})(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<auto><(?P<auto_url>(?:https?://|mailto:)[^<>\s]{1,2000})>)"
    r"|(?P<strong>\*\*(?P<strong_text>\S(?:.*?\S)?)\*\*|__(?P<strong_u>\S(?:.*?\S)?)__)"
    r"|(?P<em>\*(?P<em_text>[^*\s](?:[^*]*?[^*\s])?)\*|(?<!\w)_(?P<em_u>[^_\s](?:[^_]*?[^_\s])?)_(?!\w))"
    r"|(?P<strike>~~(?P<strike_text>\S(?:.*?\S)?)~~)"
)


def slug(text: str) -> str:
    """An id for a heading: lower case, words joined by ``-`` (letters of any script)."""
    words = re.findall(r"\w+", text.casefold())
    return "-".join(words)[:80] or "section"


def _note_href(target: str) -> str:
    """The page's address of a link target: the note, and its heading when named
    (``db1#Backups`` -> ``#/note/db1?anchor=h-backups``)."""
    name, _, heading = target.partition("#")
    href = "#/note/" + quote(name.strip(), safe="")
    if heading.strip():
        href += "?anchor=" + quote(ANCHOR_PREFIX + slug(heading), safe="")
    return href


def _link(url: str, text_html: str) -> str:
    """An ``<a>`` for a Markdown link, or its text when the target is not safe."""
    lowered = url.strip().lower()
    if lowered.startswith(_SAFE_SCHEMES):
        return (
            f'<a href="{escape(url, quote=True)}" rel="noopener noreferrer" '
            f'class="external">{text_html}</a>'
        )
    path, hash_mark, heading = url.partition("#")
    if ":" not in path.split("/", 1)[0] and path.lower().endswith(".md"):
        # a relative link to another note of the vault
        target = path.lstrip("./")[:-3] + hash_mark + heading
        return (
            f'<a href="{escape(_note_href(target), quote=True)}" class="wikilink">{text_html}</a>'
        )
    return f'<span class="link-blocked" title="{escape(url, quote=True)}">{text_html}</span>'


def _inline(text: str, depth: int = 0) -> str:
    """``text`` (one block's raw text) as escaped HTML with its inline marks."""
    if depth > _MAX_INLINE_DEPTH:
        return escape(text, quote=False)
    out: list[str] = []
    last = 0
    for match in _INLINE_RE.finditer(text):
        out.append(escape(text[last : match.start()], quote=False))
        last = match.end()
        group = match.group
        if group("code") is not None:
            out.append(f"<code>{escape(group('code_text').strip(), quote=False)}</code>")
        elif group("redacted") is not None:
            out.append(f'<span class="redacted">{escape(group("redacted"), quote=False)}</span>')
        elif group("wiki") is not None:
            inner = group("wiki_text")
            target, _, alias = inner.partition("|")
            label = alias.strip() or target.strip()
            out.append(
                f'<a href="{escape(_note_href(target), quote=True)}" class="wikilink">'
                f"{escape(label, quote=False)}</a>"
            )
        elif group("link") is not None:
            label = _inline(group("link_text"), depth + 1) or escape(group("url"), quote=False)
            if group("bang"):
                label = f"[image: {label}]"
            out.append(_link(group("url"), label))
        elif group("auto") is not None:
            url = group("auto_url")
            out.append(_link(url, escape(url, quote=False)))
        elif group("strong") is not None:
            inner = group("strong_text") or group("strong_u")
            out.append(f"<strong>{_inline(inner, depth + 1)}</strong>")
        elif group("em") is not None:
            inner = group("em_text") or group("em_u")
            out.append(f"<em>{_inline(inner, depth + 1)}</em>")
        elif group("strike") is not None:
            out.append(f"<del>{_inline(group('strike_text'), depth + 1)}</del>")
        else:  # pragma: no cover - every alternative is named above
            out.append(escape(match.group(0), quote=False))
    out.append(escape(text[last:], quote=False))
    return "".join(out)


def _split_row(line: str) -> list[str]:
    cells = line.strip()
    if cells.startswith("|"):
        cells = cells[1:]
    if cells.endswith("|") and not cells.endswith("\\|"):
        cells = cells[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", cells)]


class _Renderer:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.outline: list[dict] = []
        self._ids: dict[str, int] = {}

    def heading(self, level: int, text: str) -> None:
        base = ANCHOR_PREFIX + slug(text)
        n = self._ids.get(base, 0)
        self._ids[base] = n + 1
        anchor = base if n == 0 else f"{base}-{n + 1}"
        self.outline.append({"heading": text, "level": level, "anchor": anchor})
        self.out.append(f'<h{level} id="{escape(anchor, quote=True)}">{_inline(text)}</h{level}>')

    def paragraph(self, lines: list[str]) -> None:
        if lines:
            body = "\n".join(_inline(line.strip()) for line in lines)
            self.out.append(f"<p>{body}</p>")

    def code(self, lines: list[str], language: str = "") -> None:
        cls = f' class="language-{escape(language, quote=True)}"' if language else ""
        self.out.append(f"<pre><code{cls}>{escape(chr(10).join(lines), quote=False)}</code></pre>")

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        head = "".join(f"<th>{_inline(cell)}</th>" for cell in header)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{_inline(cell)}</td>" for cell in (row + [""] * len(header))[: len(header)]
            )
            + "</tr>"
            for row in rows
        )
        self.out.append(
            f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
        )

    def items(self, items: list[tuple[int, bool, str]]) -> None:
        """A (nested) list from (indent, ordered, text) items."""
        out: list[str] = []
        stack: list[tuple[int, str]] = []  # (indent, tag)
        for indent, ordered, text in items:
            tag = "ol" if ordered else "ul"
            while stack and indent < stack[-1][0]:
                out.append(f"</li></{stack.pop()[1]}>")
            if not stack or indent > stack[-1][0]:
                stack.append((indent, tag))
                out.append(f"<{tag}>")
            else:
                out.append("</li>")
            task = _TASK_RE.match(text)
            if task:
                checked = " checked" if task.group(1) in "xX" else ""
                out.append(
                    f'<li class="task"><input type="checkbox" disabled{checked}> '
                    f"{_inline(task.group(2))}"
                )
            else:
                out.append(f"<li>{_inline(text)}")
        while stack:
            out.append(f"</li></{stack.pop()[1]}>")
        self.out.append("".join(out))


def _frontmatter(lines: list[str]) -> tuple[list[str], list[str]]:
    """(frontmatter lines, the rest) of a note's lines."""
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 500)):
            if lines[i].strip() in ("---", "..."):
                return lines[1:i], lines[i + 1 :]
    return [], lines


def render_note(text: str, _depth: int = 0) -> tuple[str, list[dict]]:
    """(HTML, outline) of a note's Markdown ``text``; the outline lists each heading's
    ``heading``, ``level`` and ``anchor`` (the id of its ``<hN>``: ``h-`` and the
    heading's ``slug``, ``-2``, ``-3``... for a repeated one)."""
    renderer = _Renderer()
    out = renderer.out
    front, lines = _frontmatter(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    if front:
        out.append(
            '<details class="frontmatter"><summary>frontmatter</summary><pre>'
            f"{escape(chr(10).join(front), quote=False)}</pre></details>"
        )
    paragraph: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE_RE.match(line)
        if fence:
            renderer.paragraph(paragraph)
            paragraph = []
            marker = fence.group(2)
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                body.append(lines[i])
                i += 1
            renderer.code(body, fence.group(3))
            i += 1
            continue
        if not line.strip():
            renderer.paragraph(paragraph)
            paragraph = []
            i += 1
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            renderer.paragraph(paragraph)
            paragraph = []
            renderer.heading(len(heading.group(1)), heading.group(2) or "")
            i += 1
            continue
        if _RULE_RE.match(line) and not paragraph:
            out.append("<hr>")
            i += 1
            continue
        if line.startswith(("    ", "\t")) and not paragraph:
            body = []
            while i < len(lines) and (lines[i].startswith(("    ", "\t")) or not lines[i].strip()):
                body.append(lines[i][4:] if lines[i].startswith("    ") else lines[i][1:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            renderer.code(body)
            continue
        if _QUOTE_RE.match(line) and _depth < _MAX_INLINE_DEPTH:
            renderer.paragraph(paragraph)
            paragraph = []
            quoted = []
            while i < len(lines) and _QUOTE_RE.match(lines[i]):
                quoted.append(_QUOTE_RE.match(lines[i]).group(1))
                i += 1
            inner, _ = render_note("\n".join(quoted), _depth + 1)
            out.append(f"<blockquote>{inner}</blockquote>")
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_SEP_RE.match(lines[i + 1]):
            renderer.paragraph(paragraph)
            paragraph = []
            header = _split_row(line)
            rows = []
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_split_row(lines[i]))
                i += 1
            renderer.table(header, rows)
            continue
        item = _ITEM_RE.match(line)
        if item:
            renderer.paragraph(paragraph)
            paragraph = []
            items = []
            while i < len(lines):
                item = _ITEM_RE.match(lines[i])
                if item:
                    indent = len(item.group(1).expandtabs(4))
                    items.append((indent, item.group(2)[0].isdigit(), item.group(3)))
                elif lines[i].strip() and items and lines[i].startswith(" "):
                    indent, ordered, text_so_far = items[-1]
                    items[-1] = (indent, ordered, f"{text_so_far} {lines[i].strip()}")
                else:
                    break
                i += 1
            renderer.items(items)
            continue
        paragraph.append(line)
        i += 1
    renderer.paragraph(paragraph)
    return "\n".join(out), renderer.outline
