"""Indexing text that arrives in pieces, as a command's spooled output does."""

from ctxmode.store.knowledge import KnowledgeBase


def test_pieces_split_mid_line_index_like_the_joined_text(tmp_path):
    text = "".join(f"record {i} status {'failed' if i == 777 else 'ok'}\n" for i in range(3000))
    pieces = [text[i : i + 997] for i in range(0, len(text), 997)]
    with KnowledgeBase.open(str(tmp_path)) as kb:
        streamed = kb.index_stream("streamed", iter(pieces), "plain")
        whole = kb.index_text("whole", text, "plain")
        assert streamed.chunk_count == whole.chunk_count
        assert streamed.byte_count == whole.byte_count
        hit = kb.search(["failed"], limit=1, source="streamed")[0].hits[0]
        assert "record 777 status failed" in hit.snippet
        assert kb.get_source("streamed").chunk_count == streamed.chunk_count


def test_a_stray_nul_is_dropped_instead_of_refusing_the_output(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        result = kb.index_stream("log", iter(["ok line\n", "bin\x00ary\n", "tail line\n"]))
        assert result.chunk_count >= 1
        assert "binary" in kb.search(["binary"], limit=1, source="log")[0].hits[0].snippet


def test_reindexing_a_stream_label_replaces_it(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        kb.index_stream("out", iter(["first version of the output\n"]))
        kb.index_stream("out", iter(["second version of the output\n"]))
        assert [s.label for s in kb.sources()] == ["out"]
        hits = kb.search(["version output"], limit=3, source="out")[0].hits
        assert [h.snippet.strip() for h in hits] == ["second version of the output"]
