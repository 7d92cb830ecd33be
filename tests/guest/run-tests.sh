#!/bin/sh
# make test inside the guest: the kselftest ABI suite, then the tools end
# to end.  Prints "ok - NAME" / "not ok - NAME" lines for the host runner.
cd /tmp
export PATH=/sleepy/bin:$PATH
. /sleepy/guest/lib.sh

echo "== kselftest: sleepy_test"
sleepy_test 2>&1 | sed 's/^/selftest: /'

echo "== tools"
/sleepy/guest/test-tools.sh
/sleepy/guest/test-accuracy.sh
/sleepy/guest/test-idle.sh
/sleepy/guest/test-drain.sh
/sleepy/guest/test-abi-attack.sh 10000 600
