#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect trace: errors name the problem, exit 2 for bad input and 3
# for what failed while collecting, and leave the store as it was.
. "$srcdir/tests/test-lib.sh"
. "$srcdir/plugins/collect/trace/tests/trace-lib.sh"
trace_require_plugin

# fails CODE PATTERN perun-collect-args...: exit code, message, store unchanged.
fails() {
	code=$1 pattern=$2
	shift 2
	store_snapshot >before &&
	test_exit_code "$code" perun collect "$@" >out 2>err &&
	test_grep "$pattern" err &&
	store_snapshot >after && test_cmp before after
}

test_expect_success 'setup' '
	trace_project && build_prog calls && build_prog usdt &&
	cp calls stripped && strip stripped
'

test_expect_success 'binary not found' '
	cd proj &&
	fails 3 "binary .\./nonexistent. not found" -c ./nonexistent trace -f work &&
	fails 3 "binary .nonexistent-program-xyz. not found (give the profiled program with --binary)" \
		-c nonexistent-program-xyz trace -f work &&
	fails 3 "binary .\./nope. not found" -c ./calls trace -b ./nope -f work
'

test_expect_success 'stripped binary' '
	cd proj &&
	fails 2 "binary .*/stripped. is stripped: it has no symbol table" \
		-c ./stripped trace -s userspace &&
	fails 2 "function .work. (--func .work.) not found: .*/stripped. is stripped" \
		-c ./stripped trace -f work
'

test_expect_success 'function, usdt probe, library not found' '
	cd proj &&
	fails 2 "function .nosuch. (--func .nosuch.) not found in .*/calls.$" \
		-c ./calls trace -f nosuch &&
	fails 2 "usdt probe .nosuch. not found in .*/calls." -c ./calls trace -u nosuch &&
	fails 2 "usdt probe .region. cannot pair with itself" -c ./usdt trace -u "region#region" &&
	fails 3 "library .libnosuch\.so. not found" -c ./calls trace -l libnosuch.so -f work &&
	fails 2 "bad --func rule .other\.so#work.: .other\.so. is neither the binary nor one of --libs" \
		-c ./calls trace -f "other.so#work"
'

test_expect_success 'bad rules and options' '
	cd proj &&
	fails 2 "bad --func rule .work#0.: sampling must be 1 to" -c ./calls trace -f "work#0" &&
	fails 2 "bad --func rule .a#b#c#d#e. (expected" -c ./calls trace -f "a#b#c#d#e" &&
	fails 2 "bad --func rule .calls#work#leaf. (expected \[<lib>#\]<name>\[#<sampling>\])" -c ./calls trace -f "calls#work#leaf" &&
	fails 2 "bad dynamic location .work+zz." -c ./calls trace -d "work+zz" &&
	fails 2 "dynamic location .work+100000.: offset beyond the function" \
		-c ./calls trace -d "work+100000" &&
	fails 2 "option .--global-sampling. must be 1 to" -c ./calls trace -s userspace -g 0 &&
	fails 2 "option .--timeout. must be 0 or more" -c ./calls trace -f work -t -1 &&
	fails 2 "nothing to trace: the custom strategy needs --func, --usdt or --dynamic rules" \
		-c ./calls trace
'

test_expect_success 'a command that cannot run' '
	cd proj &&
	printf "not a program\n" >notexec &&
	fails 3 "cannot run .\./notexec.: Permission denied" -c ./notexec trace -b ./calls -f work &&
	test -z "$(ls .perun/tmp)"
'

test_expect_success '--no-profile: the raw data kept, no profile stored, exit 0' '
	cd proj &&
	build_prog calls -finstrument-functions && mv calls icalls && build_prog calls &&
	perun collect -c ./icalls trace -e instrument -s userspace \
		--no-profile >out 2>err &&
	test_grep "no profile made (--no-profile): the raw data is in" err &&
	! grep -q "failed" err &&
	dir=$(sed -n "s/^perun: info: trace: temporary files kept in //p" err) &&
	test -s "$dir/raw.events" && test -s "$dir/probes.txt" &&
	test -z "$(ls .perun/jobs)"
'

test_expect_success 'ebpf: not root' '
	cd proj &&
	if [ "$(id -u)" != 0 ]; then
		fails 3 "not running as root (the ebpf engine needs root or CAP_BPF and CAP_PERFMON)" \
			-c ./calls trace -f work
	else
		chmod -R a+rwX . && chmod a+x "$TRASH_DIRECTORY" &&
		mkdir ../nobody && chmod a+rwx ../nobody &&
		printf "[safe]\n\tdirectory = %s\n" "$PWD" >../nobody/.gitconfig &&
		HOME=$PWD/../nobody setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all \
			perun collect -c ./calls trace -f work >out 2>err
		test $? = 3 &&
		test_grep "not running as root (the ebpf engine needs root or CAP_BPF and CAP_PERFMON)" err
	fi
'

test_expect_success 'ebpf: probe limit exceeded' '
	cd proj &&
	awk "BEGIN { for (i = 0; i < 4100; i++) printf \"void f%d(void) {}\\n\", i;
		print \"int main(void) { return 0; }\" }" >many.c &&
	cc -O0 -o many many.c &&
	fails 2 "probe limit exceeded: 4101 functions selected, the ebpf engine attaches at most 4000" \
		-c ./many trace -s userspace
'

test_done
