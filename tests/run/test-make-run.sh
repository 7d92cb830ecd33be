#!/bin/bash
# make run as a user runs it, from the host: a dynamically linked PIE whose
# library sits under /tmp (found through its rpath) runs in the guest and
# is profiled with the options in SLEEPY_OPTS; its flame graph is valid
# SVG (used in headless Chromium), its samples open in the speedscope
# viewer and its pprof profile in go tool pprof on the host; a program that fails makes make run fail with
# one line saying so; no guest's console has a kernel report.  Runs qemu/run.sh, make run's
# last step, as make run would (its prerequisites are built by now, and a
# second make could race the debug kernel build).  TAP on stdout.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/sleepy-run-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
echo "1..24"
n=0
check() {	# check NAME COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
# console_clean RUN: the guest's whole console (out/console.log, kept as
# out/test/make-run-RUN.console) has the kernel's boot messages, no kernel
# report and the guest's taint flags 0, as every other guest's.
console_clean() {
	local log=$top/out/test/make-run-$1.console why clean=no taint
	cp "$top/out/console.log" "$log" 2>/dev/null || : > "$log"
	why=$(bash "$top/tests/console-reports.sh" "$log") && clean=yes
	taint=$(sed -n 's/^sleepy-guest: kernel taint flags \([0-9]*\).*/\1/p' "$log")
	check "$1: the guest's console has the kernel's banner and no kernel report (${why:-clean}), taint flags ${taint:-missing}" \
		eval '[ "$clean" = yes ] && [ "$taint" = 0 ]'
}
gcc -O1 -g -fPIC -shared -o "$dir/libhot.so" "$top/tests/run/libhot.c" &&
gcc -O1 -fPIE -pie -o "$dir/hot" "$top/tests/run/hot.c" -L"$dir" -lhot \
	-Wl,-rpath,"$dir" &&
gcc -O1 -fPIE -pie -o "$dir/hot_dlopen" "$top/tests/run/hot_dlopen.c" ||
	{ echo "Bail out! cannot build the test programs"; exit 1; }

PROGRAM="$dir/hot" ARGS="300000000" SLEEPY_OPTS="-F 2000" bash "$top/qemu/run.sh" \
	> "$dir/ok.log" 2>&1
status=$?
cp "$dir/ok.log" "$top/out/test/make-run-ok.log"
console_clean ok
check "make run PROGRAM=PIE with an rpath library under /tmp exits 0 (status $status)" [ $status = 0 ]
check "the program found its library and ran to the end" \
	grep -q "^hot: " "$dir/ok.log"
# SLEEPY_OPTS="-F 2000": the report's rate, and hot#1's samples against
# 2000 Hz times its own CPU time (the default, the guest kernel's tick at
# HZ=1000, gives half).  A vCPU the emulator does not run in time misses
# periods (on a loaded host, half of them once): those are counted, and
# count here as taken.
samples=$(sed -nE 's/^ *([0-9]+) +[0-9.]+% +hot#1 +[0-9]+\r?$/\1/p' "$dir/ok.log" | head -n1)
cpu_ns=$(sed -nE 's/^hot: [0-9a-f]+, ([0-9]+) ns on CPU\r?$/\1/p' "$dir/ok.log")
summary=$(grep -a -m1 '^# .* samples shown of ' "$dir/ok.log")
rate=$(sed -nE 's/.*, ([0-9]+) Hz, .*/\1/p' <<< "$summary")
missed=$(sed -nE 's/.*, ([0-9]+) periods missed.*/\1/p' <<< "$summary")
check "SLEEPY_OPTS reached the profiler: ${rate:-no} Hz; hot#1 has ${samples:-no} samples (${missed:-?} periods missed) in ${cpu_ns:-?} ns on CPU, taken + missed at least 75%, taken at most 102% of 2000 Hz" \
	awk -v r="${rate:-0}" -v s="${samples:-0}" -v m="${missed:-0}" -v ns="${cpu_ns:-0}" \
	'BEGIN { want = 2000 * ns / 1e9; exit !(r == 2000 && ns > 0 && s + m >= 0.75 * want && s <= 1.02 * want) }'
check "the report has the program's samples (hot#1)" \
	grep -Eq "^ *[0-9]+ +[0-9.]+% +hot#1" "$dir/ok.log"
# Named from the recording's mappings alone, no -s: the PIE's library.
check "its hot loop is named in its library: hot_loop (libhot.so)" \
	grep -Eq "^ *[0-9]+ +[0-9.]+% +hot#1 .*hot_loop \(libhot\.so\)" "$dir/ok.log"

# The recording read on the host, where the library is at the same path:
# hot_loop's samples on its lines (libhot.c:3-10), most on its loop's
# (7-8), from the library's DWARF.
"$top/build/userland/sleepy-parse" --sort sym,srcline --app 'hot#1' "$top/out/sleepy.data" \
	> "$dir/srcline.txt" 2> "$dir/srcline.err"
sed 's/^/# /' "$dir/srcline.txt" | head -n 8
lines=$(awk '$4 == "hot_loop" { print $5 }' "$dir/srcline.txt" | tr '\n' ' ')
check "--sort sym,srcline on the host: hot_loop at ${lines:-no line}(heaviest libhot.c:7 or 8)" \
	eval 'case "$lines" in libhot.c:[78]" "*) true ;; *) false ;; esac &&
	      ! tr " " "\n" <<< "$lines" | grep -qvE "^(libhot\.c:([3-9]|10))?$"'

# The pprof profile in go tool pprof (Debian's golang-go), a reader we did
# not write: hot#1's samples as many as in the report, hot_loop on top.
cp "$top/out/profile.pb.gz" "$dir/profile.pb.gz" 2>/dev/null
report_samples=$(awk '$3 == "hot#1" { print $1; exit }' "$dir/ok.log")
go tool pprof -top -sample_index=samples -tagfocus='app=hot#1' "$dir/profile.pb.gz" \
	> "$dir/pprof-top.txt" 2>&1
status=$?
go tool pprof -tags -sample_index=samples "$dir/profile.pb.gz" > "$dir/pprof-tags.txt" 2>&1
cat "$dir/pprof-top.txt" "$dir/pprof-tags.txt" > "$top/out/test/make-run-pprof.txt"
sed 's/^/# /' "$dir/pprof-top.txt" | head -n 12
pprof_samples=$(awk '$NF == "hot#1" { sub(/\.0$/, "", $1); print $1 }' "$dir/pprof-tags.txt")
top_function=$(awk 'seen { print $NF; exit } $1 == "flat" { seen = 1 }' "$dir/pprof-top.txt")
check "go tool pprof reads out/profile.pb.gz (status $status)" \
	[ $status = 0 -a -s "$dir/profile.pb.gz" ]
check "pprof: hot#1 has ${pprof_samples:-no} samples, the report ${report_samples:-none}" \
	[ -n "$report_samples" -a "$pprof_samples" = "$report_samples" ]
check "pprof: hot#1's top function is hot_loop (${top_function:-nothing})" \
	[ "$top_function" = hot_loop ]
go tool pprof -top -lines -sample_index=samples -tagfocus='app=hot#1' "$dir/profile.pb.gz" \
	> "$dir/pprof-lines.txt" 2>&1
top_line=$(awk 'seen { print $(NF - 1), $NF; exit } $1 == "flat" { seen = 1 }' "$dir/pprof-lines.txt")
check "pprof -lines: hot#1's top line is in hot_loop's loop (${top_line:-nothing})" \
	eval 'case "$top_line" in "hot_loop libhot.c:"[78]) true ;; *) false ;; esac'

# The flame graph: well-formed XML, hot_loop over half of hot's width (the
# program's root frame, its instances as one).
cp "$top/out/flamegraph.svg" "$dir/flamegraph.svg" 2>/dev/null
xmllint --noout "$dir/flamegraph.svg" > "$dir/xmllint.txt" 2>&1
status=$?
width() {	# width NAME: the widest frame of NAME, in pixels
	grep -o "data-w=\"[0-9.]*\"[^>]*data-n=\"$1\"" "$dir/flamegraph.svg" |
		sed 's/data-w="\([0-9.]*\)".*/\1/' | sort -rn | head -n1
}
hot_width=$(width hot_loop) app_width=$(width hot)
check "out/flamegraph.svg is well-formed XML (xmllint status $status)" \
	[ $status = 0 -a -s "$dir/flamegraph.svg" ]
check "flame graph: hot_loop ${hot_width:-missing} of hot's ${app_width:-missing} pixels (over half)" \
	awk -v h="${hot_width:-0}" -v a="${app_width:-0}" 'BEGIN { exit !(a > 0 && h > a / 2) }'
# Used in a browser (headless Chromium): a click on hot zooms it to the
# full width, Reset Zoom undoes it, Search highlights hot_loop.
NODE_PATH="$top/build/npm/node_modules" timeout 120 \
	node "$top/tests/run/flamegraph-browser.js" "$dir/flamegraph.svg" hot hot_loop \
	"$top/out/test/make-run-flamegraph.png" \
	> "$dir/browser.txt" 2> "$dir/browser.err"
status=$?
sed 's/^/# browser: /' "$dir/browser.txt" "$dir/browser.err"
seen() { sed -n "s/^$1=//p" "$dir/browser.txt"; }
check "browser: a click on hot zooms it to $(seen zoomed_app_width) of 1180 pixels, no script error (status $status)" \
	eval '[ $status = 0 ] && [ "$(seen errors)" = 0 ] && [ "$(seen unzoom_opacity)" = 1 ] &&
	      awk -v w="$(seen zoomed_app_width)" "BEGIN { exit !(w > 1179.99 && w < 1180.01) }"'
check "browser: Reset Zoom gives hot back its $(seen app_width) pixels ($(seen reset_app_width))" \
	awk -v a="$(seen app_width)" -v r="$(seen reset_app_width)" \
	'BEGIN { exit !(a > 0 && (a - r) ^ 2 < 0.0001) }'
check "browser: Search hot_loop highlights $(seen highlighted) frame(s), matched $(seen matched)% (its width's share)" \
	awk -v h="$(seen highlighted)" -v m="$(seen matched)" -v w="${hot_width:-0}" \
	'BEGIN { exit !(h >= 1 && m > 0 && (m - 100 * w / 1180) ^ 2 < 0.01) }'

# The same samples as a speedscope file, opened in the speedscope viewer
# (its release files from npm) in headless Chromium: hot's profile
# shown, its Sandwich view (a table) ranks hot_loop first.
"$top/build/userland/sleepy-parse" --speedscope cpu "$top/out/sleepy.data" \
	> "$dir/cpu.speedscope.json" 2> /dev/null
NODE_PATH="$top/build/npm/node_modules" timeout 120 \
	node "$top/tests/run/speedscope-browser.js" \
	"$top/build/npm/node_modules/speedscope/dist/release" "$dir/cpu.speedscope.json" \
	hot_loop "$top/out/test/make-run-speedscope.png" \
	> "$dir/speedscope.txt" 2> "$dir/speedscope.err"
status=$?
sed 's/^/# speedscope: /' "$dir/speedscope.txt" "$dir/speedscope.err"
shown() { sed -n "s/^$1=//p" "$dir/speedscope.txt"; }
check "speedscope viewer: $(shown profile) shown, its Sandwich view ranks $(shown top_symbol) first, no script error (status $status)" \
	eval '[ $status = 0 ] && [ "$(shown errors)" = 0 ] &&
	      case "$(shown profile)" in hot_\(*) true ;; *) false ;; esac &&
	      [ "$(shown top_symbol)" = hot_loop ] && [ "$(shown function_shown)" -ge 1 ]'

