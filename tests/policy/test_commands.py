"""Shell command splitting: every command a string would run is found, hidden ones included."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.policy.commands import extract_shell_strings, split_commands
from ctxmode.policy.permissions import RuleSet, evaluate_bash, parse_rule


def deny_rules(*patterns: str) -> RuleSet:
    return RuleSet([parse_rule(p, "deny", "test") for p in patterns])  # type: ignore[misc]


SUDO_DENY = deny_rules("Bash(sudo:*)")

BYPASSES = [
    "echo ok; sudo x",
    "echo ok && sudo x",
    "true || sudo x",
    "ls | sudo tee f",
    "$(sudo x)",
    "echo $(echo $(sudo x))",
    "`sudo x`",
    'bash -c "sudo x"',
    "sh -c 'echo a; sudo x'",
    "env A=1 sudo x",
    "A=1 sudo x",
    "command sudo x",
    "exec sudo x",
    "nohup sudo x",
    "\\sudo x",
    '"sudo" x',
    "'sudo' x",
    "s\\udo x",
    "  sudo   x  ",
    "sudo\tx",
    "echo ok\nsudo x",
    "/usr/bin/sudo x",
    "(sudo x)",
    "{ sudo x; }",
    "echo ok & sudo x",
    # beyond the brief's list
    "sudo",
    "echo ok\r\nsudo x",
    "echo ok |& sudo x",
    'echo "$(sudo x)"',
    "echo ${X:-$(sudo x)}",
    "echo $(( $(sudo id -u) + 1 ))",
    "echo $((true) ; (sudo x))",
    "zsh -c 'sudo x'",
    "dash -lc 'sudo x'",
    "bash -e -c 'true && sudo x'",
    "eval 'sudo x'",
    "eval sudo x",
    "env -i PATH=/bin sudo x",
    "env -S 'sudo x'",
    "time -p sudo x",
    "nice -n 5 sudo x",
    "timeout 10 sudo x",
    "timeout -s KILL 10 sudo x",
    "ls | xargs sudo rm",
    "ls | xargs -I{} sudo rm {}",
    "find . -name x -exec sudo rm {} \\;",
    "find . -exec echo {} \\; -exec sudo rm {} +",
    "diff <(sudo cat /etc/shadow) f",
    "tee >(sudo sh) < f",
    "bash <<EOF\nsudo x\nEOF",
    "sh <<-'EOF'\n\tsudo x\n\tEOF",
    "cat <<EOF\n$(sudo x)\nEOF",
    "bash <<< 'sudo x'",
    "echo 'sudo x' | bash",
    "printf 'sudo x' | sh -s",
    "X=sudo; $X x",
    'X="sudo x"; $X',
    "$'sudo' x",
    "$'\\x73udo' x",
    "$'\\163udo' x",
    "s''udo x",
    's""udo x',
    "if true; then sudo x; fi",
    "while true; do sudo x; done",
    "! sudo x",
    "f() { sudo x; }; f",
    "echo ok \\\n; sudo x",
    ">/dev/null sudo x",
    "2>&1 sudo x",
    "su -c 'sudo x'",
    "watch -n 1 sudo x",
    "python3 -c \"import os; os.system('sudo x')\"",
    "node -e \"require('child_process').execSync('sudo x')\"",
    "busybox sh -c 'sudo x'",
    "sudo -u root bash -c 'id'",
    "echo ok;sudo x",
    "echo ok&&sudo x",
    "echo ok||sudo x",
    "echo ok|sudo x",
    "su\\\ndo x",
    "git commit -m \"$(cat <<'EOF'\nFix (don't break)\nEOF\n)\" && sudo x",
    "python - <<'PY'\nimport os\nos.system('sudo x')\nPY",
    "node <<EOF\nrequire('child_process').execSync('sudo x')\nEOF",
    "cat <<EOF | bash\nsudo x\nEOF",
    "case $x in a) sudo x;; esac",
    "for f in *; do sudo rm $f; done",
    "/usr/bin/su?o x",
    "s[u]do x",
    "/???/???/s*o x",
    "echo ok; su* x",
]


@pytest.mark.parametrize("command", BYPASSES)
def test_bypass_attempt_is_denied_by_a_sudo_prefix_rule(command: str) -> None:
    verdict = evaluate_bash(command, SUDO_DENY)
    assert verdict.action == "deny", split_commands(command)
    assert verdict.rule == "Bash(sudo:*)"
    name = verdict.matched_command.split(" ")[0].rsplit("/", 1)[-1]
    assert fnmatchcase("sudo", name)  # the reason names the hidden command itself


NOT_RUN = [
    'echo "sudo is a word"',
    "grep sudo file",
    'git commit -m "fix sudo docs"',
    "echo 'sudo x'",
    "echo sudo x",
    "cat <<'EOF'\n$(sudo x)\nEOF",
    "cat <<EOF\nsudo x\nEOF",
    "echo ok # ; sudo x",
    "command -v sudo",
    "which sudo",
    "man sudo",
    "sudoku --hard",
    "echo '$(sudo x)'",
    "grep -r 'sudo ' .",
    "echo $((1 + 2))",
    "git log --grep=sudo",
    "bash script.sh sudo",
    "[ -f sudo ] && echo ok",
    "git commit -m \"$(cat <<'EOF'\nFix sudo docs (don't break)\nsudo x\nEOF\n)\"",
    "python - <<'PY'\nprint('sudo x')\nPY",
]


@pytest.mark.parametrize("command", NOT_RUN)
def test_sudo_that_never_runs_is_not_denied(command: str) -> None:
    assert evaluate_bash(command, SUDO_DENY).action is None, split_commands(command)


def test_segments_are_split_on_every_control_operator() -> None:
    found = split_commands("a 1; b 2 && c 3 || d 4 | e 5 & f 6\ng 7")
    for expected in ("a 1", "b 2", "c 3", "d 4", "e 5", "f 6", "g 7"):
        assert expected in found


def test_quotes_and_whitespace_are_normalized() -> None:
    assert split_commands("  git   commit  -m   'a   b'  ") == ["git commit -m a b"]


def test_wrapped_commands_are_listed_with_the_whole_command() -> None:
    found = split_commands("sudo -u bob rm -rf /tmp/x")
    assert found[:2] == ["sudo -u bob rm -rf /tmp/x", "rm -rf /tmp/x"]


def test_redirections_stay_attached_to_their_targets() -> None:
    assert split_commands("make 2>&1 >out.log")[0] == "make 2>&1 >out.log"


def test_a_path_before_the_command_name_also_yields_the_bare_name() -> None:
    assert split_commands("/usr/bin/git status") == ["/usr/bin/git status", "git status"]


def test_command_lookup_is_not_execution() -> None:
    assert "sudo" not in split_commands("command -v sudo")


def test_unterminated_quotes_and_substitutions_do_not_raise() -> None:
    for text in ("echo 'abc", 'echo "abc', "echo $(abc", "echo `abc", "echo ${x", "cat <<EOF\nx"):
        assert isinstance(split_commands(text), list)


@pytest.mark.parametrize("levels", [40, 300, 3000])
def test_nesting_too_deep_to_search_asks_instead_of_passing(levels: int) -> None:
    text = "echo " + "$(" * levels + "sudo x" + ")" * levels
    assert evaluate_bash(text, SUDO_DENY).action in ("deny", "ask")
    assert evaluate_bash(text, RuleSet()).action is None


def test_python_list_form_is_joined_into_one_command() -> None:
    code = "import subprocess\nsubprocess.run(['rm', '-rf', '/'], check=True)"
    assert "rm -rf /" in extract_shell_strings("python", code)


def test_ruby_backticks_and_percent_x_are_commands() -> None:
    assert "sudo ls" in extract_shell_strings("ruby", "puts `sudo ls`")
    assert "sudo ls" in extract_shell_strings("ruby", "puts %x(sudo ls)")


def test_code_without_a_shell_escape_yields_nothing() -> None:
    assert extract_shell_strings("python", "print('sudo rm -rf /')") == []


# -- property tests ---------------------------------------------------------------------

WORD = st.text(alphabet="abcdefxyz0123-_./", min_size=1, max_size=6)


def quoted_sudo() -> st.SearchStrategy[str]:
    return st.sampled_from(
        ["sudo", '"sudo"', "'sudo'", "\\sudo", "s\\udo", "su''do", '"su"do', "/usr/bin/sudo"]
    )


@st.composite
def executing_sudo(draw: st.DrawFn) -> str:
    """A command that runs sudo, possibly wrapped, substituted or handed to a shell."""
    args = " ".join(draw(st.lists(WORD, max_size=3)))
    command = f"{draw(quoted_sudo())} {args}".strip()
    wrapper = draw(
        st.sampled_from(
            [
                "",
                "env A=1 ",
                "A=1 ",
                "command ",
                "exec ",
                "nohup ",
                "time ",
                "nice -n 3 ",
                "timeout 5 ",
                "xargs ",
                "env -i ",
            ]
        )
    )
    command = wrapper + command
    shape = draw(st.integers(0, 6))
    if shape == 1:
        command = f"$({command})"
    elif shape == 2:
        command = f"echo `{command}`"
    elif shape == 3 and "'" not in command:
        command = f"bash -c '{command}'"
    elif shape == 4:
        command = f"( {command} )"
    elif shape == 5:
        command = f"{{ {command}; }}"
    elif shape == 6:
        command = f'echo "$({command})"'
    return command


@st.composite
def harmless(draw: st.DrawFn) -> str:
    """A command that mentions sudo only as data."""
    word = draw(WORD)
    return draw(
        st.sampled_from(
            [
                f"echo {word}",
                f"echo 'sudo {word}'",
                f'grep "sudo" {word}',
                f"ls {word}",
                f"git commit -m 'sudo {word}'",
                f"cat {word}",
                "true",
            ]
        )
    )


SEPARATORS = st.sampled_from([";", " ; ", "&&", " || ", " | ", " & ", "\n", "\t;\t", " |& "])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.data()), min_size=1, max_size=5), st.data())
def test_every_executing_sudo_is_found_and_no_quoted_one(
    parts: list[tuple[bool, st.DataObject]], data: st.DataObject
) -> None:
    commands = [d.draw(executing_sudo() if runs else harmless()) for runs, d in parts]
    text = commands[0]
    for command in commands[1:]:
        text += data.draw(SEPARATORS) + command
    expected = any(runs for runs, _ in parts)
    assert (evaluate_bash(text, SUDO_DENY).action == "deny") is expected, split_commands(text)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=200))
def test_splitter_never_raises_on_arbitrary_text(text: str) -> None:
    found = split_commands(text)
    assert all(isinstance(form, str) and form == " ".join(form.split()) for form in found)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab $()`'\"\\;&|<>{}\n#=-c", max_size=60))
def test_splitter_never_raises_on_shell_metacharacter_soup(text: str) -> None:
    assert isinstance(split_commands(text), list)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(BYPASSES), st.lists(st.sampled_from([" ", "  ", "\t", " \t "]), min_size=1))
def test_bypasses_survive_whitespace_variations(command: str, spaces: list[str]) -> None:
    pieces = command.split(" ")
    varied = pieces[0] + "".join(
        spaces[k % len(spaces)] + piece for k, piece in enumerate(pieces[1:])
    )
    assert evaluate_bash(varied, SUDO_DENY).action == "deny", split_commands(varied)
