#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# No bound below the truth: random loop programs (gen-loops.py: for,
# while, do; counters up, down, by steps, halved, doubled, two counters,
# != guards, breaks, continues, resets, amortised inner loops, wrong-way
# counters) are analysed by perun collect bounds, compiled and run over a
# grid of parameters, counting each loop's runs per call.  Every bounded
# loop's bound, evaluated at the parameters, must be at least its count;
# a run that does not end within its fuel must not have bounds that
# promise fewer runs.  The seeds are fixed: a failure reproduces (each
# of these found a bug once).
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"
command -v python3 >/dev/null 2>&1 || test_skip_all "python3 is not installed"
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || test_skip_all "no C compiler ($cc)"
gen="$srcdir/plugins/collect/bounds/tests/gen-loops.py"

test_expect_success 'setup: a perun instance' '
	perun init --vcs-type svs proj >/dev/null
'

for seed in 1 2 3 6 7 30; do
	test_expect_success "seed $seed: 150 random functions, no bound below a run" '
		cd proj &&
		python3 "$gen" gen '$seed' 150 loops.c &&
		"$cc" -O1 -w -o loops loops.c &&
		./loops >runs &&
		rm -f .perun/jobs/*.perf &&
		perun collect -c loops bounds -s loops.c >/dev/null &&
		python3 "$gen" check .perun/jobs/bounds-*.perf runs loops.c.lines >summary &&
		cat summary &&
		test_grep "violations 0$" summary &&
		test_grep -v "bounded 0," summary
	'
done

test_done
