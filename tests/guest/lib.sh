# Helpers for the guest test scripts (sourced).
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
# check NAME COMMAND...: ok if COMMAND succeeds.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# json_num FILE KEY: a top-level number from sleepy-parse --format json.
json_num() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n1
}
