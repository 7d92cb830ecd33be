#!/bin/bash
# make deb: the kernel and the tools as Debian packages, in out/deb/.
#   kernel: linux-image-RELEASE and linux-headers-RELEASE (and the
#           linux-libc-dev that comes with them) by the kernel's own
#           bindeb-pkg, from build/kernel-FLAVOR (normal: the test kernel,
#           configs/guest.config, release 6.12.117-sleepy1, into out/deb;
#           debian: Debian's configuration, into out/deb-debian)
#   tools:  sleepy-tools by dpkg-buildpackage (debian/), from a copy of
#           userland/ and the exported headers in build/deb/
# Both changelogs are signed by the caller's git identity (user.name,
# user.email), never by an invented one.  Usage: make-deb.sh [FLAVOR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:-normal}
out=$top/out/deb
[ "$flavor" = normal ] || out=$top/out/deb-$flavor
name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	echo "make deb: set git config user.name and user.email: they sign the packages' changelogs" >&2
	exit 1
fi
export DEBFULLNAME=$name DEBEMAIL=$email
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache} CCACHE_BASEDIR=$top
# One kernel build at a time, and one packaging for the whole run: both
# flavors' bindeb-pkg write into build/ and their tools are staged in
# build/deb/ (make deb and make deb-debian side by side took each other's
# packages).
exec 9>"$top/build/.kernel-build.lock"
flock 9
rm -rf "$out"
mkdir -p "$out"

# The kernel, after build-kernel.sh has configured and built it: bindeb-pkg
# only links and packages what changed.
kout=$top/build/kernel-$flavor
release=$(make -s -C "$top/build/linux" O="$kout" kernelrelease)
t0=$(date +%s)
rm -f "$top"/build/linux-*.deb "$top"/build/linux-upstream_* "$top"/build/linux-*.buildinfo
# No linux-image-dbg: with Debian's debug information it is a copy of
# every module's DWARF (about a gigabyte), slow to make and not needed to
# profile (sleepy names kernel functions from kallsyms).
DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg \
make -s -C "$top/build/linux" O="$kout" CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"$(nproc)" KDEB_PKGVERSION="$release-1" bindeb-pkg
echo "make deb: the $flavor kernel's packages in $(( $(date +%s) - t0 )) s"
mv "$top"/build/linux-image-"$release"_*.deb "$top"/build/linux-headers-"$release"_*.deb \
	"$top"/build/linux-libc-dev_*.deb "$out/"
rm -f "$top"/build/linux-*.deb "$top"/build/linux-upstream_* "$top"/build/linux-*.buildinfo

# The tools.
version=$(sed -n 's/^VERSION ?= //p' "$top/userland/Makefile")
stage=$top/build/deb/sleepy-$version
rm -rf "$top/build/deb"
mkdir -p "$stage"
cp -r "$top/debian" "$top/userland" "$stage/"
cp -r "$top/build/headers/include" "$stage/include"
sed "s|@MAINTAINER@|$name <$email>|" "$top/debian/control" > "$stage/debian/control"
commit=$(git -C "$top" rev-parse --short HEAD)
git -C "$top" diff --quiet HEAD -- debian userland || commit="$commit with local changes"
cat > "$stage/debian/changelog" <<EOF
sleepy ($version) bookworm; urgency=medium

  * Built from the sleepy repository at commit $commit.

 -- $name <$email>  $(date -R)
EOF
(cd "$stage" && dpkg-buildpackage -b -us -uc > "$top/build/deb/build.log" 2>&1) || {
	tail -n 30 "$top/build/deb/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (build/deb/build.log)" >&2
	exit 1
}
mv "$top"/build/deb/sleepy-tools_*.deb "$top"/build/deb/sleepy-tools-dbgsym_*.deb "$out/"
ls "$out"
