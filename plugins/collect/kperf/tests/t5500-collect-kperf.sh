#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... kperf: a program spending ~98% of its time in one
# function shows >= 80% of the samples under it, with frame pointers
# (counted in the kernel by BPF) and without (dwarf unwinding); the
# profile has the shape of Python Perun's kperf profiles, and the
# flamegraph, folded and pprof views read it.  No assertion on wall time.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/plugins/collect/kperf/tests/kperf-lib.sh"

test_expect_success 'setup: the sampled programs and a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null) &&
	build_hot proj/hot-fp -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer &&
	build_hot proj/hot-nofp -fomit-frame-pointer &&
	cp proj/hot-fp proj/hot-probe
'

cd proj
kperf_require_sampling
cd ..

test_expect_success 'frame pointers: >= 80% of the samples under hot_loop' '
	cd proj &&
	perun collect -c "$PWD/hot-fp" -a $HOT_MS kperf >out 2>err &&
	test_grep "^kperf: [0-9]* samples of .*frame pointers" out &&
	test_grep "^Collected profile .*kperf-" out &&
	perun show "$(newest_profile)" folded -o fp.folded &&
	share=$(share_under hot_loop fp.folded) &&
	echo "hot_loop: $share%" &&
	test "$share" -ge 80 &&
	test_grep "main;\(work;\)\{0,1\}hot_loop" fp.folded
'

test_expect_success 'dwarf: >= 80% under hot_loop of a program without frame pointers' '
	cd proj &&
	perun collect -c "$PWD/hot-nofp" -a $HOT_MS kperf --call-graph dwarf >out 2>err &&
	test_grep "^kperf: [0-9]* samples of .*dwarf" out &&
	perun show "$(newest_profile)" folded -o dwarf.folded &&
	share=$(share_under hot_loop dwarf.folded) &&
	echo "hot_loop: $share%" &&
	test "$share" -ge 80 &&
	test_grep "main;work;hot_loop" dwarf.folded
'

test_expect_success 'the profile has the shape of Python Perun kperf profiles' '
	cd proj &&
	python3 - "$(newest_profile)" <<-\PY
	import json, sys
	p = json.load(open(sys.argv[1]))
	assert p["header"]["type"] == "time", p["header"]
	assert p["header"]["units"] == {"time": "sample"}, p["header"]
	assert p["collector_info"]["name"] == "kperf"
	for key, res in p["resource_type_map"].items():
	    assert set(res) == {"command", "time", "trace", "uid"}, res
	    assert all(set(f) == {"func"} for f in res["trace"]), res
	    assert set(p["resources"][key]) == {"amount"}
	    assert all(isinstance(a, int) and a > 0 for a in p["resources"][key]["amount"])
	leaves = [r["uid"] for r in p["resource_type_map"].values()]
	assert "hot_loop" in leaves, leaves
	PY
'

