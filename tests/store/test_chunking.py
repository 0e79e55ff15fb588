import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.store.chunking import (
    MAX_CHUNK_BYTES,
    Chunk,
    chunk_code,
    chunk_json,
    chunk_markdown,
    chunk_plain,
    chunk_text,
    split_long_line,
)

FORMATS = ["markdown", "plain", "json", "code"]

# Text that exercises the chunkers: headings, fences, blank lines, long runs, multibyte chars.
pieces = st.one_of(
    st.text(max_size=300),
    st.sampled_from(["# T\n", "## U\n", "#### V\n", "```py\n", "```\n", "\n\n", "def f():\n"]),
    st.builds(
        lambda c, n: c * n,
        st.sampled_from(["x", "é", "€", "😀", " ", "a b", "\n"]),
        st.integers(0, 6000),
    ),
)
documents = st.lists(pieces, max_size=12).map("".join)


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


@settings(max_examples=150, deadline=None)
@given(text=documents, fmt=st.sampled_from(FORMATS))
def test_no_chunk_is_over_4_kb_whatever_the_input(text, fmt):
    for chunk in chunk_text(text, fmt):
        assert nbytes(chunk.content) <= MAX_CHUNK_BYTES
        assert chunk.kind in ("code", "prose")


@settings(max_examples=50, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=3000),
        lambda children: (
            st.lists(children, max_size=40)
            | st.dictionaries(st.text(max_size=20), children, max_size=20)
        ),
        max_leaves=300,
    )
)
def test_json_chunks_are_capped_for_any_json_value(value):
    for chunk in chunk_json(json.dumps(value)):
        assert nbytes(chunk.content) <= MAX_CHUNK_BYTES


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_single_150_kb_line_is_split_at_utf8_boundaries(fmt):
    line = ("wörd€ " * 30000)[:150_000]
    chunks = chunk_text(line, fmt)
    assert len(chunks) >= 37
    assert all(nbytes(c.content) <= MAX_CHUNK_BYTES for c in chunks)
    assert "".join(c.content for c in chunks).replace(" ", "") == line.replace(" ", "")


def test_long_lines_are_cut_at_whitespace_when_there_is_some():
    pieces = split_long_line("abcdefghi " * 1000, cap=100)
    assert all(p.endswith(" ") for p in pieces[:-1])
    assert all(nbytes(p) <= 100 for p in pieces)


def test_markdown_splits_on_headings_with_breadcrumb_titles():
    body = "words of this section " * 30  # over the small-section size: nothing merges
    text = (
        f"{body}\n# A\n{body}\n## B\n{body}\n### C\n{body}\n#### D\n{body}\n## E\n{body}\n"
        f"##### x\n{body}\n####### y\n"
    )
    chunks = chunk_markdown(text)
    assert [c.title for c in chunks] == [
        "Untitled",
        "A",
        "A > B",
        "A > B > C",
        "A > B > C > D",
        "A > E",
        "A > E > x",  # H5 and H6 split too: API references document each method under one
    ]
    assert chunks[-1].content.endswith("\n####### y")  # seven #s make no heading


def test_small_markdown_sections_join_the_next_one():
    page = "# tar(1)\n## NAME\ntar - an archiving utility\n## SYNOPSIS\ntar [OPTION...]\n"
    page += "## DESCRIPTION\n" + "GNU tar saves many files together. " * 20 + "\n## OPTIONS\n"
    page += "-x extract files. " * 40 + "\n"
    chunks = chunk_markdown(page)
    assert [c.title for c in chunks] == ["tar(1) > NAME, SYNOPSIS, DESCRIPTION", "tar(1) > OPTIONS"]
    assert chunks[0].content.startswith("tar - an archiving utility\n\nSYNOPSIS\ntar [OPTION...]")


def test_markdown_fenced_code_stays_whole_and_marks_the_chunk_as_code():
    code = "```python\n# not a heading\ndef f():\n\n    return 1\n```"
    prose = "prose only. " * 50
    chunks = chunk_markdown(f"# Usage\nCall it:\n\n{code}\n\n{prose}\n# Next\n{prose}\n")
    assert (chunks[0].title, chunks[0].kind) == ("Usage", "code")
    assert chunks[0].content.startswith(f"Call it:\n\n{code}\n\nprose only.")
    assert (chunks[1].title, chunks[1].kind) == ("Next", "prose")


def test_markdown_oversized_fence_is_split_by_lines_and_keeps_every_line():
    body = "".join(f"line_{i} = {i}\n" for i in range(3000))
    chunks = chunk_markdown(f"# Big\n```\n{body}```\n")
    assert len(chunks) > 5
    assert all(c.kind == "code" and nbytes(c.content) <= MAX_CHUNK_BYTES for c in chunks)
    assert [c.title for c in chunks[:3]] == ["Big", "Big (2)", "Big (3)"]
    joined = "\n".join(c.content for c in chunks)
    assert all(f"line_{i} = {i}" in joined for i in range(3000))


def test_markdown_large_section_splits_on_paragraphs():
    paragraphs = [f"paragraph {i}" + " word" * 150 for i in range(20)]
    chunks = chunk_markdown("# Long\n" + "\n\n".join(paragraphs))
    assert len(chunks) > 1
    for chunk in chunks:  # no paragraph is cut in two
        for part in chunk.content.split("\n\n"):
            assert part.strip() in paragraphs


