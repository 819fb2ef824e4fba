dnl SPDX-License-Identifier: GPL-3.0-or-later
PKG_CHECK_MODULES([LIBGIT2], [libgit2 >= 1.1], [have_libgit2=yes], [have_libgit2=no])
PERUN_PLUGIN([git], [vcs], [$have_libgit2], [git repositories through libgit2])
