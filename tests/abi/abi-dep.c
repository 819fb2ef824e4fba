/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A library the missing_dep test plugin links against; the test stages
 * the plugin without it, so dlopen fails on a missing dependency.
 */
int abi_dep_answer(void);
int abi_dep_answer(void)
{
	return 42;
}
