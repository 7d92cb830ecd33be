#!/bin/sh
# project.sh DIR: a small C project in DIR for make -j2: sixteen source
# files of arithmetic-heavy functions, a header, and a Makefile that
# compiles them at -O2 and links the program.
set -e
mkdir -p "$1"
cd "$1"
echo 'int work(int n);' > work.h
i=0
srcs=
while [ $i -lt 16 ]; do
	cat > unit$i.c <<EOC
#include "work.h"
static int table$i[256];
int unit$i(int n)
{
	int k, s = 0;

	for (k = 0; k < 256; k++)
		table$i[k] = (k * $i + n) % 251;
	for (k = 0; k < n; k++)
		s += table$i[(s + k) & 255] * (k % 7) + $i;
	return s;
}
EOC
	srcs="$srcs unit$i.c"
	i=$((i + 1))
done
{
	echo '#include <stdio.h>'
	i=0; while [ $i -lt 16 ]; do echo "int unit$i(int n);"; i=$((i + 1)); done
	echo 'int main(void) { int s = 0;'
	i=0; while [ $i -lt 16 ]; do echo "s += unit$i(1000);"; i=$((i + 1)); done
	printf '%s\n' 'printf("%d\n", s); return 0; }'
} > main.c
cat > Makefile <<'EOM'
OBJS = $(patsubst %.c,%.o,$(wildcard *.c))
prog: $(OBJS)
	$(CC) -o $@ $(OBJS)
%.o: %.c work.h
	$(CC) -O2 -g -c -o $@ $<
EOM
