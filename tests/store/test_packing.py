"""Chunk text stored compressed, and the migration that packs a database indexed before."""

import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from ctxmode.storage import db, project, schema
from ctxmode.store import packing
from ctxmode.store.knowledge import KnowledgeBase

PACKED_VERSION = schema.MIGRATIONS.index(schema._v8_packed_chunks) + 1
BODY = "The retry policy backs off exponentially; O_NONBLOCK keeps reads from waiting.\n" * 40


@given(st.text())
def test_packed_text_reads_back_as_it_was(text):
    assert packing.unpack(packing.pack(text)) == text


def test_long_text_is_stored_smaller_and_short_text_as_it_is():
    assert isinstance(packing.pack(BODY), bytes)
    assert len(packing.pack(BODY)) < len(BODY) / 4
    assert packing.pack("a short line") == "a short line"


def _index_the_old_way(conn: sqlite3.Connection, label: str, chunks: list[str]) -> None:
    """What indexing wrote before chunk text was packed: plain text in the kb_chunks table."""
    with db.write_transaction(conn):
        source = conn.execute(
            "INSERT INTO kb_sources(label, indexed_at, last_used_at) VALUES (?, 0, 0)", (label,)
        ).lastrowid
        for n, text in enumerate(chunks):
            conn.execute(
                "INSERT INTO kb_chunks(source_id, title, content, terms, kind) "
                "VALUES (?, ?, ?, '', 'prose')",
                (source, f"{label} {n}", text),
            )
        conn.execute(
            "INSERT INTO kb_fts(rowid, title, content, terms) "
            "SELECT id, title, content, terms FROM kb_chunks WHERE source_id = ?",
            (source,),
        )
        conn.execute("UPDATE kb_sources SET chunk_count = ? WHERE id = ?", (len(chunks), source))


def test_a_database_indexed_before_is_packed_in_place_and_still_searches(tmp_path, data_root):
    root = str(tmp_path)
    path = project.project_db_path(root)
    old = db.open_database(path, schema.MIGRATIONS[: PACKED_VERSION - 1])
    _index_the_old_way(old, "guide", [BODY, "Nagle's algorithm batches small segments."])
    _index_the_old_way(old, "other", ["Unrelated words about gardening tools.\n" * 20])
    old.close()

    with KnowledgeBase.open(root) as kb:
        conn = kb.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(schema.MIGRATIONS)
        assert path == conn.execute("PRAGMA database_list").fetchone()[2]  # the same file
        stored = conn.execute("SELECT typeof(content) FROM kb_chunk_rows ORDER BY id").fetchall()
        assert [row[0] for row in stored] == ["blob", "text", "blob"]
        texts = [row[0] for row in conn.execute("SELECT content FROM kb_chunks ORDER BY id")]
        assert texts[:2] == [BODY, "Nagle's algorithm batches small segments."]
        conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('integrity-check')")
        hit = kb.search(["O_NONBLOCK retry"])[0].hits[0]
        assert hit.source == "guide" and "O_NONBLOCK" in hit.snippet
        # the index forgets a source's words only when handed back its text as indexed
        assert kb.delete_source("guide")
        conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('integrity-check')")
        left = "SELECT count(*) FROM kb_fts WHERE kb_fts MATCH 'exponentially OR nagle'"
        assert conn.execute(left).fetchone()[0] == 0
        assert kb.search(["O_NONBLOCK"])[0].hits == []
        kb.index_text("guide", BODY)
        assert kb.search(["O_NONBLOCK"])[0].hits[0].source == "guide"


def test_new_chunks_are_stored_packed_and_searched_as_text(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        kb.index_text("guide", "# Retries\n\n" + BODY)
        kinds = {row[0] for row in kb.conn.execute("SELECT typeof(content) FROM kb_chunk_rows")}
        assert kinds == {"blob"}
        hit = kb.search(["exponentially"])[0].hits[0]
        assert "backs off exponentially" in hit.snippet
        kb.conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('integrity-check')")
