"""Search quality mechanisms, through the public KnowledgeBase API on real SQLite files."""

import json

import pytest

from ctxmode.store import planning, reranking, terms
from ctxmode.store.knowledge import KnowledgeBase
from ctxmode.store.tuning import PREFIX_NAMED

FILLER = "Nothing of interest is said in this paragraph about anything at all.\n"


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        yield kb


def first(kb, query, **kw):
    result = kb.search([query], **kw)[0]
    return result, (result.hits[0] if result.hits else None)


def index_issue(kb, number, title, body, comments, asker=None):
    """Index an issue-tracker export of one issue; a comment is (id, body) or (id, login, body)."""

    def by(login):
        return {"user": {"login": login}} if login else {}

    issue = {"number": number, "title": title, **by(asker), "body": body, "comments": [
        {"id": comment[0], **by(comment[1] if len(comment) == 3 else None), "body": comment[-1]}
        for comment in comments
    ]}  # fmt: skip
    kb.index_text("export.json", json.dumps([issue]), fmt="json")


def test_a_transposition_in_a_short_word_is_corrected_towards_the_common_word(kb):
    # "defualt" shares one trigram with "default"; a stray "defalt" is as close but rare.
    kb.index_text("notes", "# Notes\nA defalt typo lives here once.\n")
    # Many words share more trigrams with "defualt" than "default" does (one: "def").
    decoys = " ".join(f"fualt{a}{b}" for a in "abcdefghijklmnop" for b in "abcdefghijklmnop")
    kb.index_text("decoys", f"# Decoys\n{decoys}\n")
    for n in range(5):
        kb.index_text(f"cfg{n}", f"# Config {n}\nThe default value of option {n} is zero.\n")
    result, hit = first(kb, "defualt value")
    assert result.corrected_query == "default value"
    assert hit.source.startswith("cfg")


def test_a_rare_vocabulary_word_near_a_common_one_is_searched_as_both(kb):
    # The corpus holds the typo too (a changelog), so it is in the vocabulary.
    kb.index_text("changelog", "* Fix: do not recieve twice.\n", fmt="plain")
    for n in range(40):
        kb.index_text(f"page{n}", f"# Page {n}\nSockets receive data in chunk {n}.\n")
    result = kb.search(["recieve"], limit=50)[0]
    assert result.corrected_query == "receive"
    sources = {h.source for h in result.hits}
    assert "changelog" in sources and "page0" in sources  # the original still matches


def test_a_word_common_in_the_corpus_is_not_corrected(kb):
    for n in range(5):
        kb.index_text(f"doc{n}", f"# Doc {n}\nThe mlock call locks memory {n}.\n")
    kb.index_text("blocks", "# Blocks\n" + "A block device.\n")
    result, hit = first(kb, "mlock")
    assert result.corrected_query is None
    assert hit.source.startswith("doc")


def test_each_misspelt_part_of_a_compound_term_is_corrected(kb):
    kb.index_text("sched", "# sched\nCall sched_setaffinity to pin a thread to a CPU.\n")
    result, hit = first(kb, "schd_setafinity")
    assert hit is not None and hit.source == "sched"
    assert result.corrected_query == "sched_setaffinity"


def test_misspelt_words_are_corrected_independently_and_none_is_dropped(kb):
    kb.index_text(
        "events",
        "# emitter.once(eventName, listener)\nAdds a one-time listener for the event.\n",
    )
    kb.index_text("emit", "# Emit\nThe emitter sends events.\n")
    result, hit = first(kb, "emiter once listner")
    assert result.corrected_query == "emitter once listener"
    assert hit.source == "events"


def test_a_fragment_of_an_identifier_finds_it(kb):
    kb.index_text(
        "open",
        "# open\n\n## Flags\n\n    O_NONBLOCK or O_NDELAY\n"
        "        When possible, the file is opened in nonblocking mode.\n",
    )
    _, hit = first(kb, "O_NONBL")
    assert hit is not None and "opened in nonblocking mode" in hit.snippet


def test_the_source_named_after_a_query_term_ranks_first(kb):
    body = "List the contents of a tar archive.\n"
    kb.index_text("man:tar(1)", f"# Manual\n\n## Operation mode\n{body}{FILLER * 3}")
    kb.index_text("man:ptargrep(1)", f"# Manual\n\n## Operation mode\n{body}")
    _, hit = first(kb, "how do I list the contents of a tar archive")
    assert hit.source == "man:tar(1)"  # although the shorter ptargrep chunk scores higher
    plan = planning.plan_query(kb.conn, "tar archive")
    weights = reranking.term_weights(kb.conn, plan)
    assert reranking.named_share("man:tar(1)", plan, weights) == pytest.approx(weights[0])
    assert reranking.named_share("man:ptargrep(1)", plan, weights) == 0.0


