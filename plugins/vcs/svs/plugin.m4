dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([svs], [vcs], [yes], [single-version system for projects without a VCS])
