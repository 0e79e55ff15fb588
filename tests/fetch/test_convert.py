"""Bodies become indexable text: HTML -> markdown, JSON -> pretty JSON, text -> plain."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode.fetch.convert import body_type, to_document
from ctxmode.fetch.errors import FetchError

from .conftest import LocalServer, respond

DOC_PAGE = """<!doctype html><html><head><title>Install &amp; Configure</title>
<script>var leakedScriptText = 1;</script><style>.nav{color:red}</style></head>
<body><header><a href="/">SiteBannerText</a></header>
<nav><ul><li><a href="/a">NavigationLinkText</a></li></ul></nav>
<main><article><header><h1>Install guide<a class="headerlink" href="#install">¶</a></h1></header>
<p>Run the <strong>installer</strong> first.</p>
<div class="highlight-python"><div class="highlight"><pre><span>x</span> = <a href="/api">compute</a>(1)
print(x)</pre></div></div>
<pre><code class="language-bash">pip install ctxmode</code></pre>
<h2 id="options">Options <a href="#options" aria-hidden="true">#</a></h2>
<table><thead><tr><th>name</th><th>default</th></tr></thead>
<tbody><tr><td>ttl</td><td>24h</td></tr></tbody></table>
<form><input name="q"><button>SearchButtonText</button></form>
<noscript>NoScriptText</noscript><iframe src="/ad">IframeText</iframe>
</article></main><aside>SidebarText</aside><footer>FooterText</footer></body></html>"""


def convert(body: bytes | str, content_type: str):
    data = body.encode() if isinstance(body, str) else body
    return to_document("http://x.test/", "http://x.test/docs/", 200, content_type, data)


def test_html_becomes_markdown_with_fences_tables_and_no_chrome():
    doc = convert(DOC_PAGE, "text/html; charset=utf-8")
    assert (doc.kind, doc.title, doc.content_type) == (
        "markdown",
        "Install & Configure",
        "text/html",
    )
    assert "# Install guide\n" in doc.text
    assert "```python\nx = compute(1)\nprint(x)\n```" in doc.text
    assert "```bash\npip install ctxmode\n```" in doc.text
    assert "## Options\n" in doc.text
    assert "| name | default |" in doc.text and "| ttl  | 24h     |" in doc.text
    for noise in (
        "leakedScriptText",
        "color:red",
        "SiteBannerText",
        "NavigationLinkText",
        "SearchButtonText",
        "NoScriptText",
        "IframeText",
        "SidebarText",
        "FooterText",
        "¶",
        "](#options)",
    ):
        assert noise not in doc.text, noise


def test_pages_without_main_keep_the_body_minus_chrome():
    html = "<html><body><nav>Menu</nav><h1>Title</h1><p>Body text.</p><footer>F</footer></body>"
    doc = convert(html, "text/html")
    assert doc.text == "# Title\n\nBody text.\n"


def test_a_page_with_only_scripts_says_it_may_need_javascript():
    with pytest.raises(FetchError, match="may need JavaScript"):
        convert(
            "<html><body><div id=app></div><script>render()</script></body></html>", "text/html"
        )


def test_html_charset_comes_from_the_meta_tag():
    html = '<html><head><meta charset="iso-8859-1"></head><body><p>caf\xe9</p></body></html>'
    assert "café" in convert(html.encode("latin-1"), "text/html").text


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/vnd.api+json; charset=utf-8", "text/json"]
)
def test_json_is_pretty_printed_for_the_json_chunker(content_type: str):
    doc = convert('{"b":[1,2],"a":{"deep":"é"}}', content_type)
    assert doc.kind == "json"
    assert json.loads(doc.text) == {"b": [1, 2], "a": {"deep": "é"}}
    assert '\n  "a": {\n    "deep": "é"' in doc.text


def test_invalid_json_falls_back_to_plain_text():
    doc = convert("{not json", "application/json")
    assert (doc.kind, doc.text) == ("plain", "{not json")


@pytest.mark.parametrize("content_type", ["text/plain", "text/markdown", "application/xml", ""])
def test_text_is_kept_as_plain(content_type: str):
    doc = convert("line one\r\nline two\n", content_type)
    assert (doc.kind, doc.text) == ("plain", "line one\nline two\n")


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("image/png", b"\x89PNG\r\n\x1a\n"),
        ("application/octet-stream", b"\x00\x01\x02binary"),
        ("application/pdf", b"%PDF-1.7\n\x00\xff\xfe"),
        ("", b"\xff\xfe\x00\x00garbage"),
    ],
)
def test_binary_content_is_a_clear_error(content_type: str, body: bytes):
    with pytest.raises(FetchError, match=r"unsupported content type .* \(binary\)"):
        convert(body, content_type)


def test_an_empty_body_is_an_error():
    with pytest.raises(FetchError, match="empty body"):
        convert(b"  \n", "text/plain")


def test_untyped_html_is_sniffed():
    assert body_type("", b"  <!DOCTYPE html><html><body>x</body></html>") == "html"


@given(st.binary(max_size=256), st.sampled_from(["", "application/octet-stream", "text/html"]))
def test_any_body_converts_or_fails_with_one_line(body: bytes, content_type: str):
    try:
        doc = convert(body, content_type)
    except FetchError as exc:
        assert "\n" not in str(exc)
    else:
        assert doc.kind in ("markdown", "plain", "json") and doc.byte_count == len(body)


def test_a_served_page_goes_through_fetch_document(server: LocalServer):
    from ctxmode.fetch import fetch_document

    server.routes["/doc"] = respond(DOC_PAGE, "text/html; charset=utf-8")
    doc = fetch_document(server.url("/doc"))
    assert doc.kind == "markdown" and "```bash" in doc.text and "NavigationLinkText" not in doc.text
    assert (doc.url, doc.final_url, doc.status) == (server.url("/doc"), server.url("/doc"), 200)
