#!/bin/sh
export PATH=/sleepy/bin:$PATH
cd /tmp
storm() { while [ ! -e /tmp/stop-storm ]; do /bin/true; sh -c ':' & wait; done; }
storm & s1=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
  sleepy-start -F 10000 -b 64K -o /tmp/s.data >/dev/null
  sleep 1
  sleepy-stop 2>&1 | grep -v "^sleepy:"
done
touch /tmp/stop-storm; wait $s1
echo "ok - small"
