#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun check --format sarif is valid SARIF 2.1.0 (checked against the
# published JSON schema with python3-jsonschema) and has what GitHub code
# scanning needs: a physical location in every result and a rule, with a
# name and descriptions, for every result's ruleId.  Self-made profiles.
. "$srcdir/tests/test-lib.sh"

test_have_jsonschema ||
	test_skip_all "python3-jsonschema is not installed (Debian: python3-jsonschema)"

test_expect_success 'setup: a profiled history whose second version is slower' '
	mkdir -p more/check &&
	cp "$TEST_BUILDDIR/tests/abi/.libs/check_1_3.so" more/check/ &&
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 &&
	test_time_profile 1.0 "$(git rev-parse HEAD)" >.perun/jobs/a.perf &&
	perun add .perun/jobs/a.perf >/dev/null &&
	git commit -q --allow-empty -m v2 &&
	test_time_profile 3.0 "$(git rev-parse HEAD)" >.perun/jobs/b.perf &&
	perun add .perun/jobs/b.perf >/dev/null)
'

test_expect_success 'check head: valid SARIF, a file for each result' '
	(cd proj && test_exit_code 0 perun check head --format sarif >head.sarif &&
	 test_sarif_valid head.sarif &&
	 jq -e ".runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri == \"prog\"" head.sarif)
'

test_expect_success 'two methods, one of ABI 1.3: valid, every rule described' '
	(cd proj && perun config --local set degradation.strategies "[{method: check_1_3}]" &&
	 perun --plugin-path "$TRASH_DIRECTORY/more:$PERUN_PLUGIN_PATH" \
		check profiles HEAD~1^0@i 0@i --format sarif >two.sarif &&
	 test_sarif_valid two.sarif &&
	 jq -e "[.runs[0].tool.driver.rules[].id] == [\"check_1_3\", \"aat\"]" two.sarif)
'

test_expect_success 'an invalid document is refused by the validation' '
	(cd proj && jq "del(.version)" head.sarif >bad.sarif && ! test_sarif_valid bad.sarif 2>/dev/null)
'

test_done
