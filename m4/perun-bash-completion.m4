# SPDX-License-Identifier: GPL-3.0-or-later
# PERUN_BASH_COMPLETION_DIR
#   Sets bashcompletiondir: --with-bash-completion-dir=DIR, else the
#   completionsdir of bash-completion.pc taken relative to our own prefix
#   (so a /usr build lands where bash-completion looks, and a user prefix or
#   make distcheck stays inside the prefix), else the upstream default.
AC_DEFUN([PERUN_BASH_COMPLETION_DIR], [
	AC_REQUIRE([PKG_PROG_PKG_CONFIG])
	AC_ARG_WITH([bash-completion-dir],
		[AS_HELP_STRING([--with-bash-completion-dir=DIR],
			[install the bash completion script into DIR
			 @<:@completionsdir of bash-completion.pc, else
			 DATADIR/bash-completion/completions@:>@])],
		[bashcompletiondir=$withval],
		[bashcompletiondir=
		 AS_IF([test -n "$PKG_CONFIG"],
			[bashcompletiondir=`$PKG_CONFIG --define-variable=prefix='${prefix}' --variable=completionsdir bash-completion 2>/dev/null`])
		 AS_IF([test -z "$bashcompletiondir"],
			[bashcompletiondir='${datadir}/bash-completion/completions'])])
	AC_SUBST([bashcompletiondir])
])
