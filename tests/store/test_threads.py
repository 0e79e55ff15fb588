"""Threads of JSON records: replies of a matched post, and what a question asks for."""

import json

import pytest

from ctxmode.store import threads
from ctxmode.store.knowledge import KnowledgeBase


def test_what_a_query_asks_for():
    assert threads.asked(["why", "does", "the", "pool", "hang"], 2) == "cause"
    assert threads.asked(["how", "do", "i", "rotate", "the", "key"], 2) == "answer"
    assert threads.asked(["what", "causes", "the", "leak"], 2) == "cause"
    # A symptom in a few words wants what fixed it; a lone identifier wants where it is named.
    assert threads.asked(["worker", "pool", "hang"], 3) == "either"
    assert threads.asked(["e_chunk_digest"], 1) is None
    assert threads.asked([], 0) is None


def test_a_reply_reads_like_a_cause_or_a_fix():
    assert threads.answer_cue("cause", "Root cause: the lock is never released.") == 1.0
    assert threads.answer_cue("cause", "Can reproduce on Linux.") == 0.0
    assert threads.answer_cue("answer", "Workaround: set `X=0` until the fix ships.") == 1.0
    assert threads.answer_cue(None, "Root cause: anything.") == 0.0
    assert threads.answer_cue("cause", "Got it, this is a lock-ordering deadlock.") == 1.0
    # A symptom's answer is its cause or its fix.
    assert threads.answer_cue("either", "Workaround: set `X=0`.") == 1.0
    assert threads.answer_cue("either", "The real cause was the proxy.") == 1.0
    assert threads.answer_cue("either", "Same here on 3.1.") == 0.0


def test_the_author_of_a_record_is_read_from_its_title():
    assert threads.author("issues > 544: Webhooks twice by oeze > comments > 92010 by kp") == "kp"
    assert threads.author("issues > 544: Webhooks twice by oeze") == "oeze"
    assert threads.author("issues > 544: Webhooks twice > comments > 92010") is None
    assert threads.author("(root)") is None


POST = "issues > 5: Locked errors by tg"  # asked by tg

# (who replied, the reply's text, how unlikely it is the answer): each doubt counts half.
REPLIES = [
    ("ay", "id: 3\nuser: ay\nbody: Start the write transactions with BEGIN IMMEDIATE.", 0.0),
    # The asker's own follow-up.
    ("tg", "id: 4\nuser: tg\nbody: WAL, and each transaction reads first.", 0.5),
    # Only asks back; and asks back as the asker.
    ("mh", "id: 2\nuser: mh\nbody: Which journal mode?\nDo the writers read first?\n", 0.5),
    ("tg", "body: Is that expected? We see it daily?", 1.0),
    # A question in passing, answered on the same reply, is an answer.
    (
        "kp",
        "body: Does it answer within 10 s?\nDeliveries time out after 10 s and are retried.",
        0.0,
    ),
    # A few words confirm or thank; they do not explain.
    ("kp", "body: Same with Podman.", 0.5),
    ("kp", "id: 8\nuser: kp\nbody: 3.0.4.\n", 0.5),
    ("tg", "body: About two months.", 1.0),
    # A reply that opens with a guess or a question back.
    ("pj", "body: Could be a corrupted local cache. Try removing it and run again.", 0.5),
    ("pj", "body: Are you swapping? 32 compilers might not fit in RAM.", 0.5),
    ("pj", "body: Probably not hung: every file is read once, so it takes hours.", 0.0),
]


@pytest.mark.parametrize(("replier", "text", "unlikely"), REPLIES)
def test_how_unlikely_a_reply_is_the_answer(replier, text, unlikely):
    assert threads.unlikely_answer(POST, f"{POST} > comments > 9 by {replier}", text) == unlikely


def test_with_no_author_on_the_post_no_reply_is_the_askers():
    unsigned = "body: Start the write transactions with BEGIN IMMEDIATE."
    assert threads.unlikely_answer("issues > 5: Locked", "issues > 5: L > c > 3", unsigned) == 0.0


EXPORT = [
    {"number": 1, "title": "Hang", "body": "It hangs " * 10, "comments": [
        {"id": 11, "body": "Same."}, {"id": 12, "body": "Cause found.", "replies": [
            {"id": 13, "body": "Thanks."}]}]},
    {"number": 2, "title": "Other", "body": "Unrelated " * 10},
]  # fmt: skip


@pytest.fixture
def export_kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        kb.index_text("export", json.dumps(EXPORT), fmt="json")
        yield kb


def test_the_replies_of_a_post_are_the_records_chunked_below_it(export_kb):
    ids = {title: cid for cid, title in export_kb.conn.execute("SELECT id, title FROM kb_chunks")}
    post = ids["1: Hang"]
    found = threads.replies(export_kb.conn, [(post, 1, "1: Hang")])
    assert {ids[t] for t in ids if t.startswith("1: Hang > ")} == set(found)
    assert set(found.values()) == {post}
    assert ids["2: Other"] not in found


def test_every_record_of_a_thread_leads_back_to_its_opening_post(export_kb):
    rows = export_kb.conn.execute("SELECT id, source_id, title FROM kb_chunks").fetchall()
    roots = threads.roots(export_kb.conn, rows)
    ids = {title: cid for cid, _, title in rows}
    for title, chunk_id in ids.items():
        opening = ids["1: Hang"] if title.startswith("1: Hang") else ids["2: Other"]
        assert roots[chunk_id] == opening, title
