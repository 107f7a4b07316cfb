#!/bin/sh
# Prints the version of Mai agent: the one in meson.build's project(), the
# only place it is written. Used by build-deb.sh and tests/integration/deb.sh.
root=$(cd "$(dirname "$0")/.." && pwd)
meson introspect --projectinfo "$root/meson.build" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])'
