#!/usr/bin/env python3
"""Checks of tests/mutate.py's own logic, without building or running a
mutant: which tests a mutant of a declaration takes, the estimate of a
test's own time, the pause file, and the report a run that is cut leaves."""
import os
import sys
import tempfile
import threading
import time
import types
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mutate  # noqa: E402

SOURCE = """\
enum { EXIT_OK = 0, EXIT_RUNTIME = 1 };
static const int limits[2] = { 16, 32 };
struct buf { char b[NAME_MAX + 1]; };
static int f(int x)
{
	if (x > 2)
		return EXIT_RUNTIME;
	return limits[1];
}
"""


def fake_per_test(seconds, lines, executable):
    pt = object.__new__(mutate.PerTest)
    pt.seconds, pt.lines, pt.unattributed = seconds, lines, set()
    pt.executable, pt.left_out, pt.tree = executable, {}, "t"
    return pt


class Sites(unittest.TestCase):
    def test_declarations_name_what_they_declare(self):
        got = {}
        for s in mutate.sites("x.c", SOURCE):
            got.setdefault(s["line"], set()).add(s.get("decl"))
        self.assertEqual(got[1], {"EXIT_OK", "EXIT_RUNTIME"})  # each enumerator its own
        self.assertEqual(got[2], {"limits"})
        self.assertEqual(got[3], {""})  # a member's size: nothing a line names
        self.assertEqual(got[6], {None})  # a function's body: its own line
        first = [s for s in mutate.sites("x.c", SOURCE) if s["line"] == 1 and s["label"] == "1 -> 0"]
        self.assertEqual([s["decl"] for s in first], ["EXIT_RUNTIME"])
        self.assertEqual(first[0]["decl_lines"], (1, 1))

    def test_a_declaration_takes_the_tests_of_the_lines_that_name_it(self):
        saved = dict(mutate._IDENTS)
        try:
            mutate._IDENTS.clear()
            mutate._IDENTS.update({"EXIT_RUNTIME": {("x.c", 1), ("x.c", 7), ("y.c", 3)},
                                   "lonely": {("x.c", 1)}})
            pt = fake_per_test({"slow": 9.0, "fast": 1.0, "other": 2.0},
                               {("x.c", 7): {"slow", "fast"}, ("x.c", 1): {"other"}, ("y.c", 3): {"swarm"}},
                               {"x.c": [6, 7, 8], "y.c": [3]})
            site = {"file": "x.c", "line": 1, "decl": "EXIT_RUNTIME", "decl_lines": (1, 1)}
            # Its own line is not a use; y.c's test is left out (not timed).
            self.assertEqual(pt.tests_of_site(site), (["fast", "slow"], ["swarm"]))
            self.assertIsNone(pt.tests_of_site(dict(site, decl="lonely")))
            self.assertIsNone(pt.tests_of_site(dict(site, decl="")))
            # Not a declaration: the line's own tests, as before.
            self.assertEqual(pt.tests_of_site({"file": "x.c", "line": 7}), (["fast", "slow"], []))
        finally:
            mutate._IDENTS.clear()
            mutate._IDENTS.update(saved)


def a_run(build, pause_file=None):
    args = types.SimpleNamespace(seed=7, count=3, modules=",".join(mutate.MODULES), budget=None,
                                 test_seconds=60, max_test_seconds=60, jobs=1, build=build, doc=False,
                                 pause_file=pause_file)
    pt = fake_per_test({"a": 10.0, "b": 20.0, "c": 30.0, "d": 40.0, "e": 50.0, "f": 80.0}, {}, {})
    picked = [{"file": "x.c", "line": n, "module": "base", "kind": "constant", "label": "1 -> 0"}
              for n in (1, 2, 3)]
    return mutate.Run(args, picked, ["base"], 99, "c0ffee", False, [], [], pt)


class RunState(unittest.TestCase):
    def test_estimate_learns_the_ratio_to_the_coverage_run(self):
        with tempfile.TemporaryDirectory() as d:
            r = a_run(d)
            self.assertEqual(r.estimate("f"), 80.0)  # nothing seen yet: its coverage-run time
            for name, secs in (("a", 0.1), ("b", 0.2), ("c", 6.0)):
                r.observe(name, secs)
            # a and b (10 s, 20 s there) are not within a factor of three
            # of f's 80 s: their ratio (1%) is not f's.
            self.assertEqual(r.estimate("f"), 80.0)
            r.observe("d", 8.0)
            self.assertEqual(r.estimate("f"), 80.0)  # two comparable ones are too few
            r.observe("e", 10.0)
            self.assertAlmostEqual(r.estimate("f"), 16.0)  # c, d, e: one fifth
            self.assertAlmostEqual(r.estimate("d"), 8.0)
            r.observe("a", 3.0)
            r.observe("a", 100.0)
            self.assertEqual(r.estimate("a"), 3.0)  # its own median once seen (0.1, 3, 100)
            self.assertEqual(r.longest("a"), 100.0)
            self.assertIsNone(r.longest("f"))

    def test_pause_file_holds_until_it_is_gone(self):
        with tempfile.TemporaryDirectory() as d:
            pause = os.path.join(d, "pause")
            r = a_run(d, pause)
            r.wait_pause()
            self.assertEqual(r.paused, 0.0)
            open(pause, "w").close()
            quiet = []
            threading.Timer(1.5, lambda: (quiet.append(os.path.exists(pause + ".quiet")), os.unlink(pause))).start()
            t = time.monotonic()
            r.wait_pause()
            self.assertGreaterEqual(time.monotonic() - t, 1.4)
            self.assertGreaterEqual(r.paused, 1.4)
            self.assertEqual(quiet, [True])  # its one worker waited: nothing ran
            self.assertFalse(os.path.exists(pause + ".quiet"))  # gone once it goes on

    def test_a_cut_run_leaves_a_report_that_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            r = a_run(d)
            done = r.picked[0]
            done.update(outcome="killed", by="a", ran=["a"], tests=1, source="x;", seconds=3.0,
                        build_seconds=1.0, test_seconds={"a": 2.0})
            r.results.append(done)
            r.write()
            with open(os.path.join(d, "report.md"), encoding="utf-8") as f:
                text = f.read()
            self.assertIn("In progress: 1 of the 3 mutants", text)
            self.assertIn("| **all** | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 100.0% | 100.0% |", text)
            r.status = "stopped by signal 15"
            r.write(final=True)
            with open(os.path.join(d, "report.md"), encoding="utf-8") as f:
                self.assertIn("Only 1 of the 3 mutants picked ran: the run was stopped by signal 15", f.read())
            self.assertFalse([f for f in os.listdir(d) if f.endswith(".new")])


if __name__ == "__main__":
    unittest.main()
