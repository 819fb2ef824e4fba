#!/bin/sh
. "$srcdir/tests/test-lib.sh"
test_done
