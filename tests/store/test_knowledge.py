import os
import time

import pytest

from ctxmode.storage import project
from ctxmode.store import indexing
from ctxmode.store.knowledge import KnowledgeBase, StoreInputError

GUIDE = """# Authentication
To obtain an authentication token, call `createWidgetFactory()` before anything else.
Tokens are signed with the server key and carry the user's scopes. Keep the token in
memory only: never write it to disk or to logs, and never share it between processes.
The factory also sets up the retry policy used by every later request.

## Troubleshooting
If the token expired, the server answers 401 Unauthorized.
Refresh tokens rotate daily; request a new one with the refresh endpoint.
When the clock of the client drifts, signatures fail as well: check the system time
before anything else, then look at the proxy, which may strip the header entirely.
Last, compare the scopes in the token with the ones the endpoint requires.

# Databases
Running migrations on several databases at once is supported.
Open a connection with sqlite3.connect(path) and keep it for the whole request.
Each migration runs in its own transaction and records its number, so a crash halfway
leaves the schema at a known version that the next start continues from.

```python
def open_database(path):
    return sqlite3.connect(path)
```
"""


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        yield kb


def top(kb, query, **kw):
    result = kb.search([query], **kw)[0]
    return result.hits[0] if result.hits else None


def test_index_text_reports_counts_and_records_the_source(kb):
    result = kb.index_text("guide", GUIDE)
    assert (result.label, result.chunk_count, result.code_chunk_count) == ("guide", 3, 1)
    info = kb.get_source("guide")
    assert info.chunk_count == 3 and info.code_chunk_count == 1
    assert info.byte_count == result.byte_count > 0
    assert kb.chunk_count() == 3
    assert [s.label for s in kb.sources()] == ["guide"]


def test_reindexing_a_label_replaces_it_and_duplicates_nothing(kb):
    kb.index_text("guide", GUIDE)
    kb.index_text("guide", GUIDE)
    assert kb.chunk_count() == 3
    kb.index_text("guide", "# Only\nzebra crossing\n")
    assert kb.chunk_count() == 1
    assert top(kb, "zebra").source == "guide"
    assert top(kb, "Unauthorized") is None
    assert len(kb.search(["zebra"], limit=10)[0].hits) == 1


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("Unauthorized", "Authentication > Troubleshooting"),  # exact
        ("rotating tokens", "Authentication > Troubleshooting"),  # inflected (porter)
        ("running migration", "Databases"),  # inflected
        ("createWid", "Authentication"),  # identifier fragment
        ("WidgetFactory", "Authentication"),  # camelCase part
        ("sqlite3.connect", "Databases"),  # dotted identifier
        ("open_datab", "Databases"),  # fragment of a snake_case identifier (prefix)
        ("sqlite3.conect", "Databases"),  # typo inside a dotted identifier
        ("authentcation", "Authentication"),  # 1-letter typo
        ("Unauthorzed tokn", "Authentication > Troubleshooting"),  # typos in two words
        ("how do I refresh an expired token?", "Authentication > Troubleshooting"),  # question
    ],
)
def test_queries_find_their_passage(kb, query, title):
    kb.index_text("guide", GUIDE)
    kb.index_text("other", "# Noise\nNothing relevant lives here, only filler prose.\n")
    hit = top(kb, query)
    assert hit is not None, query
    assert hit.title == title


def test_typo_correction_is_reported(kb):
    kb.index_text("guide", GUIDE)
    result = kb.search(["authentcation tokn"])[0]
    assert result.corrected_query == "authentication token"
    assert kb.search(["authentication"])[0].corrected_query is None


@pytest.mark.parametrize(
    "query", ["foo-bar", "c++", "AND", 'a "lone quote', "NEAR(x y)", "*", "(", "^"]
)
def test_raw_user_text_never_breaks_the_query(kb, query):
    kb.index_text("guide", GUIDE + "\nfoo-bar and c++ appear here\n")
    kb.search([query])  # no exception


