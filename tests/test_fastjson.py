import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode import fastjson

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(values)
def test_what_fastjson_writes_reads_back_like_the_json_module(value):
    text = fastjson.dumps(value)
    assert text.isascii()
    assert fastjson.loads(text) == json.loads(text)


@pytest.mark.parametrize("text", ["{", '{"a": 1} x', "[1,", "", "nul", "{'a': 1}"])
def test_malformed_documents_raise_value_error_with_a_position_or_reason(text):
    with pytest.raises(ValueError, match="malformed JSON"):
        fastjson.loads(text)


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(ValueError):
        fastjson.loads("[" * 100_000 + "]" * 100_000)
