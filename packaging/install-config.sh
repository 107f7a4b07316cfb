#!/bin/sh
# Installs the default configuration into the configuration directory
# without overwriting a file the operator has edited: a file that already
# exists stays as it is and the new default is placed beside it as FILE.dist.
# Called by meson install (meson.add_install_script) with the source config
# directory and the target directory; honours DESTDIR.
set -eu
src=$1
dest="${DESTDIR:-}$2"
mkdir -p "$dest"
for f in "$src"/*.yaml; do
	name=$(basename "$f")
	if [ -e "$dest/$name" ] && cmp -s "$f" "$dest/$name"; then
		rm -f "$dest/$name.dist"
	elif [ -e "$dest/$name" ]; then
		install -m 0644 "$f" "$dest/$name.dist"
		echo "install-config: kept $dest/$name, new default in $dest/$name.dist"
	else
		install -m 0644 "$f" "$dest/$name"
		echo "install-config: installed $dest/$name"
	fi
done
