#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... memory: programs that end by _exit, a crash, a signal or
# abort keep what they recorded; bad commands and options are refused with
# the store left as it was.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/plugins/collect/memory/tests/lib-memory.sh"

test_expect_success 'setup: test programs and a perun instance' '
	build ends ends.c &&
	build nodebug snap.c -g0 &&
	printf "#!/bin/sh\nexit 0\n" >script.sh && chmod +x script.sh &&
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# The two allocations of ends.c: 123 bytes kept, 77 bytes freed.
expect_ends() {
	cat >expect.raw <<-EOT
	malloc,$(line_of ends.c kept),123,True
	malloc,$(line_of ends.c freed),77,False
	free,$(line_of ends.c freed),0,
	EOT
	sort expect.raw >expect
}

test_expect_success 'a program leaving by _exit: everything recorded, the kept block leaked' '
	cd proj &&
	perun collect -c ../ends -a _exit memory --per-event >/dev/null &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line amount leaked | sort >actual &&
	expect_ends &&
	test_cmp expect actual
'

for how in crash kill abort; do
	test_expect_success "a program ended by $how fails the collection, the store unchanged" '
		cd proj &&
		store_snapshot >before &&
		test_exit_code 3 perun collect -c ../ends -a '$how' memory --per-event 2>err &&
		test_grep "^perun: collector ${q}memory${q}: command ${q}../ends${q} was killed by signal" err &&
		test_grep "(--ignore-failure keeps what it allocated until then)" err &&
		store_snapshot >after &&
		test_cmp before after
	'
	test_expect_success "with --ignore-failure a program ended by $how keeps its allocations" '
		cd proj &&
		perun collect -c ../ends -a '$how' memory --per-event --ignore-failure >/dev/null &&
		p=$(newest_profile) &&
		table "$p" subtype uid:line amount leaked | sort >actual &&
		expect_ends &&
		test_cmp expect actual
	'
done

test_expect_success 'a program closing and reusing all descriptors, with a growing trace' '
	build fds fds.c &&
	cd proj &&
	perun collect -c ../fds -a "$PWD/fds.out" memory --per-event --no-func main >/dev/null &&
	test "$(cat fds.out)" = hello &&
	p=$(newest_profile) &&
	table "$p" subtype uid:function uid:line amount >actual &&
	echo "malloc,keep,$(line_of fds.c keep),42" >expect &&
	test_cmp expect actual
'

test_expect_success 'a missing program is named, the store unchanged' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 3 perun collect -c ./no-such-program memory --per-event 2>err &&
	echo "perun: collector ${q}memory${q}: command ${q}./no-such-program${q} not found" >expect &&
	head -n 1 err >actual &&
	test_cmp expect actual &&
	test_exit_code 3 perun collect -c no-such-program-in-path memory --per-event 2>err &&
	test_grep "command ${q}no-such-program-in-path${q} not found" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_expect_success 'a binary without debug information is refused, as Perun does' '
	cd proj &&
	test_exit_code 3 perun collect -c ../nodebug memory --per-event 2>err &&
	test_grep "binary ${q}../nodebug${q} has no debug information: recompile it with debug options (gcc -g | g++ -g)" err
'

test_expect_success 'a script is not a C/C++ binary' '
	cd proj &&
	test_exit_code 3 perun collect -c ../script.sh memory --per-event 2>err &&
	test_grep "${q}../script.sh${q} is not an ELF program" err
'

test_expect_success 'a statically linked program cannot be intercepted' '
	if ! "${CC:-cc}" -g -static -o static "$progs/snap.c" 2>/dev/null; then
		echo "no static C library: nothing to check" && exit 0
	fi &&
	cd proj &&
	test_exit_code 3 perun collect -c ../static memory --per-event 2>err &&
	test_grep "binary ${q}../static${q} is statically linked" err
'

test_expect_success 'a program exiting non-zero fails the collection, unless ignored' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 3 perun collect -c ../ends -a fail memory --per-event 2>err &&
	test_grep "command ${q}../ends${q} exited with status 7 (--ignore-failure keeps its allocations)" err &&
	store_snapshot >after &&
	test_cmp before after &&
	perun collect -c ../ends -a fail memory --per-event -i >/dev/null &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line amount leaked | sort >actual &&
	expect_ends &&
	test_cmp expect actual
'

test_expect_success 'bad option values are refused with exit status 2' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 2 perun collect -c ../ends memory --per-event --sampling 0 2>err &&
	test_grep "option ${q}--sampling${q} must be a number of seconds above 0, not 0" err &&
	test_exit_code 2 perun collect -c ../ends memory --per-event --sampling -1 2>err &&
	test_exit_code 2 perun collect -c ../ends memory --per-event --sampling abc 2>err &&
	test_grep "option ${q}--sampling${q} takes a number, not ${q}abc${q}" err &&
	test_exit_code 2 perun collect -c ../ends memory --per-event --max-depth 0 2>err &&
	test_grep "option ${q}--max-depth${q} must be 1 to 256, not 0" err &&
	test_exit_code 2 perun collect -c ../ends memory --per-event --max-depth 257 2>err &&
	test_exit_code 2 perun collect -c ../ends memory --per-event --no-such-option 2>err &&
	store_snapshot >after &&
	test_cmp before after
'

test_done
