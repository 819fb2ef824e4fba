# SPDX-License-Identifier: GPL-3.0-or-later
# libperun: the API that plugins and the core share.
lib_LTLIBRARIES += %reldir%/libperun.la
%canon_reldir%_libperun_la_SOURCES = \
	%reldir%/lib/error.c \
	%reldir%/lib/array.c \
	%reldir%/lib/strbuf.c \
	%reldir%/lib/fsutil.c \
	%reldir%/lib/params.c \
	%reldir%/lib/json_parse.c \
	%reldir%/lib/reader.h \
	%reldir%/lib/profile_core.c \
	%reldir%/lib/profile_core.h \
	%reldir%/lib/json_python.c \
	%reldir%/lib/json_python.h \
	%reldir%/lib/flatten.c \
	%reldir%/lib/profile_flatten.c \
	%reldir%/lib/profile_flatten.h \
	%reldir%/lib/profile.c \
	%reldir%/lib/profile_tree.h \
	%reldir%/lib/profile_stream.c \
	%reldir%/lib/profile_dump.c \
	%reldir%/lib/points.c \
	%reldir%/lib/suggest.c
%canon_reldir%_libperun_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -fvisibility=hidden -pthread
%canon_reldir%_libperun_la_LIBADD = $(JANSSON_LIBS) -lm -lpthread
# libtool version current:revision:age, independent of the plugin ABI;
# what each interface number added or changed, and the rules: ChangeLog-ABI.
%canon_reldir%_libperun_la_LDFLAGS = $(AM_LDFLAGS) -version-info 10:0:9 -no-undefined

perunincludedir = $(includedir)/perun-$(PERUN_ABI_MAJOR)/perun
peruninclude_HEADERS = \
	%reldir%/include/perun/plugin.h \
	%reldir%/include/perun/perun.h \
	%reldir%/include/perun/error.h \
	%reldir%/include/perun/params.h \
	%reldir%/include/perun/profile.h \
	%reldir%/include/perun/fsutil.h \
	%reldir%/include/perun/strbuf.h \
	%reldir%/include/perun/array.h \
	%reldir%/include/perun/points.h \
	%reldir%/include/perun/jsonview.h \
	%reldir%/include/perun/suggest.h \
	%reldir%/include/perun/annotate.h

pkgconfig_DATA = %reldir%/perun-plugin.pc %reldir%/perun-annotate.pc
EXTRA_DIST += %reldir%/ChangeLog-ABI %reldir%/libperun.sym

# libperun-annotate: the runtime of <perun/annotate.h>, linked into the
# annotated programs (never sanitized, as the collectors' runtimes: it
# lives in the user's program).
lib_LTLIBRARIES += %reldir%/libperun-annotate.la
%canon_reldir%_libperun_annotate_la_SOURCES = %reldir%/annotate/annotate.c
%canon_reldir%_libperun_annotate_la_CFLAGS = $(PERUN_CFLAGS) -O2 -fvisibility=hidden -pthread
%canon_reldir%_libperun_annotate_la_LIBADD = -lpthread
%canon_reldir%_libperun_annotate_la_LDFLAGS = -version-info 0:0:0 -no-undefined
EXTRA_DIST += %reldir%/perun-annotate.pc.in %reldir%/annotate/README.md
# The same annotations for Python programs (PYTHONPATH=$(pkgdatadir)/python).
annotatepydir = $(pkgdatadir)/python
dist_annotatepy_DATA = %reldir%/python/perun_annotate.py

aclocaldir = $(datadir)/aclocal
dist_aclocal_DATA = %reldir%/perun.m4

# bench/bench-profile-load.sh builds and runs this (never part of the tests).
check_PROGRAMS += bench/bench-profile-load
bench_bench_profile_load_SOURCES = bench/bench-profile-load.c
bench_bench_profile_load_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -O2
bench_bench_profile_load_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
EXTRA_DIST += bench/bench-profile-load.sh bench/gen-check-profiles.py