def test_a_constant_is_looked_up_in_the_page_its_first_part_names(kb):
    flag = "CLONE_NEWPID (since Linux 3.8)\n    Create the process in a new PID namespace.\n"
    kb.index_text("man:clone(2)", f"# clone(2)\n\n## DESCRIPTION\n{FILLER * 2}{flag}{FILLER * 3}")
    kb.index_text("man:unshare(2)", f"# unshare(2)\n\n## DESCRIPTION\n{flag}")
    _, hit = first(kb, "CLONE_NEWP")
    assert hit.source == "man:clone(2)"  # although unshare's shorter chunk scores higher
    plan = planning.plan_query(kb.conn, "CLONE_NEWPID")
    weights = reranking.term_weights(kb.conn, plan)
    assert reranking.named_share("man:clone(2)", plan, weights) == pytest.approx(PREFIX_NAMED)
    assert reranking.named_share("man:unshare(2)", plan, weights) == 0.0


def test_plain_text_hits_keep_their_first_line_as_title(kb):
    kb.index_text("log", "build started\nerror: widget failed to compile\n", fmt="plain")
    _, hit = first(kb, "widget")
    assert hit.title == "build started"


def test_an_exact_phrase_beats_the_same_words_apart(kb):
    kb.index_text("apart", "# Apart\nThe page was loaded. Later a guard stood at the door.\n")
    kb.index_text("phrase", "# Phrase\nEstablish a guard page at the end of the stack.\n")
    _, hit = first(kb, "guard page")
    assert hit.source == "phrase"


def test_rare_terms_weigh_more_than_common_ones(kb):
    kb.index_text("ssh", "# ssh\nThe ssh client keeps an idle connection open.\n")
    for n in range(20):
        kb.index_text(f"out{n}", f"# Out {n}\nTimed out {n}.\n")
    plan = planning.plan_query(kb.conn, "idle out")
    idle, out = reranking.term_weights(kb.conn, plan)
    assert idle > out and abs(idle + out - 1.0) < 1e-9


def test_the_snippet_of_a_long_chunk_shows_the_line_holding_most_query_words(kb):
    lines = [f"threads line {n}: " + FILLER for n in range(30)]
    lines.insert(20, "Specify the number of worker threads to use when compressing.\n")
    kb.index_text("xz", "# xz\n" + "".join(lines))
    _, hit = first(kb, "compressing with worker threads", snippet_chars=300)
    assert "Specify the number of worker threads to use" in hit.snippet


def test_a_misspelling_many_sources_repeat_is_searched_as_the_far_commoner_word_too(kb):
    # "chnage" is in five chunks (more than a stray typo), "change" in 120: the query
    # word is searched as both, and the page that spells it right is found.
    for n in range(5):
        kb.index_text(f"log{n}", f"* Release {n}: chnage the build flags.\n", fmt="plain")
    for n in range(119):
        kb.index_text(f"page{n}", f"# Page {n}\nA change to setting {n} applies at once.\n")
    kb.index_text("touch", "# touch\ntouch - change file timestamps\n")
    result, hit = first(kb, "chnage file timestamps")
    assert result.corrected_query == "change file timestamps"
    assert hit.source == "touch"


def test_a_word_as_common_as_its_neighbour_is_not_treated_as_a_typo(kb):
    for n in range(30):
        kb.index_text(f"a{n}", f"# A {n}\nUse epoll to wait for events {n}.\n")
        kb.index_text(f"b{n}", f"# B {n}\nUse poll to wait for events {n}.\n")
    result, hit = first(kb, "epoll")
    assert result.corrected_query is None
    assert hit.source.startswith("a")


def test_a_definition_line_is_found_below_many_short_passing_mentions(kb):
    # BM25 ranks 30 one-line mentions above the long section that defines the term;
    # the definition line still brings that section to the top.
    for n in range(30):
        kb.index_text(f"mention{n}", f"# Note {n}\nRaise RLIMIT_NOFILE first.\n")
    body = "\n".join(
        [
            "# getrlimit",
            "## Resources",
            *[
                f"       RLIMIT_OTHER{n}\n              Limits thing {n} of the process in some way.\n"
                for n in range(12)
            ],
            "       RLIMIT_NOFILE",
            "              This specifies a value one greater than the maximum file",
            "              descriptor number that can be opened by this process.",
            *[FILLER] * 20,
        ]
    )
    kb.index_text("getrlimit", body)
    _, hit = first(kb, "RLIMIT_NOFILE")
    assert hit.source == "getrlimit"


def test_a_short_query_phrase_keeps_its_stopwords(kb):
    kb.index_text("fork", "# fork\n## Notes\nPages are shared copy-on-write after fork.\n")
    kb.index_text("copier", "# copier\n## Notes\nThe tool will copy, then write a log line.\n")
    plan = planning.plan_query(kb.conn, "copy on write")
    assert plan.phrase() == "copy on write"
    _, hit = first(kb, "copy on write")
    assert hit.source == "fork"


