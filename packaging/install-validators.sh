#!/usr/bin/env bash
# Installs the validators the test suite runs on what Mai agent writes and
# Debian does not package: Microsoft's SARIF Multitool and Ajv, from the npm
# registry, into tests/tools/npm/node_modules (never globally), exactly as
# tests/tools/npm/package-lock.json pins them. A second run compares the lock
# file's hash with the one recorded at the last install and returns at once.
# (Go, promtool, vim, emacs and python3-jsonschema come from install-deps.sh.)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir="$root/tests/tools/npm"
stamp="$dir/node_modules/.mai-installed"
multitool="$dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$multitool" ]; then
	echo "install-validators.sh: the npm validators are installed"
	exit 0
fi
if ! command -v npm > /dev/null; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-validators.sh: npm is missing; run this script as root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -q
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends nodejs npm
fi
echo "install-validators.sh: installing the SARIF Multitool and Ajv into $dir/node_modules"
npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
# The package's own postinstall only does this, and npm may be set to skip
# install scripts.
chmod u+x "$multitool"
echo "$want" > "$stamp"
