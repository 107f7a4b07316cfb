#!/usr/bin/env bash
# Installs the build and test dependencies of Mai agent on Debian 12 with
# apt-get, only those that are missing. A second run checks with one
# dpkg-query and returns at once; apt-get update runs only when something is installed.
set -euo pipefail

packages=(
	meson ninja-build pkg-config gcc libc6-dev
	libfuse3-dev fuse3 libyaml-dev libssl-dev libcurl4-openssl-dev
	libjansson-dev libcmocka-dev
	docker.io runsc debootstrap debian-archive-keyring gpgv curl ca-certificates tinyproxy
	iptables
	gcovr python3-jsonschema bandit
	vim-nox neovim emacs-nox rsync
	golang-go golang-golang-x-mod-dev prometheus
	debhelper devscripts dpkg-dev systemd man-db
)

# One dpkg-query for all of them (one a package costs seconds on a loaded
# machine); a package dpkg does not know is left out of its answer. A
# package whose triggers wait (man-db while another dpkg installs a package
# with man pages) is installed: it was taken for missing, and the apt-get
# that followed failed on the other dpkg's lock.
installed=" $({ dpkg-query -W -f='${Package}:${Status}\n' "${packages[@]}" 2>/dev/null || true; } |
	sed -n 's/^\([^:]*\):install ok \(installed\|triggers-pending\|triggers-awaited\)$/\1/p' | tr '\n' ' ')"
missing=()
for p in "${packages[@]}"; do
	case $installed in
	*" $p "*) ;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps.sh: all ${#packages[@]} packages are installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing packages: ${missing[*]}; run this script as root" >&2
	exit 1
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another dpkg or apt at work (unattended upgrades, a package test): wait
# for its lock, up to 10 minutes, rather than fail.
apt-get -o DPkg::Lock::Timeout=600 update -q
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
