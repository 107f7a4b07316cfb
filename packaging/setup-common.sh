# Sourced by ./run-tests and ./run-agent: the steps both share. Expects
# $root (the source tree) and $dockerd_pid_file (where ensure-docker.sh
# records a dockerd it had to start; the caller stops it on exit).

setup_environment() {
	"$root/packaging/install-deps.sh"
	"$root/packaging/ensure-docker.sh" --pid-file "$dockerd_pid_file"
	"$root/packaging/sandbox-image/build.sh"
	# The image of the network allowlist mode (python3-pip, tomllib).
	"$root/packaging/sandbox-image/build.sh" --variant pip
	# The tests name the images this tree built by their recipe's tag:
	# :latest is whatever tree built last on this engine.
	MAI_SANDBOX_IMAGE=${MAI_SANDBOX_IMAGE:-$("$root/packaging/sandbox-image/build.sh" --print-tag)}
	MAI_SANDBOX_PIP_IMAGE=${MAI_SANDBOX_PIP_IMAGE:-$("$root/packaging/sandbox-image/build.sh" --variant pip --print-tag)}
	export MAI_SANDBOX_IMAGE MAI_SANDBOX_PIP_IMAGE
}

# meson setup when the directory is new, reconfigure when it was set up
# with other -D options (a reconfigure costs seconds and relinks nothing,
# so it is skipped when they match); then ninja, which reruns meson by
# itself when a meson.build changed.
# $1 build directory, then extra meson options (-Dname=value).
build_tree() {
	local dir=$1
	shift
	if [ ! -f "$root/$dir/build.ninja" ]; then
		meson setup "$root/$dir" "$root" "$@"
	elif ! options_match "$root/$dir/meson-info/intro-buildoptions.json" "$@"; then
		meson setup --reconfigure "$root/$dir" "$root" "$@" >/dev/null
	fi
	ninja -C "$root/$dir"
}

# options_match INTRO_JSON -Dname=value...: every option has that value in
# the build directory's introspection file.
options_match() {
	python3 - "$@" <<'PY'
import json, sys
try:
    with open(sys.argv[1]) as f:
        have = {o["name"]: o["value"] for o in json.load(f)}
except (OSError, ValueError, KeyError):
    sys.exit(1)
for arg in sys.argv[2:]:
    name, _, want = arg[2:].partition("=")
    value = have.get(name)
    if isinstance(value, list):
        value = ",".join(value)
    elif isinstance(value, bool):
        value = str(value).lower()
    if str(value) != want:
        sys.exit(1)
PY
}
