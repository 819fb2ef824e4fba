# SPDX-License-Identifier: GPL-3.0-or-later
# Tests: TAP through automake's tap-driver.  Shell tests are
# tests/tNNNN-<command>-<detail>.sh on tests/test-lib.sh; each plugin adds
# its own from its local.mk.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = $(LOG_DRIVER)
AM_TESTS_ENVIRONMENT = srcdir='$(abs_top_srcdir)'; export srcdir; \
	abs_top_builddir='$(abs_top_builddir)'; export abs_top_builddir;
SH_LOG_COMPILER = $(SHELL)

EXTRA_DIST += %reldir%/test-lib.sh

TESTS += tests/t0100-init.sh tests/t0200-config.sh
EXTRA_DIST += tests/t0100-init.sh tests/t0200-config.sh

TESTS += tests/t0900-docs.sh
EXTRA_DIST += tests/t0900-docs.sh