# A library loaded with dlopen() while the session runs: its mapping comes
# from the mmap hook.  ldd cannot know it, so it goes into the guest as
# make run's GUEST_HOST_PROGRAMS, at its host path.
GUEST_HOST_PROGRAMS="$dir/libhot.so" PROGRAM="$dir/hot_dlopen" \
	ARGS="$dir/libhot.so 300000000" SLEEPY_OPTS="-F 2000" bash "$top/qemu/run.sh" \
	> "$dir/dlopen.log" 2>&1
status=$?
cp "$dir/dlopen.log" "$top/out/test/make-run-dlopen.log"
console_clean dlopen
check "make run of a PIE that dlopen()s its library exits 0 (status $status)" [ $status = 0 ]
check "the program loaded the library and ran to the end" \
	grep -q "^hot_dlopen: " "$dir/dlopen.log"
check "its hot loop is named in the dlopen()ed library: hot_loop (libhot.so)" \
	grep -Eq "^ *[0-9]+ +[0-9.]+% +hot_dlopen#1 .*hot_loop \(libhot\.so\)" "$dir/dlopen.log"

PROGRAM="$dir/hot" ARGS="1000 3" bash "$top/qemu/run.sh" > "$dir/fail.log" 2>&1
status=$?
cp "$dir/fail.log" "$top/out/test/make-run-fail.log"
console_clean fail
check "make run of a program that exits 3 fails (status $status)" [ $status != 0 ]
check "and says so in one line" \
	grep -q "^run: .*hot exited with status 3$" "$dir/fail.log"
