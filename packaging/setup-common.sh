# Sourced by ./run-tests and ./run-agent: the steps both share. Expects
# $root (the source tree) and $dockerd_pid_file (where ensure-docker.sh
# records a dockerd it had to start; the caller stops it on exit).

setup_environment() {
	"$root/packaging/install-deps.sh"
	"$root/packaging/ensure-docker.sh" --pid-file "$dockerd_pid_file"
	"$root/packaging/sandbox-image/build.sh"
	# The image of the network allowlist mode (python3-pip, tomllib).
	"$root/packaging/sandbox-image/build.sh" --variant pip
}

# meson setup, or reconfigure when the directory exists; then ninja.
# $1 build directory, then extra meson options.
build_tree() {
	local dir=$1
	shift
	if [ -f "$root/$dir/build.ninja" ]; then
		meson setup --reconfigure "$root/$dir" "$root" "$@" >/dev/null
	else
		meson setup "$root/$dir" "$root" "$@"
	fi
	ninja -C "$root/$dir"
}
