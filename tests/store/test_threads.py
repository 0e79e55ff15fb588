"""Threads of JSON records: replies of a matched post, and what a question asks for."""

import json

from ctxmode.store import threads
from ctxmode.store.knowledge import KnowledgeBase


def test_what_a_query_asks_for():
    assert threads.asked(["why", "does", "the", "pool", "hang"]) == "cause"
    assert threads.asked(["how", "do", "i", "rotate", "the", "key"]) == "answer"
    assert threads.asked(["what", "causes", "the", "leak"]) == "cause"
    assert threads.asked(["worker", "pool", "hang"]) is None
    assert threads.asked([]) is None


def test_a_reply_reads_like_a_cause_or_a_fix():
    assert threads.answer_cue("cause", "Root cause: the lock is never released.") == 1.0
    assert threads.answer_cue("cause", "Can reproduce on Linux.") == 0.0
    assert threads.answer_cue("answer", "Workaround: set `X=0` until the fix ships.") == 1.0
    assert threads.answer_cue(None, "Root cause: anything.") == 0.0


def test_the_replies_of_a_post_are_the_records_chunked_below_it(tmp_path):
    export = [
        {"number": 1, "title": "Hang", "body": "It hangs " * 10, "comments": [
            {"id": 11, "body": "Same."}, {"id": 12, "body": "Cause found.", "replies": [
                {"id": 13, "body": "Thanks."}]}]},
        {"number": 2, "title": "Other", "body": "Unrelated " * 10},
    ]  # fmt: skip
    with KnowledgeBase.open(str(tmp_path)) as kb:
        kb.index_text("export", json.dumps(export), fmt="json")
        ids = {title: cid for cid, title in kb.conn.execute("SELECT id, title FROM kb_chunks")}
        post = ids["1: Hang"]
        found = threads.replies(kb.conn, [(post, 1, "1: Hang")])
    assert {ids[t] for t in ids if t.startswith("1: Hang > ")} == set(found)
    assert set(found.values()) == {post}
    assert ids["2: Other"] not in found
