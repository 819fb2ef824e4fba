/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Everything a plugin needs: the ABI and libperun. */
#ifndef PERUN_PERUN_H
#define PERUN_PERUN_H

#include <perun/plugin.h>
#include <perun/error.h>
#include <perun/params.h>
#include <perun/profile.h>
#include <perun/fsutil.h>
#include <perun/strbuf.h>
#include <perun/array.h>
#include <perun/points.h>
#include <perun/suggest.h>

#endif
