"""Turn a fetched body into indexable text: HTML -> markdown, JSON -> pretty JSON, text -> text.

HTML goes through a selectolax pre-pass (drop scripts, navigation, forms, permalink anchors;
keep only `main`/`article` when the page has one) and then `html-to-markdown` (ATX headings,
GFM tables, fenced code with its language). Both are imported lazily: only fetching needs them.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ctxmode.fetch.errors import FetchError, one_line

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser, LexborNode

Kind = Literal["markdown", "json", "plain"]
BodyType = Literal["html", "json", "text", "binary"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_JSON_TYPES = frozenset({"application/json", "text/json"})
_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
        "application/x-ndjson",
        "application/markdown",
        "application/rtf",
    }
)
_BINARY_TOP_LEVEL = frozenset({"image", "audio", "video", "font", "model"})
_SNIFF_BYTES = 8192

# Elements that are never page content.
_DROP_ALWAYS = (
    "script, style, noscript, nav, aside, iframe, svg, form, template, button, dialog, "
    "link, meta, object, embed, canvas, select, input, textarea"
)
# Site chrome; kept inside main/article, where a header usually holds the article's title.
_DROP_OUTSIDE_CONTENT = ("header", "footer")
_PERMALINK_SELECTORS = (
    "a.headerlink, a.anchor, a.anchorjs-link, a.heading-anchor, a.hash-link, a.permalink, "
    "a.header-anchor, a.direct-link, a.anchor-link"
)
_PERMALINK_TEXTS = frozenset({"", "¶", "#", "§", "🔗", "link"})
_LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight|sourceCode)-([\w+#.-]+)")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)


@dataclass(frozen=True)
class FetchedDocument:
    """A fetched URL as indexable text; `kind` picks the chunker (markdown, json or plain)."""

    url: str
    final_url: str
    status: int
    content_type: str
    kind: Kind
    text: str
    byte_count: int
    title: str | None


def media_type(content_type: str) -> str:
    """`Text/HTML; charset=utf-8` -> `text/html`."""
    return content_type.split(";", 1)[0].strip().lower()


def declared_charset(content_type: str) -> str | None:
    """The charset parameter of a Content-Type header, if it names a codec Python knows."""
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            return _known_codec(value.strip().strip("\"'"))
    return None


def _known_codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        return None


def body_type(content_type: str, body: bytes) -> BodyType:
    """Route a body by its media type; sniff when the type is missing or generic."""
    kind = media_type(content_type)
    if kind in _HTML_TYPES:
        return "html"
    if kind in _JSON_TYPES or kind.endswith("+json"):
        return "json"
    if kind.startswith("text/") or kind in _TEXT_APPLICATION_TYPES or kind.endswith("+xml"):
        return "text"
    if kind.split("/", 1)[0] in _BINARY_TOP_LEVEL:
        return "binary"
    return _sniff(body)


def _sniff(body: bytes) -> BodyType:
    head = body[:_SNIFF_BYTES]
    if b"\x00" in head:
        return "binary"
    try:
        # A multi-byte character may be cut at the sniff boundary: decode incrementally.
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return "binary"
    start = head.lstrip()[:64].lower()
    return "html" if start.startswith((b"<!doctype html", b"<html")) else "text"


def decode_body(body: bytes, content_type: str, *, html: bool = False) -> str:
    """Decode with the BOM, the declared charset, a `<meta charset>` (HTML), else UTF-8."""
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")):
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, errors="replace")
    if body.startswith(codecs.BOM_UTF16_BE):
        return body[2:].decode("utf-16-be", errors="replace")
    charset = declared_charset(content_type)
    if charset is None and html:
        match = _META_CHARSET.search(body[:4096])
        charset = _known_codec(match.group(1).decode("ascii", "replace")) if match else None
    return body.decode(charset or "utf-8", errors="replace")


def _has_ancestor(node: LexborNode, tags: tuple[str, ...]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag in tags:
            return True
        parent = parent.parent
    return False


def _drop_noise(tree: LexborHTMLParser) -> None:
    for node in tree.css(_DROP_ALWAYS):
        node.decompose()
    for tag in _DROP_OUTSIDE_CONTENT:
        for node in tree.css(tag):
            if not _has_ancestor(node, ("main", "article")):
                node.decompose()
    for node in tree.css("[hidden], [aria-hidden=true]"):
        node.decompose()
    for node in tree.css(_PERMALINK_SELECTORS):
        node.decompose()
    for node in tree.css("h1 a, h2 a, h3 a, h4 a, h5 a, h6 a"):
        href = node.attributes.get("href") or ""
        if href.startswith("#") and node.text(strip=True) in _PERMALINK_TEXTS:
            node.decompose()
    # Links inside code would turn into [text](url) noise inside the fence.
    for node in tree.css("pre a, code a"):
        node.unwrap()


def _label_code_languages(tree: LexborHTMLParser) -> None:
    """Give `<pre><code>` the language that a wrapper's class names (Sphinx, Pygments)."""
    for pre in tree.css("pre"):
        code = pre.css_first("code")
        target = code if code is not None else pre
        if _LANGUAGE_CLASS.search(target.attributes.get("class") or ""):
            continue
        node: LexborNode | None = pre
        while node is not None and node.tag not in ("body", "html"):
            match = _LANGUAGE_CLASS.search(node.attributes.get("class") or "")
            if match:
                target.attrs["class"] = f"language-{match.group(1)}"
                break
            node = node.parent


