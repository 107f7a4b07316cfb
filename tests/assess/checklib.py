"""What the assess suite's Python tests share: the environment meson gives
them, a list of failures that check() collects, and finish(), which prints
them with the closing line and exits 1 when there is any."""
import os
import sys

agent = os.environ["MAI_AGENT"]
root = os.environ.get("MAI_SOURCE_ROOT", "")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def skip_or_fail(msg):
    """A missing tool: a failure under MAI_REQUIRE_REAL=1 (CI), else exit 77."""
    if os.environ.get("MAI_REQUIRE_REAL") == "1":
        print("FAIL " + msg)
        sys.exit(1)
    print("SKIP: " + msg)
    sys.exit(77)


skipped_parts = []


def skip_part(msg):
    """One check cannot run here: a failure under MAI_REQUIRE_REAL=1, else
    the others go on and finish() exits 77, so the skip shows."""
    if os.environ.get("MAI_REQUIRE_REAL") == "1":
        failures.append(msg + " (a skip, and MAI_REQUIRE_REAL=1)")
    else:
        print("SKIP part: " + msg)
        skipped_parts.append(msg)


def finish():
    for f in failures:
        print("FAIL " + f)
    print("%d failures" % len(failures))
    if not failures and skipped_parts:
        print("SKIP: the other checks passed; %d part(s) did not run" % len(skipped_parts))
        sys.exit(77)
    sys.exit(1 if failures else 0)
