#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End to end: two versions of a C file in a git repository, the second
# turning a loop nest from O(n^1) into O(n^2); perun collect bounds at
# each, perun add, and perun check head with the bclass method names the
# inner loop and the function at their file and line.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"
test -e "$PERUN_PLUGIN_PATH/check/bclass.so" || test_skip_all "the bclass check is not built"

test_expect_success 'setup: v1 with a linear nest, profiled and added' '
	git init -q proj && (cd proj &&
	cat >sum.c <<-\EOF &&
	int sum_rows(int n, const int *a)
	{
		int s = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < 4; j++)
				s += a[4 * i + j];
		return s;
	}
	EOF
	git add sum.c && git commit -q -m v1 &&
	perun init >/dev/null &&
	perun config --shared set degradation.strategies "[{method: bclass}]" &&
	perun config --local set degradation.strategies "[{method: bclass}]" &&
	perun collect -c sum bounds -s sum.c >/dev/null &&
	perun add .perun/jobs/bounds-*.perf >/dev/null)
'

test_expect_success 'setup: v2 makes the inner loop run to n, profiled and added' '
	(cd proj &&
	cat >sum.c <<-\EOF &&
	/* every row now as long as the matrix is high */
	int sum_rows(int n, const int *a)
	{
		int s = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				s += a[n * i + j];
		return s;
	}
	EOF
	git commit -q -am v2 &&
	perun collect -c sum bounds -s sum.c >/dev/null &&
	perun add $(ls -t .perun/jobs/bounds-*.perf | head -n 1) >/dev/null)
'

test_expect_success 'perun check head names the loop and the function that rose' '
	(cd proj && perun check head --format json >out.json) &&
	jq -r ".changes[] | [.location, .result, .from, .to] | join(\"|\")" proj/out.json |
		sort >actual &&
	cat >expect <<-\EOF &&
	sum.c:sum_rows:2:5|Degradation|O(n^1)|O(n^2)
	sum.c:sum_rows:6:1|Degradation|O(n^1)|O(n^2)
	EOF
	sort expect >expect.sorted &&
	test_cmp expect.sorted actual
'

test_expect_success 'the human report shows it too; the gate fails on it' '
	(cd proj && perun check head >out 2>err; test_exit_code 1 perun check head --fail-on degradation >/dev/null 2>&1) &&
	test_grep "^at sum.c:sum_rows:6:1:$" proj/out &&
	test_grep "local bound Degradation from: O(n^1) -> to: O(n^2)" proj/out
'

test_done
