"""Definition lines and how searched words are spelt in text."""

import pytest

from ctxmode.store import shapes


@pytest.mark.parametrize(
    ("text", "word", "defines"),
    [
        (
            "  O_NONBLOCK or O_NDELAY\n         When possible, the file is opened in nonblocking",
            "O_NONBLOCK",
            True,
        ),
        (
            "  CLOCK_MONOTONIC_RAW (since Linux 2.6.28; Linux-specific)\n      Similar to the clock but raw and fast",
            "CLOCK_MONOTONIC_RAW",
            True,
        ),
        (
            "  -R, --dereference-recursive\n         Read all files under each directory, recursively.",
            "dereference",
            True,
        ),
        (
            "  O_NONBLOCK open file status flag.\n\n  The channel provided by a pipe is a byte stream",
            "O_NONBLOCK",
            False,
        ),
        ("  O_NONBLOCK\n  The channel provided by a pipe is a byte stream", "O_NONBLOCK", False),
        (
            "  Set O_NONBLOCK\n         When possible, the file is opened in nonblocking",
            "O_NONBLOCK",
            False,
        ),
    ],
)
def test_a_definition_line_heads_an_indented_description(text, word, defines):
    assert shapes.opens_definition(text, text.index(word)) is defines


def test_a_line_of_code_is_no_definition_line():
    code = "process.nextTick(() => {\n  ee.emit('foo', 'bar', 'baz', 'qux');\n});"
    assert shapes.opens_definition(code, 0) is False


def test_a_tag_sharing_its_line_with_the_description_defines_it():
    text = (
        "       SOCK_NONBLOCK   Set the O_NONBLOCK file status flag on the open file\n"
        "                       description (see open(2)) referred to by the new file\n"
    )
    assert shapes.opens_definition(text, text.index("SOCK_NONBLOCK")) is True
    row = "       Mount     CLONE_NEWNS     mount_namespaces(7)   Mount points\n" * 2
    assert shapes.opens_definition(row, row.index("Mount")) is False
