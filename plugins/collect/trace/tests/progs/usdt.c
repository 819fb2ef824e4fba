/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USDT probes: region/region_end (paired by suffix) 3 times around 10 ms,
 * phase_a/phase_z (paired by a rule) twice around 5 ms, tick 4 times,
 * load_begin/load_end and save_start/save_finish twice each. */
#include <sys/sdt.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 3; i++) {
		DTRACE_PROBE(perun, region);
		usleep(10000);
		DTRACE_PROBE(perun, region_end);
	}
	for (int i = 0; i < 2; i++) {
		DTRACE_PROBE(perun, phase_a);
		usleep(5000);
		DTRACE_PROBE(perun, phase_z);
	}
	for (int i = 0; i < 4; i++) {
		DTRACE_PROBE(perun, tick);
		usleep(1000);
	}
	for (int i = 0; i < 2; i++) {
		DTRACE_PROBE(perun, load_begin);
		usleep(2000);
		DTRACE_PROBE(perun, load_end);
		DTRACE_PROBE(perun, save_start);
		usleep(3000);
		DTRACE_PROBE(perun, save_finish);
	}
	return 0;
}
