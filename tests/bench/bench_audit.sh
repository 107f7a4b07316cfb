#!/bin/sh
# Audit log benchmark. Builds an optimised, sanitizer-free copy of the tree
# in build-bench/, runs bench_audit in a scratch directory and puts the
# verification speed next to `openssl speed -evp sha256` measured in the same
# run. Targets (issue #5): >= 50,000 durable appends/s; verification >= 60%
# of SHA-256 speed and 1,000,000 records < 1 s; inclusion proof < 1 ms.
# Environment: MAI_BENCH_BUILD (or BENCH_BUILD) a build directory to use;
# THREADS, APPENDS, RECORDS the sizes; OPENSSL_S (2) the seconds of openssl
# speed; TIMEOUT_S (600) the deadline of each process.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${MAI_BENCH_BUILD:-${BENCH_BUILD:-$src/build-bench}}
limit=${TIMEOUT_S:-600}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

if [ ! -d "$build" ]; then
	meson setup "$build" "$src" --buildtype=release -Db_sanitize=none >/dev/null
fi
ninja -C "$build" tests/bench/bench_audit >/dev/null

timeout "$limit" "$build/tests/bench/bench_audit" "$scratch" "${THREADS:-512}" "${APPENDS:-200000}" \
	"${RECORDS:-1000000}" > "$scratch/out" ||
	{ echo "bench_audit failed or ran past $limit s" >&2; cat "$scratch/out"; exit 1; }
cat "$scratch/out"

# SHA-256 over 8 KiB blocks (the largest-block figure, in bytes/s).
sha=$(timeout "$limit" openssl speed -evp sha256 -seconds "${OPENSSL_S:-2}" -bytes 8192 2>/dev/null | awk '/^sha256|^SHA256/ { v=$NF; sub(/k$/, "", v); print v * 1000 }' | tail -n1)
awk -v sha="$sha" '
/^durable_appends_per_s/ { a = $2 }
/^verify_mb_per_s/ { v = $2 }
/^verify_seconds/ { s = $2 }
/^verify_records/ { n = $2 }
/^inclusion_proof_us/ { p = $2 }
function verdict(ok) { return ok ? "met" : "MISSED" }
END {
	shamb = sha / 1e6
	printf "openssl_sha256_mb_per_s %.1f\n", shamb
	printf "\nsummary (load average at the end: %s):\n", load
	printf "  durable appends/s   %10.0f  (target >= 50000) %s\n", a, verdict(a >= 50000)
	printf "  verify MB/s         %10.1f  = %.0f%% of openssl sha256 %.1f MB/s (target >= 60%%) %s\n", v, 100 * v / shamb, shamb, verdict(v >= 0.6 * shamb)
	printf "  verify %d records in %.3f s (target < 1 s) %s\n", n, s, verdict(s < 1)
	printf "  inclusion proof     %10.2f us (target < 1000 us) %s\n", p, verdict(p < 1000)
}' load="$(cut -d' ' -f1-3 /proc/loadavg)" "$scratch/out"
