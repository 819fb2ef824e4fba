/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Does not compile: its diagnostics are reported, other files analysed. */
int broken(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += undeclared_variable;
	return s
}
