# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the kperf tests: the test program built here, the skip when
# this machine does not let perun sample, the newest profile and shares.

command -v cc >/dev/null || test_skip_all "a C compiler is needed to build the sampled program"
perun plugins list 2>/dev/null | grep -q "^collect  *kperf " ||
	test_skip_all "the kperf collector is not built"

KPERF_TESTS="$TEST_SRCDIR/plugins/collect/kperf/tests"
# hot.c spends this much CPU time (ms): a thousand samples at 999 Hz.
HOT_MS=1000

build_hot() { # build_hot <output> <cc flags...>
	out=$1
	shift
	cc -O1 -g "$@" -o "$out" "$KPERF_TESTS/hot.c"
}

newest_profile() {
	ls -t .perun/jobs/*.perf | head -n 1
}

# share_under <function> <folded file>: percent of samples whose stack
# has the function.
share_under() {
	awk -v f=";$1;" '{ n = $NF; total += n; stack = $0; sub(/ [0-9]+$/, "", stack);
		if (index(";" stack ";", f)) under += n }
		END { if (!total) print 0; else printf "%d\n", 100 * under / total }' "$2"
}

# Sampling needs perf events and (frame-pointer mode) BPF: skip, saying
# why, where either is not permitted.
kperf_require_sampling() {
	if ! perun collect -c "$PWD/hot-probe" -a 50 kperf >probe.out 2>probe.err; then
		if grep -q "not permitted" probe.err; then
			test_skip_all "sampling is not permitted here: $(cat probe.err)"
		fi
	fi
}
