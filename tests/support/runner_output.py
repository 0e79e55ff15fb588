"""What pytest, jest, go test and cargo test print for a run, byte for byte in their own
formats, at a chosen size, with failures at a chosen place in the run.

A `Run` is one such output: its stdout, its stderr (jest writes its report there, cargo
its build lines), its exit code, and the facts a model needs from it: for a failing run
each failing test's id and its assertion message, for a passing run the summary line.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZES = {"small": 3_000, "large": 110_000, "huge": 350_000}  # bytes of output, roughly
POSITIONS = ("start", "middle", "end")
RUNNERS = ("pytest", "jest", "go", "cargo")


@dataclass(frozen=True)
class Failure:
    id: str  # as the runner names the test
    message: str  # the assertion message, as the runner prints it


# What a run writes, in order: (1, text) to stdout, (2, text) to stderr.
Parts = list[tuple[int, str]]


@dataclass(frozen=True)
class Run:
    parts: Parts
    exit_code: int
    facts: tuple[str, ...]

    def text(self) -> str:
        return "".join(text for _, text in self.parts)


# Domain words the failing tests are named from; each scenario draws its own.
AREAS = ("refund", "invoice", "ledger", "coupon", "webhook", "currency", "payout", "tax",
         "shipping", "inventory", "session", "checkout")  # fmt: skip
CHECKS = ("rounds_half_even", "rejects_blank_input", "expires_after_ttl", "keeps_order",
          "sums_line_items", "retries_once")  # fmt: skip


def failures(runner: str, seed: int, count: int) -> list[Failure]:
    """`count` failures named and numbered from `seed`, in `runner`'s naming."""
    found = []
    for k in range(count):
        area, check = AREAS[(seed + 5 * k) % len(AREAS)], CHECKS[(seed + k) % len(CHECKS)]
        want = 1000 + 37 * seed + 11 * k
        got, order = want - 1 - k, 88000 + 97 * seed + k
        if runner == "pytest":
            found.append(Failure(f"tests/test_{area}.py::test_{area}_{check}",
                                 f"assert {got} == {want}"))  # fmt: skip
        elif runner == "jest":
            title = f"{area.capitalize()} › {check.replace('_', ' ')}"
            message = (f"TypeError: Cannot read properties of undefined (reading '{area}Id')"
                       if k == 1 else f"Received: {got}")  # fmt: skip
            found.append(Failure(title, message))
        elif runner == "go":
            name = "Test" + "".join(part.capitalize() for part in (area, *check.split("_")))
            found.append(Failure(name, f"{area} for order {order} = {got}, want {want}"))
        else:
            found.append(Failure(f"{area}::tests::{check}",
                                 f"{area} for order {order} is off by {want - got}"))  # fmt: skip
    return found


