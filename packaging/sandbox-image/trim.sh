#!/bin/sh
# Part of the image recipe (hashed with recipe.env): removes from the
# debootstrapped tree ($1) what a sandboxed Python run never needs, so the
# image stays small and imports fast.
set -eu
root=$1
rm -rf "$root"/var/lib/apt/lists/* \
       "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
       "$root"/var/cache/debconf/*-old \
       "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
       "$root"/usr/share/locale/* "$root"/usr/share/lintian \
       "$root"/var/log/*.log "$root"/var/log/apt/* \
       "$root"/debootstrap
# A writable home for the unprivileged run user does not exist in a read-only
# root; the sandbox sets HOME=/tmp. An empty /tmp is the tmpfs mount point.
mkdir -p "$root"/tmp
chmod 1777 "$root"/tmp
# No setuid or setgid file: under no-new-privileges they would not raise
# privileges, but a sandbox has no use for them (su, passwd, mount, ...),
# and the start-time self-test refuses an image that has one.
find "$root" -xdev -type f -perm /6000 -exec chmod ug-s {} +
