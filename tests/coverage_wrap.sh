#!/bin/sh
# The test wrapper of tests/coverage.sh (meson test --wrapper): the counts of
# every process a test starts go to a directory of that test's own,
# COVERAGE_PER_TEST_DIR/KEY (KEY: a hash of the test's command line, which
# the directory's "cmd" file keeps), instead of the build directory, so that
# tests/coverage_per_test.py can tell which tests ran each line. The
# directory starts as a copy of .template: the build's folders with an empty
# counts file for each object that anyone may write (the tests run some
# processes as other accounts), and the objects' notes beside them.
set -eu
# Two tests may run one script with another environment (examples_run and
# examples_run_mount): the variables the tests set (COVERAGE_ENV_KEYS) are
# part of the key.
cmd=$(printf '%s\n' "$@" --env--
for k in $COVERAGE_ENV_KEYS; do
	printf '%s=%s\n' "$k" "$(printenv "$k" || true)"
done)
key=$(printf '%s\n' "$cmd" | sha1sum | cut -c1-16)
dir=$COVERAGE_PER_TEST_DIR/$key
if mkdir "$dir" 2>/dev/null; then
	cp -a "$COVERAGE_PER_TEST_DIR/.template/." "$dir/"
	printf '%s\n' "$cmd" >"$dir/cmd"
fi
GCOV_PREFIX=$dir
GCOV_PREFIX_STRIP=$COVERAGE_PREFIX_STRIP
export GCOV_PREFIX GCOV_PREFIX_STRIP
exec "$@"
