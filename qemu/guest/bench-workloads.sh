# The benchmark's workloads and their arguments, sourced by the guest
# (qemu/guest/run-bench.sh) and the host (bench/run.sh, for callgrind), so
# both run exactly the same work.  Each takes about 2 guest seconds at
# QEMU -icount shift=1.
bench_workloads="loop call btree syscall forkexec"
workload_args() {
	case $1 in
	loop) echo 120000000 ;;
	call) echo 17000 ;;
	btree) echo 1000000 ;;
	syscall) echo 500000 ;;
	forkexec) echo 1500 ;;
	esac
}