def _content_root(tree: LexborHTMLParser) -> LexborNode | None:
    """`main`, else the only `article`, else `[role=main]`, else the body."""
    main = tree.css_first("main") or tree.css_first("[role=main]")
    if main is not None:
        return main
    articles = tree.css("article")
    if len(articles) == 1:
        return articles[0]
    return tree.body


def _title(tree: LexborHTMLParser) -> str | None:
    for selector in ("title", "h1"):
        node = tree.css_first(selector)
        if node is not None and node.text(strip=True):
            return " ".join(node.text(strip=True).split())
    return None


def html_to_markdown(html: str, base_url: str | None = None) -> tuple[str, str | None]:
    """(markdown of the page's content, its title)."""
    from html_to_markdown import ConversionOptions, convert
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    title = _title(tree)
    _drop_noise(tree)
    _label_code_languages(tree)
    root = _content_root(tree)
    fragment = root.html if root is not None else ""
    options = ConversionOptions(
        heading_style="atx",
        code_block_style="backticks",
        extract_metadata=False,
        inline_data_media="alt_text_only",
        base_url=base_url,
    )
    markdown = convert(fragment or "", options).content or ""
    return markdown.strip() + "\n", title


def pretty_json(text: str) -> str | None:
    """Indented JSON for the JSON chunker, or None when `text` is not valid JSON."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def to_document(
    url: str, final_url: str, status: int, content_type: str, body: bytes
) -> FetchedDocument:
    """Convert a response body; raise FetchError for binary or empty content."""
    routed = body_type(content_type, body)
    shown_type = media_type(content_type) or "unknown"
    if routed == "binary":
        raise FetchError(
            f"unsupported content type {shown_type} (binary) from {final_url}: "
            "only HTML, JSON and text are indexed"
        )
    if not body.strip():
        raise FetchError(f"empty body from {final_url}")
    title: str | None = None
    if routed == "html":
        try:
            text, title = html_to_markdown(decode_body(body, content_type, html=True), final_url)
        except Exception as exc:  # the converters are native code: any failure is one line
            raise FetchError(f"could not convert HTML from {final_url}: {one_line(exc)}") from None
        kind: Kind = "markdown"
        if not text.strip():
            raise FetchError(f"no text content in {final_url} (the page may need JavaScript)")
    else:
        decoded = decode_body(body, content_type).replace("\r\n", "\n")
        pretty = pretty_json(decoded) if routed == "json" else None
        kind, text = ("json", pretty) if pretty is not None else ("plain", decoded)
    return FetchedDocument(url, final_url, status, shown_type, kind, text, len(body), title)
