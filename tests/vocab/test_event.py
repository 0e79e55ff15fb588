"""A command redirect read back: the guidance inside its `echo`, the deny reason it becomes."""

from __future__ import annotations

import pytest

from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('echo "use ctx_execute"', "use ctx_execute"),
        ('echo  "say \\"hi\\" and \\\\ then \\$HOME"', 'say "hi" and \\ then $HOME'),
        ('echo "multi\nline"', "multi\nline"),
        ("echo hi", ""),
        ('echo ""', ""),
        ('echoo "x"', ""),
        ('ls "x"', ""),
    ],
)
def test_unwrap_echo_returns_the_guidance_inside_a_redirect_command(command, expected):
    assert ev.unwrap_echo(command) == expected


def test_redirect_reason_prefers_the_plain_guidance_then_the_unwrapped_echo():
    redirect = Decision.redirect('curl is "bad" here', {"command": "curl x", "timeout": 5})
    assert ev.redirect_reason(redirect) == 'curl is "bad" here'
    bare = Decision.modify({"command": 'echo "from the echo"'})
    assert ev.redirect_reason(bare) == "from the echo"
    assert ev.redirect_reason(Decision.modify({"prompt": "x"})) == ""
    assert ev.redirect_reason(Decision.deny("no")) == ""