def test_empty_and_very_long_queries_are_answered(kb):
    kb.index_text("guide", GUIDE)
    assert kb.search(["", "   ", "***"])[0].hits == []
    long_query = "token " + " ".join(f"word{i}" for i in range(500))
    kb.search([long_query])  # bounded work, no error


def test_hyphenated_words_match_as_a_phrase(kb):
    kb.index_text("guide", GUIDE + "\n# Extra\nfoo-bar and c++ appear here\n")
    assert top(kb, "foo-bar").title == "Extra"


def test_snippet_contains_the_matching_line_not_just_the_first_lines(kb):
    lines = [f"filler line number {i} says nothing in particular" for i in range(80)]
    lines[61] = "the needle is hiding in this exact line"
    kb.index_text("haystack", "\n".join(lines), "plain")
    hit = top(kb, "needle", snippet_chars=300)
    assert "the needle is hiding in this exact line" in hit.snippet
    assert len(hit.snippet) <= 300
    assert hit.snippet.startswith("…")


def test_snippet_in_one_giant_line_keeps_the_match(kb):
    text = "lorem ipsum " * 2000 + " needle here " + "dolor sit " * 2000
    kb.index_text("giant", text, "plain")
    hit = top(kb, "needle", snippet_chars=200)
    assert "needle" in hit.snippet and len(hit.snippet) <= 200


def test_limit_is_honoured_exactly_and_equal_titles_do_not_collapse(kb):
    filler = "The mirror answered slowly, so the client waited and tried once more. " * 5
    body = "".join(
        f"## Step\nretry number {i} of the flaky download\n{filler}\n\n" for i in range(8)
    )
    kb.index_text("log", body)
    hits = kb.search(["flaky download"], limit=5)[0].hits
    assert len(hits) == 5
    assert {h.title for h in hits} == {"Step"}
    assert len({h.chunk_id for h in hits}) == 5
    assert len(kb.search(["flaky download"], limit=8)[0].hits) == 8


def test_hits_carry_source_title_type_and_date(kb):
    before = time.time()
    kb.index_text("guide", GUIDE)
    hit = top(kb, "open_database")
    assert hit.source == "guide"
    assert hit.content_type == "code"
    assert before - 1 <= hit.indexed_at <= time.time()


def test_source_and_content_type_filters(kb):
    kb.index_text("docs:guide", GUIDE)
    kb.index_text("notes", "# Token notes\ntoken token token\n")
    assert {h.source for h in kb.search(["token"], limit=10, source="docs")[0].hits} == {
        "docs:guide"
    }
    hits = kb.search(["connect"], limit=10, content_type="code")[0].hits
    assert hits and all(h.content_type == "code" for h in hits)
    assert kb.search(["token"], source="100%_no")[0].hits == []


def test_several_queries_in_one_call(kb):
    kb.index_text("guide", GUIDE)
    results = kb.search(["Unauthorized", "migrations", "zzzz"])
    assert [r.query for r in results] == ["Unauthorized", "migrations", "zzzz"]
    assert results[0].hits and results[1].hits and not results[2].hits


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("abc\x00def", "binary"),
        ("bad \ud800 surrogate", "Unicode"),
    ],
)
def test_bad_text_is_refused_and_changes_nothing(kb, text, message):
    kb.index_text("guide", GUIDE)
    with pytest.raises(StoreInputError, match=message):
        kb.index_text("guide", text)
    assert kb.get_source("guide").chunk_count == 3
    assert top(kb, "Unauthorized") is not None


