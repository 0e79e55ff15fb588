"""A stand-in `pytest` for real-host tests: a real-sized run (~120 KB) with 3 failures."""

from __future__ import annotations

from pathlib import Path

FAILING_TESTS = ("test_refund_rounds_half_even", "test_currency_parse_rejects_blank",
                 "test_webhook_signature_expiry")  # fmt: skip
FAILURE_MESSAGE = "AssertionError: assert 41 == 42"


def write_test_runner(path: Path) -> None:
    """Write the stand-in at `path`, executable: 2,600 results in pytest's format, the three
    failing ones spread through them, their blocks and the summary at the end, exit 1."""
    script = (
        "#!/usr/bin/env python3\n"
        "import sys\n"
        f"failing = {FAILING_TESTS!r}\n"
        "out = []\n"
        "for i in range(2600):\n"
        "    out.append(f'tests/test_module_{i % 40:02d}.py::test_case_{i:04d} PASSED')\n"
        "    if i % 860 == 430:\n"
        "        name = failing[i // 860]\n"
        "        out.append(f'tests/test_billing.py::{name} FAILED')\n"
        "out.append('=' * 30 + ' FAILURES ' + '=' * 30)\n"
        "for name in failing:\n"
        "    out += [f'____ {name} ____', '    def ' + name + '():', '>       assert got == want',"
        f" 'E       {FAILURE_MESSAGE}', 'tests/test_billing.py:88: AssertionError']\n"
        "out += [f'FAILED tests/test_billing.py::{n} - AssertionError' for n in failing]\n"
        "out.append('=' * 20 + ' 3 failed, 2597 passed in 12.04s ' + '=' * 20)\n"
        "sys.stdout.write('\\n'.join(out) + '\\n')\n"
        "sys.exit(1)\n"
    )
    path.write_text(script)
    path.chmod(0o755)