# The issue's own figure: about 90% of the CPU time in one function.  The
# split is made by CPU time, not by iterations (whose cost varies on a
# shared machine), in ten rounds of 90 ms in hot and 10 ms in cold.  Its
# clock_gettime calls run in the vdso, which must not be named after
# another mapping (a warning of "no symbols in ld.so.cache" once).
test_expect_success 'a 90/10 split of CPU time: >= 80% under the 90% function, both modes' '
	cd proj &&
	cat >split.c <<-\EOF &&
	#include <time.h>
	static volatile unsigned long sink;
	static double cpu(void)
	{ struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
	__attribute__((noinline)) void hot(double end)
	{ while (cpu() < end) for (int i = 0; i < 100000; i++) sink += i; }
	__attribute__((noinline)) void cold(double end)
	{ while (cpu() < end) for (int i = 0; i < 100000; i++) sink += i; }
	int main(void)
	{ for (int k = 0; k < 10; k++) { hot(cpu() + 0.09); cold(cpu() + 0.01); } return 0; }
	EOF
	cc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o split-fp split.c &&
	cc -O1 -g -fomit-frame-pointer -o split-nofp split.c &&
	perun collect -c "$PWD/split-fp" kperf >/dev/null 2>err-fp &&
	perun show "$(newest_profile)" folded -o split-fp.folded &&
	perun collect -c "$PWD/split-nofp" kperf -g dwarf >/dev/null 2>err-dwarf &&
	perun show "$(newest_profile)" folded -o split-dwarf.folded &&
	# clock_gettime runs in the vdso: no module without symbols there
	test_cmp /dev/null err-fp && test_cmp /dev/null err-dwarf &&
	! grep -h "ld\.so\.cache" split-fp.folded split-dwarf.folded &&
	fp=$(share_under hot split-fp.folded) && dwarf=$(share_under hot split-dwarf.folded) &&
	echo "hot: fp $fp%, dwarf $dwarf%" &&
	test "$fp" -ge 80 && test "$dwarf" -ge 80
'

test_expect_success '--repeat 2: an amount per run; --period instead of --frequency' '
	cd proj &&
	perun collect -c "$PWD/hot-fp" -a $HOT_MS kperf -r 2 -c 1000000 >out &&
	python3 - "$(newest_profile)" <<-\PY
	import json, sys
	p = json.load(open(sys.argv[1]))
	runs = max(len(p["resources"][k]["amount"])
	           for k, r in p["resource_type_map"].items() if r["uid"] == "hot_loop")
	assert runs == 2, runs
	PY
'

test_expect_success 'another sampling event: task-clock every 1 ms of it' '
	cd proj &&
	perun collect -c "$PWD/hot-fp" -a $HOT_MS kperf -e task-clock -c 1000000 >out &&
	test_grep "^kperf: [0-9]* samples of .* (task-clock, frame pointers)" out &&
	perun show "$(newest_profile)" folded -o tc.folded &&
	test "$(share_under hot_loop tc.folded)" -ge 80
'

test_expect_success 'flamegraph and pprof views of a kperf profile' '
	cd proj &&
	prof=$(newest_profile) &&
	perun show "$prof" flamegraph -o flame.svg &&
	test_grep "hot_loop" flame.svg &&
	perun show "$prof" pprof -o p.pb.gz &&
	python3 "$TEST_SRCDIR/plugins/view/pprof/tests/pprof-read.py" p.pb.gz >decoded &&
	test "$(sed -n 1p decoded)" = "type samples count" &&
	grep -v -e "^type " -e "^comment " decoded >decoded.folded &&
	python3 "$TEST_SRCDIR/plugins/view/flamegraph/tests/flame-check.py" "$prof" \
		--folded decoded.folded
'

test_expect_success 'perun check: hot_loop run three times as long degrades its uid' '
	cd proj &&
	perun collect -c "$PWD/hot-fp" -a 250 -pn base.perf kperf -r 3 >/dev/null &&
	perun collect -c "$PWD/hot-fp" -a 750 -pn grown.perf kperf -r 3 >/dev/null &&
	perun check profiles .perun/jobs/base.perf .perun/jobs/grown.perf >out &&
	test_grep "^at hot_loop:" out &&
	test_grep "Degradation from: [0-9.]*sample -> to: [0-9.]*sample" out &&
	perun check profiles .perun/jobs/base.perf .perun/jobs/base.perf >out &&
	test_grep "no changes found" out
'

test_expect_success 'C++: frames are demangled' '
	cd proj &&
	command -v c++ >/dev/null || { echo "no C++ compiler: skipped"; return 0; } &&
	cat >hot.cc <<-\EOF &&
	namespace calc {
	volatile unsigned long sink;
	template <typename T> __attribute__((noinline)) void spin(T n)
	{ for (T i = 0; i < n; i++) sink += i; }
	}
	int main() { calc::spin<long>(200000000L); }
	EOF
	c++ -O1 -g -fno-omit-frame-pointer -o hot-cc hot.cc &&
	perun collect -c "$PWD/hot-cc" kperf >out &&
	perun show "$(newest_profile)" folded -o cc.folded &&
	test_grep "void calc::spin<long>(long)" cc.folded
'

test_expect_success 'inlined functions are frames of their own, in both modes' '
	cd proj &&
	cat >inl.c <<-\EOF &&
	static volatile unsigned long sink;
	static inline __attribute__((always_inline)) void mix(long i)
	{ sink += (unsigned long)(i * i) ^ (sink >> 3); }
	__attribute__((noinline)) void spin(long n) { for (long i = 0; i < n; i++) mix(i); }
	int main(void) { spin(100000000); return 0; }
	EOF
	cc -O2 -g -fno-omit-frame-pointer -o inl inl.c &&
	perun collect -c "$PWD/inl" kperf >out &&
	perun show "$(newest_profile)" folded -o inl-fp.folded &&
	test_grep ";spin;mix [0-9]*$" inl-fp.folded &&
	perun collect -c "$PWD/inl" kperf -g dwarf >out &&
	perun show "$(newest_profile)" folded -o inl-dwarf.folded &&
	test_grep ";main;spin;mix [0-9]*$" inl-dwarf.folded
'

test_expect_success 'a stripped program: a warning, frames as module+offset' '
	cd proj &&
	cp hot-fp hot-stripped && strip hot-stripped &&
	perun collect -c "$PWD/hot-stripped" -a $HOT_MS kperf >out 2>err &&
	test_grep "warning: kperf: no symbols in .*hot-stripped" err &&
	perun show "$(newest_profile)" folded -o stripped.folded &&
	test_grep "hot-stripped+0x[0-9a-f]*" stripped.folded
'

test_expect_success '--pid samples a running process for --duration' '
	cd proj || return 1
	./hot-fp 60000 &
	pid=$!

	perun collect -c hot-fp kperf --pid $pid --duration 0.5 >out 2>err;
	rc=$?; kill $pid; wait $pid; test $rc = 0 &&
	test_grep "samples of .hot-fp. in 0.5" out &&
	perun show "$(newest_profile)" folded -o pid.folded &&
	test_grep "hot_loop" pid.folded
'

test_expect_success '--pid of a process that exits: sampled until then, a note' '
	cd proj &&
	{ ./hot-fp $HOT_MS & } &&
	pid=$! &&
	perun collect -c hot-fp kperf --pid $pid --duration 60 >out 2>err &&
	test_grep "^perun: process $pid exited after [0-9.]* s; sampled until then$" err &&
	test_grep "^Collected profile" out
'

test_expect_success '--pid without --duration: Ctrl-C ends it, the profile is kept' '
	cd proj || return 1
	./hot-fp 60000 &
	pid=$!
	test_interrupt "grep -q \"until Ctrl-C\" err" perun collect -c hot-fp kperf --pid $pid >out 2>err
	rc=$?; kill $pid; wait $pid
	test $rc = 0 &&
	test_grep "^perun: kperf: sampling of process $pid stopped by Ctrl-C after" err &&
	test_grep "^Collected profile" out &&
	perun show "$(newest_profile)" folded -o int.folded &&
	test_grep "hot_loop" int.folded
'

test_expect_success 'kernel frames follow the user frames, in both modes' '
	cd proj &&
	cat >sys.c <<-\EOF &&
	#include <fcntl.h>
	#include <unistd.h>
	__attribute__((noinline)) void writer(int fd, long n)
	{ char b[4096] = { 0 }; for (long i = 0; i < n; i++) if (write(fd, b, sizeof b) < 0) return; }
	int main(void) { writer(open("/dev/null", O_WRONLY), 2000000); return 0; }
	EOF
	cc -O1 -g -fno-omit-frame-pointer -o sys sys.c &&
	awk "{ print \$3 }" /proc/kallsyms | sort -u >ksyms &&
	for g in fp dwarf; do
		perun collect -c "$PWD/sys" kperf -g $g >/dev/null &&
		perun show "$(newest_profile)" folded -o sys-$g.folded &&
		grep "main;" sys-$g.folded | sed "s/ [0-9]*$//" | tr ";" "\n" | sort -u >frames &&
		comm -12 frames ksyms >kernel-frames &&
		test -s kernel-frames || { echo "-g $g: no kernel frame"; return 1; }
	done
'

test_done
