"""Code that names the program it runs only at run time is an ask, with the reason."""

from __future__ import annotations

import pytest

from ctxmode.policy.inline_code import runtime_built
from ctxmode.policy.permissions import evaluate_bash, evaluate_code
from ctxmode.policy.rules import RuleSet, parse_rule

SUDO_DENY = RuleSet([parse_rule("Bash(sudo:*)", "deny", "test")])  # type: ignore[list-item]

BUILT = [
    ("python", "import os\ngetattr(os, 'sys'+'tem')('id')"),
    ("python", "import os\nos.system(bytes.fromhex('7375646f206964').decode())"),
    ("python", "import os, base64\nos.system(base64.b64decode('c3VkbyBpZA==').decode())"),
    ("python", "import subprocess\np = 'su' + 'do'\nsubprocess.run([p, 'id'])"),
    ("python", "import os\nos.system(''.join(chr(c) for c in [115, 117, 100, 111]))"),
    ("python", "__import__('o' + 's').system('id')"),
    ("python", "import os\nos.system('odus'[::-1] + ' id')"),
    ("python", "import os\nos.system(f'{a}{b} id')"),
    ("javascript", "require('child_' + 'process').execSync('id')"),
    ("javascript", "const cp = require('child_process');\ncp.execSync(['su', 'do'].join('') + ' id')"),
    ("javascript", "const {execSync} = require('child_process');\nexecSync(Buffer.from('c3Vkbw==', 'base64').toString())"),
    ("javascript", "const {execSync} = require('child_process');\nexecSync(String.fromCharCode(115, 117, 100, 111))"),
    ("ruby", "Kernel.send('sys' + 'tem', 'id')"),
    ("php", "<?php $f = 'sys' . 'tem'; call_user_func($f . '', 'id');"),
]  # fmt: skip

PLAIN = [
    ("python", "print(sum(range(10)))"),
    ("python", "import subprocess\nsubprocess.run(['ls', '-la', path + '/x'], check=True)"),
    ("python", "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'print(1)'])"),
    ("python", "import subprocess\ncmd = ['git', 'status']\nsubprocess.run(cmd)"),
    ("python", "import re, subprocess\nx = re.compile(r'a' + b)\nsubprocess.run(['ls'])"),
    ("python", "v = getattr(args, name)\nprint(v + 1)"),
    ("javascript", "const fs = require('fs');\nconsole.log(fs.readdirSync('.').length + 1)"),
    ("javascript", "const {execSync} = require('child_process');\nexecSync('git status')"),
]


@pytest.mark.parametrize(("language", "code"), BUILT)
def test_a_program_name_built_at_run_time_is_an_ask_with_the_reason(language, code) -> None:
    verdict = evaluate_code(language, code, SUDO_DENY)
    assert verdict.action == "ask", runtime_built(language, code)
    assert "only at run time" in verdict.reason and verdict.matched_command


@pytest.mark.parametrize(("language", "code"), PLAIN)
def test_code_running_named_programs_is_not_asked(language, code) -> None:
    assert evaluate_code(language, code, SUDO_DENY).action is None


def test_a_literal_reached_through_reflection_is_still_denied() -> None:
    code = "import os\nf = getattr(os, 'system')\nf('sudo id')"
    assert evaluate_code("python", code, SUDO_DENY).action == "deny"


def test_without_deny_or_ask_rules_nothing_is_asked() -> None:
    allow_only = RuleSet([parse_rule("Bash(ls:*)", "allow", "test")])  # type: ignore[list-item]
    assert evaluate_code("python", BUILT[0][1], allow_only).action is None


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"import os; getattr(os, 'sys'+'tem')('id')\"",
        "node -e \"require('child_'+'process').execSync('id')\"",
        "python3 - <<'EOF'\nimport os\nos.system(bytes.fromhex('6964').decode())\nEOF",
    ],
)
def test_inline_interpreter_code_in_a_shell_command_is_asked_too(command: str) -> None:
    verdict = evaluate_bash(command, SUDO_DENY)
    assert verdict.action == "ask" and "computed at run time" in verdict.reason
