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


def test_a_reply_by_the_asker_or_one_that_asks_back_is_unlikely_the_answer():
    post = "issues > 5: Locked errors by tg"
    answer = "id: 3\nuser: ay\nbody: Start the write transactions with BEGIN IMMEDIATE."
    assert threads.unlikely_answer(post, f"{post} > comments > 3 by ay", answer) == 0.0
    follow_up = "id: 4\nuser: tg\nbody: WAL, and each transaction reads first."
    assert threads.unlikely_answer(post, f"{post} > comments > 4 by tg", follow_up) == 0.5
    asking = "id: 2\nuser: mh\nbody: Which journal mode?\nDo the writers read first?\n"
    assert threads.unlikely_answer(post, f"{post} > comments > 2 by mh", asking) == 0.5
    both = "body: Is that expected? We see it daily?"
    assert threads.unlikely_answer(post, f"{post} > comments > 6 by tg", both) == 1.0
    # A question in passing, answered on the same reply, is an answer.
    passing = "body: Does it answer within 10 s?\nDeliveries time out after 10 s and are retried."
    assert threads.unlikely_answer(post, f"{post} > comments > 7 by kp", passing) == 0.0
    # No author on the post: nothing to tell the asker by.
    unsigned = "body: Start the write transactions with BEGIN IMMEDIATE."
    assert threads.unlikely_answer("issues > 5: Locked", "issues > 5: L > c > 3", unsigned) == 0.0


def test_a_reply_of_a_few_words_confirms_it_does_not_explain():
    post = "issues > 5: Locked errors by tg"
    for short in ("body: Same with Podman.", "id: 8\nuser: kp\nbody: 3.0.4.\n"):
        assert threads.unlikely_answer(post, f"{post} > comments > 8 by kp", short) == 0.5
    by_asker_too = "body: About two months."
    assert threads.unlikely_answer(post, f"{post} > comments > 9 by tg", by_asker_too) == 1.0


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


def test_a_reply_that_opens_with_a_guess_is_unlikely_the_answer():
    post = "issues > 5: Build hangs by mt"
    guess = "body: Could be a corrupted local cache. Try removing it and run again."
    assert threads.unlikely_answer(post, f"{post} > comments > 6 by pj", guess) == 0.5
    asked_back = "body: Are you swapping? 32 compilers might not fit in RAM."
    assert threads.unlikely_answer(post, f"{post} > comments > 7 by pj", asked_back) == 0.5
    answer = "body: Probably not hung: every file is read once, so it takes hours."
    assert threads.unlikely_answer(post, f"{post} > comments > 8 by pj", answer) == 0.0


def test_every_record_of_a_thread_leads_back_to_its_opening_post(export_kb):
    rows = export_kb.conn.execute("SELECT id, source_id, title FROM kb_chunks").fetchall()
    roots = threads.roots(export_kb.conn, rows)
    ids = {title: cid for cid, _, title in rows}
    for title, chunk_id in ids.items():
        opening = ids["1: Hang"] if title.startswith("1: Hang") else ids["2: Other"]
        assert roots[chunk_id] == opening, title
