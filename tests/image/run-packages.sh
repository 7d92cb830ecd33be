#!/bin/sh
# make test in the Debian image (sleepy.mode=packages): the packages as
# apt installed them, then removed.
. /mnt/tests/guest/lib.sh
group packages /mnt/tests/image/test-packages.sh
end_results
