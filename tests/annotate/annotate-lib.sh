# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the annotation tests: source after test-lib.sh.
#   annotate_build [cflags...]   builds tests/annotate/annotated.c into
#                                ./annotated and annotated.cc into
#                                ./annotatedxx, linked with the build
#                                tree's libperun-annotate
ANN="$TEST_SRCDIR/tests/annotate"
LIBDIR="$TEST_BUILDDIR/sdk/.libs"

annotate_build() {
	cc -std=c11 -O2 "$@" -I"$TEST_SRCDIR/sdk/include" -o annotated "$ANN/annotated.c" \
		-L"$LIBDIR" -lperun-annotate -lpthread -Wl,-rpath,"$LIBDIR" &&
	c++ -std=c++11 -O2 "$@" -I"$TEST_SRCDIR/sdk/include" -o annotatedxx "$ANN/annotated.cc" \
		-L"$LIBDIR" -lperun-annotate -lpthread -Wl,-rpath,"$LIBDIR"
}