def test_bad_files_are_refused_with_one_line_and_change_nothing(kb, tmp_path):
    kb.index_text("guide", GUIDE)
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02")
    (tmp_path / "latin1.txt").write_bytes(("x" * 3_000_000).encode() + "café".encode("latin-1"))
    cases = {
        "missing.md": "no such file",
        "empty.md": "empty",
        "blob.bin": "binary",
        "latin1.txt": "not valid UTF-8",
    }
    for name, message in cases.items():
        with pytest.raises(StoreInputError, match=message) as info:
            kb.index_file(str(tmp_path / name), label="guide")
        assert "\n" not in str(info.value)
    assert kb.get_source("guide").chunk_count == 3
    assert [s.label for s in kb.sources()] == ["guide"]


def test_unknown_format_is_refused(kb):
    with pytest.raises(StoreInputError, match="format"):
        kb.index_text("x", "text", "yaml")


def test_index_file_picks_the_format_from_the_extension(kb, tmp_path):
    (tmp_path / "data.json").write_text('{"services": [{"name": "api", "port": 8080}]}')
    (tmp_path / "tool.py").write_text("def handler(event):\n    return event\n")
    assert kb.index_file(str(tmp_path / "data.json")).code_chunk_count == 1
    result = kb.index_file(str(tmp_path / "tool.py"), label="tool")
    assert result.code_chunk_count == 1
    assert kb.get_source("data.json").file_path == os.path.realpath(tmp_path / "data.json")


def test_changed_files_are_reindexed_on_the_next_search(kb, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\nthe first version mentions apples\n")
    kb.index_file(str(path), label="notes")
    assert top(kb, "apples") is not None
    path.write_text("# Notes\nthe second version mentions oranges instead\n")
    os.utime(path, (time.time() + 10, time.time() + 10))
    kb._last_stale_check = 0.0  # the check is throttled to once every few seconds
    assert top(kb, "oranges").source == "notes"
    assert top(kb, "apples") is None


def test_the_change_check_is_bounded_yet_reaches_every_file_and_every_hit(
    kb, tmp_path, monkeypatch
):
    fruits = ["apples", "melons", "grapes", "plums", "figs", "limes"]
    paths = [tmp_path / f"{fruit}.md" for fruit in fruits]
    for path, fruit in zip(paths, fruits, strict=True):
        path.write_text(f"# Notes\nall about {fruit}\n")
        kb.index_file(str(path), label=fruit)
    paths[0].write_text("# Notes\nnow about pears\n")  # a hit of its old words
    paths[5].write_text("# Notes\nnow about kiwis\n")  # found by the round robin
    for path in (paths[0], paths[5]):
        os.utime(path, (time.time() + 10, time.time() + 10))
    monkeypatch.setattr(indexing, "STALE_CHECK_BATCH", 2)
    grapes = kb.conn.execute("SELECT id FROM kb_sources WHERE label = 'grapes'").fetchone()[0]
    monkeypatch.setitem(indexing._stale_cursor, kb.root, grapes)  # next: plums, figs
    kb._last_stale_check = 0.0
    assert top(kb, "apples") is None  # the hit's file changed: answered from what it says now
    for _ in range(3):  # 6 files, 2 per search
        kb._last_stale_check = 0.0
        kb.search(["unrelated"])
    assert top(kb, "kiwis").source == "limes"


def test_delete_purge_and_prune_by_last_use(kb):
    kb.index_text("a", "# A\nalpha words\n")
    kb.index_text("b", "# B\nbravo words\n")
    kb.index_text("c", "# C\ncharlie words\n")
    old = time.time() - 40 * 86400
    kb.conn.execute("UPDATE kb_sources SET indexed_at = ?, last_used_at = ?", (old, old))
    kb.search(["bravo"])  # using a source keeps it
    assert kb.prune(max_idle_days=30) == 2
    assert [s.label for s in kb.sources()] == ["b"]
    assert kb.delete_source("b") is True
    assert kb.delete_source("b") is False
    kb.index_text("d", "# D\ndelta\n")
    assert kb.purge() == 1
    assert kb.chunk_count() == 0 and kb.sources() == []
    assert top(kb, "delta") is None


def test_distinctive_terms_are_words_never_numbers(kb):
    sections = "".join(
        f"## Request {i}\nstatus 200 took {100 + i} ms for endpoint_{i % 3} "
        f"{'checkout' if i % 2 else 'inventory'} service\n\n"
        for i in range(12)
    )
    kb.index_text("log", sections)
    found = kb.distinctive_terms("log")
    assert found
    assert not any(word.isdigit() for word in found)
    assert kb.distinctive_terms("missing") == []


def test_a_corrupt_database_is_moved_aside_and_recovered(tmp_path):
    root = str(tmp_path)
    with KnowledgeBase.open(root) as kb:
        kb.index_text("guide", GUIDE)
    db_path = project.project_db_path(root)
    with open(db_path, "r+b") as f:
        f.seek(0)
        f.write(b"this is not a database at all" * 200)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)
    with KnowledgeBase.open(root) as kb:
        assert kb.sources() == []
        kb.index_text("guide", GUIDE)
        assert top(kb, "Unauthorized") is not None
    aside = [n for n in os.listdir(os.path.dirname(db_path)) if ".corrupt-" in n]
    assert aside


