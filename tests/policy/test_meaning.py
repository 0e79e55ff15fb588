"""Rules match the meaning of a command: every spelling of the options a rule names.

Hypothesis writes the spellings (options combined or split, long or short, values attached
or apart, in any order, after the operands, global options before git's and docker's
subcommand); a deny rule must catch each, and a command lacking one of the rule's options
must not be caught by it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.policy.meaning import meaning
from ctxmode.policy.permissions import evaluate_bash
from ctxmode.policy.rules import RuleSet, parse_rule


def _rules(*texts: str, action: str = "deny") -> RuleSet:
    return RuleSet([parse_rule(text, action, "test") for text in texts])  # type: ignore[misc]


# Each option as its spellings: (short letter or None, long name).
RM_RECURSIVE = ("r", "R", "--recursive", "--rec", "--recurs")  # GNU takes unique prefixes
RM_FORCE = ("f", "--force", "--forc", "--fo")
RM_OTHER = ("v", "--verbose", "d", "--one-file-system", "--no-preserve-root")


@st.composite
def option_spellings(draw, required: list[tuple[str, ...]], optional: tuple[str, ...]):
    """Option words: each required option in one of its spellings, some optional ones,
    short letters grouped at random, in any order."""
    chosen = [draw(st.sampled_from(spellings)) for spellings in required]
    chosen += draw(st.lists(st.sampled_from(optional), max_size=2, unique=True))
    chosen = draw(st.permutations(chosen))
    words: list[str] = []
    letters = ""
    for option in chosen:
        if option.startswith("--"):
            words.append(option)
        elif draw(st.booleans()):
            letters += option
        else:
            words.append("-" + option)
    if letters:
        words.insert(draw(st.integers(0, len(words))), "-" + letters)
    return words


def _place(draw, options: list[str], operands: list[str]) -> list[str]:
    """Options before, between or after the operands (GNU tools read them anywhere)."""
    words = list(operands)
    for option in options:
        words.insert(draw(st.integers(0, len(words))), option)
    return words


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_every_spelling_of_rm_rf_is_denied(data) -> None:
    options = data.draw(option_spellings([RM_RECURSIVE, RM_FORCE], RM_OTHER))
    command = " ".join(["rm", *_place(data.draw, options, ["build", "/tmp/x"])])
    assert evaluate_bash(command, _rules("Bash(rm -rf *)")).action == "deny", command


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_rm_without_force_or_recursion_is_not_rm_rf(data) -> None:
    kept = data.draw(st.sampled_from([RM_RECURSIVE, RM_FORCE]))
    options = data.draw(option_spellings([kept], RM_OTHER))
    command = " ".join(["rm", *_place(data.draw, options, ["build"])])
    assert evaluate_bash(command, _rules("Bash(rm -rf *)")).action is None, command


GIT_GLOBALS = [
    ["-C", "."],
    ["-C."],
    ["--git-dir=.git"],
    ["--git-dir", ".git"],
    ["--work-tree=."],
    ["-c", "user.name=x"],
    ["-c", "core.quotepath=off"],
    ["--no-pager"],
    ["-P"],
    ["-p"],
    ["--paginate"],
    ["--namespace=n"],
    ["--bare"],
    ["--no-replace-objects"],
    ["--literal-pathspecs"],
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(GIT_GLOBALS), min_size=1, max_size=4),
    st.sampled_from(
        [[], ["origin"], ["origin", "main"], ["--force"], ["-f", "origin"], ["--forc"]]
    ),
    st.sampled_from(["", "sudo ", "env GIT_TRACE=0 ", "cd /tmp && "]),
)
def test_git_push_after_global_options_is_asked(
    globals_: list[list[str]], rest: list[str], before: str
) -> None:
    words = [word for group in globals_ for word in group]
    command = before + " ".join(["git", *words, "push", *rest])
    assert evaluate_bash(command, _rules("Bash(git push:*)", action="ask")).action == "ask"


def test_a_git_alias_set_on_the_command_line_is_what_it_names() -> None:
    rules = _rules("Bash(git push:*)", action="ask")
    assert evaluate_bash("git -c alias.p=push p origin", rules).action == "ask"
    assert evaluate_bash("git -c alias.s=status s", rules).action is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(GIT_GLOBALS), max_size=3), st.sampled_from(["status", "log"]))
def test_other_git_subcommands_are_not_push(globals_: list[list[str]], sub: str) -> None:
    words = [word for group in globals_ for word in group]
    command = " ".join(["git", *words, sub, "push"])  # `push` here is an operand
    assert evaluate_bash(command, _rules("Bash(git push:*)")).action is None


CURL_POST = ["-X POST", "-XPOST", "--request POST", "--request=POST", "-sX POST", "-sSXPOST"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CURL_POST), st.sampled_from(["", "-s", "--silent -L", "-k"]))
def test_every_spelling_of_a_curl_option_value_is_one_option(post: str, other: str) -> None:
    command = f"curl {other} {post} https://x".replace("  ", " ")
    assert evaluate_bash(command, _rules("Bash(curl -X POST:*)")).action == "deny", command
    assert evaluate_bash("curl -X GET https://x", _rules("Bash(curl -X POST:*)")).action is None


# (rule, spellings it must catch, spellings it must leave alone)
CASES = [
    (
        "Bash(chmod -R 777 *)",
        ["chmod --recursive 777 /srv", "chmod 777 -R /srv", "chmod -vR 777 /srv"],
        ["chmod 777 /srv", "chmod -rwx /srv"],
    ),
    (
        "Bash(chown -R *)",
        ["chown --recursive root /", "chown root -R /", "chown -hR root /"],
        ["chown root /etc/x"],
    ),
    (
        "Bash(wget -O - *)",
        ["wget --output-document=- u", "wget -O- u", "wget -qO- u", "wget u --output-document -"],
        ["wget -O file u"],
    ),
    (
        "Bash(docker run --privileged:*)",
        ["docker --context prod run --privileged img", "docker container run -it --privileged i"],
        ["docker run img"],
    ),
    (
        "Bash(docker rm -f:*)",
        ["docker rm --force c", "docker container rm -f c", "docker -H tcp://h rm -vf c"],
        ["docker rm c"],
    ),
    (
        "Bash(docker system prune -a:*)",
        ["docker system prune --all --force", "docker system prune -af"],
        ["docker system prune"],
    ),
    (
        "Bash(kubectl delete:*)",
        ["kubectl -n prod delete pod x", "kubectl --context=c delete ns y", "kubectl delete -A x"],
        ["kubectl get pods", "kubectl -n delete get pods"],
    ),
    (
        "Bash(npm publish:*)",
        ["npm --registry=https://r publish", "npm publish --tag beta", "npm -w pkg publish"],
        ["npm run publish-docs", "npm install"],
    ),
    (
        "Bash(twine upload:*)",
        ["python3 -m twine upload dist/*", "twine --verbose upload dist/*"],
        ["twine check dist/*"],
    ),
    (
        "Bash(pip install:*)",
        ["python -m pip install x", "pip3 --isolated install x", "pip -q install -U x"],
        ["pip list"],
    ),
]


@pytest.mark.parametrize(("rule", "caught", "left"), CASES)
def test_rules_for_common_programs_match_every_spelling(
    rule: str, caught: list[str], left: list[str]
) -> None:
    rules = _rules(rule)
    for command in caught:
        assert evaluate_bash(command, rules).action == "deny", command
    for command in left:
        assert evaluate_bash(command, rules).action is None, command


def test_allow_rules_still_match_only_what_they_spell() -> None:
    # An allow rule vouches for what it names; another spelling gets no opinion (the host asks).
    rules = _rules("Bash(git status:*)", action="allow")
    assert evaluate_bash("git status", rules).action == "allow"
    assert evaluate_bash("git -c core.pager='sh -c x' status", rules).action is None


@given(st.lists(st.text(min_size=0, max_size=8), max_size=8))
def test_reading_any_words_never_raises(words: list[str]) -> None:
    for program in ("rm", "git", "docker", "curl", "wget", "kubectl", "npm", "python3"):
        meaning([program, *words])
