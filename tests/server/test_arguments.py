import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode.server import arguments as a


def test_numbers_given_as_strings_are_numbers():
    assert a.as_int({"timeout": "5000"}, "timeout") == 5000
    assert a.as_number({"x": "2.5"}, "x") == 2.5


def test_booleans_given_as_strings():
    assert a.as_bool({"b": "false"}, "b") is False
    assert a.as_bool({"b": "true"}, "b") is True
    with pytest.raises(a.ArgumentError, match="true or false"):
        a.as_bool({"b": "maybe"}, "b")


def test_arrays_given_as_json_string_or_bare_string():
    assert a.as_str_list({"q": '["a", "b"]'}, "q") == ["a", "b"]
    assert a.as_str_list({"q": "just one"}, "q") == ["just one"]
    assert a.as_str_list({"q": ["x", ""]}, "q") == ["x"]


def test_plain_string_batch_commands_are_labelled():
    assert a.as_commands({"commands": ["ls", "pwd"]}) == [("cmd_1", "ls"), ("cmd_2", "pwd")]
    assert a.as_commands({"commands": json.dumps([{"label": "l", "command": "ls"}])}) == [
        ("l", "ls")
    ]


def test_missing_required_argument_names_it():
    with pytest.raises(a.ArgumentError, match="'code'"):
        a.as_str({}, "code")


def test_range_is_enforced_with_a_clear_message():
    with pytest.raises(a.ArgumentError, match="at most 8"):
        a.as_int({"concurrency": 9}, "concurrency", minimum=1, maximum=8)


def test_fetch_requests_single_and_batch():
    assert a.as_requests({"url": "http://x", "source": "s"}) == [("http://x", "s")]
    assert a.as_requests({"requests": [{"url": "http://a"}, "http://b"]}) == [
        ("http://a", None),
        ("http://b", None),
    ]


@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(),
        st.lists(st.text()),
        st.dictionaries(st.text(), st.integers()),
    )
)
def test_coercion_either_succeeds_or_raises_argument_error(value):
    for coerce in (a.as_int, a.as_bool, a.as_str_list, a.as_str):
        try:
            coerce({"v": value}, "v", None)
        except a.ArgumentError:
            pass