def run_output(runner: str, size: str, position: str, failing: int, seed: int) -> Run:
    """A run of about SIZES[size] bytes; `failing` tests fail at `position` in the run."""
    bad = failures(runner, seed, failing)
    passed = _passing_count(runner, SIZES[size], len(bad))
    total = passed + len(bad)
    at = {"start": 1, "middle": total // 2, "end": total - 2 * len(bad) + 1}[position]
    slots = {at + 2 * k: failure for k, failure in enumerate(bad)} if bad else {}
    make = {"pytest": _pytest, "jest": _jest, "go": _go, "cargo": _cargo}[runner]
    parts = make(total, slots, seed)
    if not bad:
        return Run(parts, 0, (_summary(runner, total, parts),))
    facts = tuple(part for failure in bad for part in (failure.id, failure.message))
    return Run(parts, 1, facts)


def _summary(runner: str, total: int, parts: Parts) -> str:
    """What a passing run tells the model: its summary line (go test: the last package's)."""
    if runner == "go":
        return [line for _, text in parts for line in text.splitlines() if line.startswith("ok")][
            -1
        ]
    return {"pytest": f"{total} passed in", "jest": f"Tests:       {total} passed, {total} total",
            "cargo": f"test result: ok. {total} passed"}[runner]  # fmt: skip


def _passing_count(runner: str, size: int, failing: int) -> int:
    per_test = {"pytest": 80, "jest": 40, "go": 70, "cargo": 45}[runner]
    overhead = 1_200 + failing * 500
    return max(8, (size - overhead) // per_test)


def _name(i: int) -> Parts:
    """The area and a test name for passing test number `i`."""
    return AREAS[i % len(AREAS)], f"case_{i:04d}"


def _pytest(total: int, slots: dict[int, Failure], seed: int) -> Parts:
    out = ["=" * 29 + " test session starts " + "=" * 30,
           "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0 -- /usr/bin/python3",
           "cachedir: .pytest_cache", "rootdir: /home/dev/shop", "configfile: pyproject.toml",
           f"collecting ... collected {total} items", ""]  # fmt: skip
    for i in range(total):
        failure = slots.get(i)
        area, name = _name(i)
        test_id = failure.id if failure else f"tests/test_{area}.py::test_{area}_{name}"
        outcome = "FAILED" if failure else "PASSED"
        line = f"{test_id} {outcome}"
        out.append(f"{line:<73}[{100 * (i + 1) // total:>3}%]")
    if slots:
        out.append("=" * 35 + " FAILURES " + "=" * 35)
        for failure in slots.values():
            file, test = failure.id.split("::")
            got, want = failure.message.removeprefix("assert ").split(" == ")
            out += [f" {test} ".center(80, "_"), "", f"    def {test}():",
                    f"        result = compute_{test.removeprefix('test_')}(fixture_order())",
                    f">       assert result == {want}", f"E       assert {got} == {want}", "",
                    f"{file}:{40 + seed % 50}: AssertionError"]  # fmt: skip
        out.append(" short test summary info ".center(80, "="))
        out += [f"FAILED {f.id} - {f.message}" for f in slots.values()]
    counts = (f"{len(slots)} failed, " if slots else "") + f"{total - len(slots)} passed"
    out.append(f" {counts} in {4 + seed % 9}.{seed % 97:02d}s ".center(80, "="))
    return [(1, "\n".join(out) + "\n")]


def _jest_block(failure: Failure, seed: int) -> list[str]:
    if failure.message.startswith("TypeError"):
        detail = [f"    {failure.message}", "",
                  f"      {18 + seed % 30} |   const total = order.lines.reduce(sum, 0);",
                  f"    > {19 + seed % 30} |   return lookup(order.customer).{failure.message.split(chr(39))[1]};",
                  "         |                                 ^"]  # fmt: skip
    else:
        got = failure.message.removeprefix("Received: ")
        detail = ["    expect(received).toBe(expected) // Object.is equality", "",
                  f"    Expected: {int(got) + 1 + seed % 3}", f"    {failure.message}", "",
                  f"    > {42 + seed % 30} |   expect(amount).toBe(expected);",
                  "         |                  ^"]  # fmt: skip
    file = failure.id.split(" ›")[0].lower()
    return [f"  ● {failure.id}", "", *detail, "",
            f"      at Object.<anonymous> (src/{file}/{file}.test.js:{42 + seed % 30}:18)", ""]  # fmt: skip


def _jest(total: int, slots: dict[int, Failure], seed: int) -> Parts:
    err: list[str] = []
    per_file = 24
    failing_files = 0
    for start in range(0, total, per_file):
        chunk = range(start, min(total, start + per_file))
        bad = [slots[i] for i in chunk if i in slots]
        area = AREAS[start // per_file % len(AREAS)]
        failing_files += bool(bad)
        err.append(
            f"{' FAIL ' if bad else ' PASS '} src/{area}/{area}_{start // per_file:03d}.test.js"
        )
        err.append(f"  {area.capitalize()} suite {start // per_file}")
        for i in chunk:
            failure = slots.get(i)
            title = failure.id.split(" › ", 1)[1] if failure else f"handles {_name(i)[1]}"
            err.append(f"    {'✕' if failure else '✓'} {title} ({i % 7 + 1} ms)")
        err.append("")
        for failure in bad:
            err += _jest_block(failure, seed)
    suites = -(-total // per_file)
    if slots:
        err += ["", "Summary of all failing tests"]
        for failure in slots.values():
            err += _jest_block(failure, seed)
    failed_suites = f"{failing_files} failed, " if failing_files else ""
    failed_tests = f"{len(slots)} failed, " if slots else ""
    err += [f"Test Suites: {failed_suites}{suites - failing_files} passed, {suites} total",
            f"Tests:       {failed_tests}{total - len(slots)} passed, {total} total",
            "Snapshots:   0 total", f"Time:        {6 + seed % 9}.{seed % 997:03d} s",
            "Ran all test suites."]  # fmt: skip
    return [(2, "\n".join(err) + "\n")]


def _go(total: int, slots: dict[int, Failure], seed: int) -> Parts:
    out: list[str] = []
    per_package = 60
    for start in range(0, total, per_package):
        chunk = range(start, min(total, start + per_package))
        package = (
            f"github.com/acme/shop/{AREAS[start // per_package % len(AREAS)]}{start // per_package}"
        )
        failed = False
        for i in chunk:
            failure = slots.get(i)
            name = failure.id if failure else f"Test{_name(i)[0].capitalize()}Case{i:04d}"
            out.append(f"=== RUN   {name}")
            if failure:
                out.append(f"    {_name(i)[0]}_test.go:{30 + seed % 60}: {failure.message}")
            out.append(f"--- {'FAIL' if failure else 'PASS'}: {name} (0.{i % 9:02d}s)")
            failed = failed or bool(failure)
        seconds = f"0.{(start + seed) % 900 + 100}s"
        out += (
            ["FAIL", f"FAIL\t{package}\t{seconds}"]
            if failed
            else ["PASS", f"ok  \t{package}\t{seconds}"]
        )
    if slots:
        out.append("FAIL")
    return [(1, "\n".join(out) + "\n")]


def _cargo(total: int, slots: dict[int, Failure], seed: int) -> Parts:
    err = ["   Compiling shop v0.1.0 (/home/dev/shop)",
           f"    Finished `test` profile [unoptimized + debuginfo] target(s) in {3 + seed % 7}.{seed % 90:02d}s",
           f"     Running unittests src/lib.rs (target/debug/deps/shop-{seed:016x})"]  # fmt: skip
    out = ["", f"running {total} tests"]
    for i in range(total):
        failure = slots.get(i)
        name = failure.id if failure else f"{_name(i)[0]}::tests::{_name(i)[1]}"
        out.append(f"test {name} ... {'FAILED' if failure else 'ok'}")
    if slots:
        out += ["", "failures:", ""]
        for failure in slots.values():
            file = failure.id.split("::")[0]
            out += [f"---- {failure.id} stdout ----", "",
                    f"thread '{failure.id}' panicked at src/{file}.rs:{40 + seed % 60}:9:",
                    f"assertion `left == right` failed: {failure.message}",
                    f"  left: {1000 + seed}", f" right: {1001 + seed}",
                    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                    ""]  # fmt: skip
        out += ["", "failures:", *[f"    {failure.id}" for failure in slots.values()], ""]
    verdict = "FAILED" if slots else "ok"
    out += [f"test result: {verdict}. {total - len(slots)} passed; {len(slots)} failed; 0 ignored; "
            f"0 measured; 0 filtered out; finished in 0.{seed % 90 + 10}s", ""]  # fmt: skip
    parts = [(2, "\n".join(err) + "\n"), (1, "\n".join(out) + "\n")]
    if slots:
        parts.append((2, "error: test failed, to rerun pass `--lib`\n"))
    return parts
