"""The shell scanner: every command a string would run is found, hidden ones included."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from fnmatch import fnmatchcase

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.policy.inline_code import extract_shell_strings
from ctxmode.policy.permissions import evaluate_bash
from ctxmode.policy.rules import RuleSet, parse_rule
from ctxmode.policy.shell import basename, scan


def split_commands(text: str) -> list[str]:
    """Every normalized form the policy matches rules against."""
    return list(scan(text).forms)


def deny_rules(*patterns: str) -> RuleSet:
    return RuleSet([parse_rule(p, "deny", "test") for p in patterns])  # type: ignore[misc]


SUDO_DENY = deny_rules("Bash(sudo:*)")


@pytest.fixture(autouse=True)
def no_collection_during_the_analysis() -> Iterator[None]:
    """The analysis's time budget is this thread's CPU time, and a garbage collection of the
    test run's large heap (a hook process has a small one) is CPU time too: without this, a
    collection landing in one scan turned a deny into an ask now and then."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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


# -- the scan API: resolved commands ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("sudo -u bob curl -s u", ("curl", "-s", "u")),
        ("timeout 5 stdbuf -o0 nice -n 5 curl u", ("curl", "u")),
        ("A=1 env B=2 /usr/bin/pytest -q", ("/usr/bin/pytest", "-q")),
        ("echo u | xargs -n1 wget", ("wget",)),
        ("busybox wget u", ("wget", "u")),
        ("{curl,u}", ("curl", "u")),
        ("curl${IFS}u", ("curl", "u")),
        ("X=git; $X log", ("git", "log")),
        ("'git' \"log\" --oneline", ("git", "log", "--oneline")),
    ],
)
def test_wrappers_resolve_to_the_program_that_runs(text: str, argv: tuple[str, ...]) -> None:
    last = scan(text).commands[-1]
    assert last.argv == argv
    assert last.program == argv[0].rsplit("/", 1)[-1]
    assert not last.computed


def test_commands_carry_depth_operator_redirects_and_written_words() -> None:
    found = scan("pytest -x 2>&1 | tail -5; bash -c 'make test' && sudo git log")
    described = [(c.argv, c.depth, c.op, c.redirects, c.words) for c in found.commands]
    assert described == [
        (("pytest", "-x"), 0, "|", ("2>&1",), ("pytest", "-x")),
        (("tail", "-5"), 0, ";", (), ("tail", "-5")),
        (("bash", "-c", "make test"), 0, "&&", (), ("bash", "-c", "make test")),
        (("make", "test"), 1, "", (), ("make", "test")),
        (("git", "log"), 0, "", (), ("sudo", "git", "log")),
    ]


@pytest.mark.parametrize(
    "text",
    ["$X$Y u", "$(echo curl) u", '"$@"', "read X; $X", "curl u | bash", "source <(curl u)",
     "bash < script", "eval \"$CMD\""],
)  # fmt: skip
def test_programs_decided_at_run_time_are_computed(text: str) -> None:
    computed = [c for c in scan(text).commands if c.computed]
    assert computed and all(c.program == "" for c in computed)


@pytest.mark.parametrize(
    "text", ["$HOME/bin/tool x", "echo $(date)", "bash script.sh", "cat <<EOF | sh\nls\nEOF"]
)
def test_known_programs_are_not_computed(text: str) -> None:
    assert not scan(text).computed


def test_heredoc_bodies_are_located_for_callers() -> None:
    from ctxmode.policy.shell import without_heredocs

    text = "cat > f.py <<'EOF'\nimport requests\nEOF\necho done"
    assert without_heredocs(text, scan(text)) == "cat > f.py <<'EOF'\necho done"


@pytest.mark.parametrize(
    "text",
    [
        "echo hello 'world' && ls | grep x; " * 400_000,  # 14 MB
        "a" * 2_000_000,
        'echo "' + "a $(b) " * 100_000,
        "echo " + "$(" * 5000 + "x" + ")" * 5000,
        "echo " + "{a,b}" * 30,
    ],
)
def test_analysis_stops_at_its_budget_and_asks_only_where_rules_exist(text: str) -> None:
    assert scan(text).over_budget
    verdict = evaluate_bash(text, SUDO_DENY)
    assert verdict.action == "ask" and "too large" in verdict.reason
    assert evaluate_bash(text, RuleSet()).action is None
    allow_all = RuleSet([parse_rule("Bash(echo:*)", "allow"), parse_rule("Bash(ls:*)", "allow")])  # type: ignore[list-item]
    assert evaluate_bash(text, allow_all).action is None  # never allowed unseen


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_scan_fields_are_consistent_on_arbitrary_text(text: str) -> None:
    for command in scan(text).commands:
        assert isinstance(command.argv, tuple) and all(isinstance(w, str) for w in command.argv)
        expected = "" if command.computed or not command.argv else basename(command.argv[0])
        assert command.program == expected
        assert not any("\ue000" <= c <= "\ue004" for w in command.argv for c in w)


PLAIN = st.characters(whitelist_categories=("L", "N"), whitelist_characters="-_./:@%+^")
# Reserved words are grammar, not commands (`fi` alone runs nothing: it is a syntax error).
RESERVED = frozenset(
    {"!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function"}
    | {"if", "in", "select", "then", "time", "until", "while"}
)
PLAIN_WORD = st.text(alphabet=PLAIN, min_size=1, max_size=12).filter(lambda w: w not in RESERVED)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(PLAIN_WORD, min_size=1, max_size=5), min_size=1, max_size=5))
def test_plain_words_joined_by_separators_split_back(commands: list[list[str]]) -> None:
    line = " && ".join(" ".join(words) for words in commands)
    assert [list(c.words) for c in scan(line).commands] == commands


def test_a_batch_shares_one_budget_and_big_code_asks() -> None:
    from ctxmode.policy.permissions import evaluate_with_rules

    chunk = "echo hello 'world' && ls | grep x; " * 3_000  # ~100 KB: most of one budget each
    batch = {"commands": [chunk] * 20 + ["sudo x"]}
    verdict = evaluate_with_rules("ctx_batch_execute", batch, SUDO_DENY)
    assert verdict.action in ("deny", "ask")
    code = {"language": "python", "code": "import os\n" + "x = 1\n" * 100_000}
    assert evaluate_with_rules("ctx_execute", code, SUDO_DENY).action == "ask"
    assert evaluate_with_rules("ctx_execute", code, RuleSet()).action is None


def test_the_same_command_string_is_scanned_once() -> None:
    command = "curl -s https://x | jq ."
    assert scan(command) is scan(command)
    assert scan(command, budget=1.0) is not scan(command)
