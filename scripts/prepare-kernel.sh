#!/bin/bash
# Extracts Debian's linux-source-6.12 into build/linux once, then brings the
# tree to patches/ + kernel-overlay/ touching only files that change, so an
# incremental kernel build recompiles only what the change affects.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux
state=$src/.sleepy
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1 || true)

if [ ! -f "$src/Makefile" ]; then
	[ -n "$tarball" ] || { echo "prepare-kernel: linux-source-6.12 is not installed (make deps)" >&2; exit 1; }
	echo "prepare-kernel: extracting $tarball"
	rm -rf "$src" "$top/build/linux-source-6.12"
	mkdir -p "$top/build"
	tar -C "$top/build" -xf "$tarball"
	mv "$top/build/linux-source-6.12" "$src"
fi
mkdir -p "$state/applied"

# Whether the series or a patch it lists differs from what is applied.
# Only those: the cover letter beside them made every run revert and
# apply the series again, and Kbuild then rebuilt whatever includes a
# patched file (most of a kernel: include/linux/syscalls.h is one).
series_changed() {
	local p

	cmp -s "$top/patches/series" "$state/applied/series" || return 0
	while read -r p; do
		[ -z "$p" ] || cmp -s "$top/patches/$p" "$state/applied/$p" || return 0
	done < "$top/patches/series"
	return 1
}

# Reverse what is applied if the series changed, then apply it anew.
if series_changed; then
	if [ -f "$state/applied/series" ]; then
		tac "$state/applied/series" | while read -r p; do
			[ -n "$p" ] || continue
			patch -d "$src" -p1 -R -s --batch < "$state/applied/$p" ||
				{ echo "prepare-kernel: cannot revert $p; remove build/linux and retry" >&2; exit 1; }
		done
	fi
	rm -rf "$state/applied"; mkdir -p "$state/applied"
	while read -r p; do
		[ -n "$p" ] || continue
		if ! patch -d "$src" -p1 -s --batch --forward --dry-run < "$top/patches/$p" >/dev/null; then
			echo "prepare-kernel: patches/$p does not apply to $(make -s -C "$src" kernelversion):" >&2
			patch -d "$src" -p1 --batch --forward --dry-run < "$top/patches/$p" | grep -i fail >&2 || true
			exit 1
		fi
		patch -d "$src" -p1 -s --batch --forward < "$top/patches/$p"
		cp "$top/patches/$p" "$state/applied/$p"
		echo "$p" >> "$state/applied/series"
	done < "$top/patches/series"
	cp "$top/patches/series" "$state/applied/series"
fi

# Overlay: copy new or changed files only (keeps mtimes of the rest), and
# remove the files an earlier overlay had that this one has not.
(cd "$top/kernel-overlay" && find . -type f | sort) > "$state/overlay.new"
if [ -f "$state/overlay" ]; then
	comm -23 "$state/overlay" "$state/overlay.new" | while read -r f; do
		rm -f "$src/$f"
	done
fi
while read -r f; do
	if ! cmp -s "$top/kernel-overlay/$f" "$src/$f"; then
		mkdir -p "$(dirname "$src/$f")"
		cp "$top/kernel-overlay/$f" "$src/$f"
	fi
done < "$state/overlay.new"
mv "$state/overlay.new" "$state/overlay"
echo "prepare-kernel: Linux $(make -s -C "$src" kernelversion) with $(grep -c . "$top/patches/series") patches and $(cd "$top/kernel-overlay" && find . -type f | wc -l) new files"