def test_an_adverb_also_finds_its_adjective(kb):
    # "repeatedly" is a known word (no typo to correct), yet porter stems it apart.
    kb.index_text("retry", "# retry\nThe client retries repeatedly.\n")
    kb.index_text("timers", "# setInterval\nSchedules repeated execution of callback.\n")
    result = kb.search(["repeatedly"], limit=5)[0]
    assert {hit.source for hit in result.hits} == {"retry", "timers"}


def test_inflected_repeats_of_a_query_word_are_one_term():
    parsed = terms.parse_query("create a directory with its missing parent directories")
    assert [t.text for t in parsed] == ["create", "directory", "missing", "parent"]
    assert [t.text for t in terms.parse_query("locking locked pages")] == ["locking", "pages"]
    assert [t.text for t in terms.parse_query("stat status")] == ["stat", "status"]
    assert [t.text for t in terms.parse_query("str string")] == ["str", "string"]


def test_a_misspelling_nearest_a_rare_word_is_corrected_to_a_far_commoner_one(kb):
    # "tempory" is one edit from a stray "tempor" (lorem ipsum), two from "temporary".
    kb.index_text("lorem", "# Lorem\nLorem ipsum dolor sit amet, tempor incididunt.\n")
    for n in range(30):
        kb.index_text(f"tmp{n}", f"# Temp {n}\nCreate a temporary file number {n}.\n")
    result, hit = first(kb, "tempory file")
    assert result.corrected_query == "temporary file"
    assert hit.source.startswith("tmp")


def test_an_answer_in_a_comment_of_a_json_export_is_found_with_its_issue_and_comment(kb):
    index_issue(kb, 7, "Crash on start",
                "The app crashes on start after the upgrade to 2.0, every single time.", [
                    (71, "Same here."),
                    (72, "Root cause: the cache directory is created after the read."),
                ])  # fmt: skip
    _, hit = first(kb, "root cause of the crash on start")
    assert hit.title == "7: Crash on start > comments > 72"
    assert "cache directory is created after the read" in hit.snippet


def test_a_question_about_an_issue_is_answered_by_the_reply_that_gives_the_cause(kb):
    index_issue(kb, 9, "Worker pool hangs on shutdown",
                "The worker pool hangs on shutdown every time a worker task fails.", [
                    (91, "Can reproduce on Linux: the pool hangs on shutdown too."),
                    (92, "Root cause: task_done() is never called after a failure."),
                ])  # fmt: skip
    _, hit = first(kb, "why does the worker pool hang on shutdown")
    assert hit.title == "9: Worker pool hangs on shutdown > comments > 92"


def test_a_symptom_that_names_an_issue_is_answered_by_the_reply_with_the_fix(kb):
    index_issue(kb, 44, "Webhook deliveries arrive twice",
                "Our endpoint receives each event two times since the upgrade.", [
                    (441, "Deliveries time out after 10 s and are retried; your endpoint "
                     "answers after 12 s. Answer first, then process the event."),
                ])  # fmt: skip
    _, hit = first(kb, "webhook delivered twice")
    assert hit.title == "44: Webhook deliveries arrive twice > comments > 441"
    _, named = first(kb, "webhook")  # one word: where it is named, the issue itself
    assert named.title == "44: Webhook deliveries arrive twice"


def test_a_question_about_an_issue_is_not_answered_by_the_asker_or_a_question_back(kb):
    index_issue(kb, 5, "Random database is locked errors with several writers",
                "With four writer processes we get database is locked errors every hour.", [
                    (51, "mh", "Are the errors from several writers?"),
                    (52, "tg", "Yes, several writers get the errors."),
                    (53, "ay", "Begin the writes immediately."),
                ], asker="tg")  # fmt: skip
    results = kb.search(["how do I avoid database is locked errors with several writers"])
    assert results[0].hits[0].title.endswith("> comments > 53 by ay")


def test_a_question_that_matches_a_comment_is_answered_by_another_comment_of_its_thread(kb):
    index_issue(kb, 11, "Deleted folders reappear",
                "A project folder I cleaned up in March is present again on every device.", [
                    (111, "tb", "How long was it offline?"),
                    (112, "em", "Two months, that laptop sat in a drawer."),
                    (113, "tb", "Deletion records are kept for 30 days. A device offline for "
                     "longer no longer sees the deletion, so it uploads its own copy again "
                     "because it looks new."),
                ], asker="em")  # fmt: skip
    results = kb.search(["why did my laptop from the drawer bring old files back"])
    assert results[0].hits[0].title.endswith("> comments > 113 by tb")


def test_a_query_word_that_begins_a_collection_name_names_its_sources(kb):
    kb.index_text("nodejs:fs", "# fs\nNode can watch a directory for changes.\n")
    kb.index_text("man:inotify(7)", "# inotify\nWatch a directory for changes.\n")
    plan = planning.plan_query(kb.conn, "node watch directory")
    weights = reranking.term_weights(kb.conn, plan)
    assert reranking.named_share("nodejs:fs", plan, weights) == pytest.approx(weights[0])
    assert reranking.named_share("man:inotify(7)", plan, weights) == 0.0