def test_wrapping_an_open_connection_leaves_it_open(tmp_path):
    from ctxmode.storage import schema

    conn = schema.open_project_db(str(tmp_path))
    with KnowledgeBase(conn) as kb:
        kb.index_text("x", "# X\nxylophone\n")
    assert conn.execute("SELECT count(*) FROM kb_chunks").fetchone()[0] == 1
    conn.close()


SECRET_LINES = (
    "export DB_PASS=hunter2pw\n"
    "mysql -uroot -pS3cretPw prod\n"
    "AccountKey=c2VjcmV0a2V5dmFsdWU=;EndpointSuffix=core\n"
)
SECRET_VALUES = ("hunter2pw", "S3cretPw", "c2VjcmV0a2V5dmFsdWU=")


def stored_text(kb: KnowledgeBase) -> str:
    rows = kb.conn.execute("SELECT title || content || terms FROM kb_chunks").fetchall()
    vocab = kb.conn.execute("SELECT group_concat(word, ' ') FROM kb_vocab").fetchone()[0]
    return "\n".join(row[0] for row in rows) + (vocab or "")


def test_indexed_output_is_stored_without_its_secrets(kb):
    noise = "".join(f"line {i} of build output\n" for i in range(3000))
    kb.index_stream("exec:shell:1", [noise, SECRET_LINES, noise])
    stored = stored_text(kb)
    assert not [value for value in SECRET_VALUES if value in stored]
    assert "DB_PASS=[FILTERED]" in stored and "-p[FILTERED]" in stored


def test_a_private_key_is_filtered_whole_across_pieces_blocks_and_chunks(kb):
    body = "".join(f"MIIEowIBAAKCAQEA1c7z5Pad7OejecsQ0bu3aumzZ{i:04d}\n" for i in range(200))
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n"
    noise = "".join(f"line {i} of build output\n" for i in range(2_600))  # ~64 KB
    kb.index_stream("exec:shell:2", [noise, key[:3000], key[3000:], "after\n"])
    stored = stored_text(kb)
    assert "MIIEowIBAAKCAQEA" not in stored and "line 2599 of build output" in stored


def test_a_named_file_is_filtered_unless_redaction_is_off(kb, tmp_path, monkeypatch):
    path = tmp_path / "deploy.env"
    path.write_text(SECRET_LINES)
    kb.index_file(str(path), "deploy")
    assert "hunter2pw" not in stored_text(kb)
    monkeypatch.setenv("CTXMODE_REDACT", "off")
    kb.index_file(str(path), "deploy")
    assert all(value in stored_text(kb) for value in SECRET_VALUES)
    kb.index_stream("exec:shell:3", [SECRET_LINES])  # what ctxmode captures on its own
    assert kb.search(["hunter2pw"], source="exec:shell:3")[0].hits == []