def test_plain_text_packs_paragraphs_and_titles_with_their_first_line():
    text = "\n\n".join(f"Heading {i}\nbody {i}" for i in range(5))
    chunks = chunk_plain(text)
    assert len(chunks) == 1
    assert chunks[0].title == "Heading 0"
    assert chunks[0].kind == "prose"


def test_plain_text_without_blank_lines_uses_overlapping_line_windows():
    lines = [f"log line {i}" for i in range(100)]
    chunks = chunk_plain("\n".join(lines))
    assert len(chunks) == 3
    first, second = chunks[0].content.splitlines(), chunks[1].content.splitlines()
    assert first[-2:] == second[:2]  # two lines of overlap
    assert chunks[1].title == second[0]


def test_json_uses_key_paths_and_batches_arrays_with_identity_titles():
    data = {
        "users": [{"id": f"u{i}", "bio": "x" * 200} for i in range(60)],
        "config": {"db": {"host": "localhost", "port": 5432}},
        "version": 3,
    }
    chunks = chunk_json(json.dumps(data))
    titles = [c.title for c in chunks]
    assert all(c.kind == "code" for c in chunks)
    user_titles = [t for t in titles if t.startswith("users > ")]
    assert len(user_titles) > 1
    assert user_titles[0].startswith("users > u0")
    joined = "".join(c.content for c in chunks)
    assert all(f'"u{i}"' in joined for i in range(60))


def test_json_array_of_plain_values_gets_index_range_titles():
    chunks = chunk_json(json.dumps(list(range(3000))))
    assert chunks[0].title.startswith("[0-")
    assert len(chunks) > 1


def test_small_json_is_one_chunk_and_invalid_json_falls_back_to_plain_text():
    assert chunk_json('{"a": 1}') == [Chunk("(root)", '{\n "a": 1\n}', "code")]
    assert chunk_json("not json {")[0].kind == "prose"


def test_code_splits_on_top_level_definitions_with_their_comments():
    functions = "".join(
        f"# helper {i}\n@decorated\ndef function_{i}(x):\n"
        + "    x += 1\n" * 60
        + "    return x\n\n"
        for i in range(4)
    )
    chunks = chunk_code("import os\n\n" + functions)
    titles = [c.title for c in chunks]
    assert "def function_1(x):" in titles
    second = chunks[titles.index("def function_1(x):")]
    assert second.content.startswith("# helper 1\n@decorated\ndef function_1")
    assert all(c.kind == "code" for c in chunks)


EXPORT = {
    "repository": "acme/widget",
    "issues": [
        {
            "number": 7,
            "title": "Crash on start",
            "user": {"login": "ana"},
            "labels": [{"name": "bug"}, {"name": "startup"}],
            "body": "The app crashes on start.\nIt happens after the upgrade to 2.0 only.",
            "comments": [
                {"id": 71, "user": {"login": "bo"}, "body": "Thanks."},
                {
                    "id": 72,
                    "user": {"login": "cy"},
                    "body": "Root cause: the cache directory is created after\nthe first read.",
                    "replies": [{"id": 73, "user": {"login": "ana"}, "body": "Confirmed fixed."}],
                },
            ],
        }
    ],
}


def test_json_records_with_prose_are_chunks_titled_by_their_path_and_identity():
    chunks = {c.title: c for c in chunk_json(json.dumps(EXPORT))}
    issue = "issues > 7: Crash on start by ana"
    assert chunks[issue].content.splitlines()[-2:] == [
        "body: The app crashes on start.",
        "It happens after the upgrade to 2.0 only.",
    ]
    assert "labels: bug, startup" in chunks[issue].content
    answer = chunks[f"{issue} > comments > 72 by cy"]
    assert "body: Root cause: the cache directory is created after\nthe first read." in (
        answer.content
    )
    assert answer.kind == "prose"
    assert "Thanks." in chunks[f"{issue} > comments > 71 by bo"].content  # short: a record too
    assert "Confirmed" in chunks[f"{issue} > comments > 72 by cy > replies > 73 by ana"].content


prose = st.text(st.sampled_from("abc xyz\n"), min_size=60, max_size=1500).filter(lambda s: " " in s)


@settings(max_examples=40, deadline=None)
@given(
    issues=st.lists(
        st.tuples(st.integers(1, 10**6), prose, st.lists(prose, max_size=4)), max_size=6
    )
)
def test_every_comment_of_an_export_is_in_a_chunk_named_after_its_issue_and_itself(issues):
    export = [
        {"number": n, "body": body, "comments": [{"id": i, "body": c} for i, c in enumerate(cs)]}
        for n, body, cs in issues
    ]
    chunks = chunk_json(json.dumps(export))
    assert all(nbytes(c.content) <= MAX_CHUNK_BYTES for c in chunks)
    for n, _, comments in issues:
        for i, comment in enumerate(comments):
            titled = [c for c in chunks if c.title.startswith(f"{n} > comments > {i}")]
            assert titled and comment in "\n".join(c.content for c in titled)
