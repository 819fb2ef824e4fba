#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerate the expected results of the eto tests (a developer tool).

The oracle is Python Perun's own exclusive_time_outliers module, imported
from a checkout of upstream Perun without installing Perun: only the modules
it imports for plumbing are replaced (the checker base class, the config
lookup, which answers degradation.cutoff and degradation.location_filter
from the command line, and profile.convert, whose resources_to_pandas_dataframe
is rebuilt from the flattened profile exactly as Profile.all_resources
expands it).  Needs Debian's python3-pandas and python3-scipy.

    gen-expected.py UPSTREAM_CHECKOUT BASELINE TARGET [CUTOFF [FILTER]]

prints one line per result: the result name, location, from, to, type,
rate, relative rate, confidence type and rate (floats as Python's repr).
"""
import enum
import json
import os
import sys
import types

import numpy
import pandas

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../../tests/helpers"))
from upstream_stubs import rows_of, stub  # noqa: E402


class PerformanceChange(enum.Enum):
    Unknown = -6
    NotInBaseline = -5
    TotalDegradation = -4
    SevereDegradation = -3
    Degradation = -2
    MaybeDegradation = -1
    NoChange = 0
    MaybeOptimization = 1
    Optimization = 2
    SevereOptimization = 3
    TotalOptimization = 4
    NotInTarget = 5


class DegradationInfo:
    def __init__(self, res, loc, fb, tt, t="-", rd=0, ct="no", cr=0, pi=None, rdr=0.0):
        self.result, self.location, self.from_baseline, self.to_target = res, loc, fb, tt
        self.type, self.rate_degradation, self.confidence_type = t, rd, ct
        self.confidence_rate, self.rate_degradation_relative = cr, rdr


def resources_to_pandas_dataframe(profile):
    rows = list(rows_of(profile))
    keys = []
    for row in rows:
        for key in row:
            if key not in keys:
                keys.append(key)
    values = {key: [row.get(key, numpy.nan) for row in rows] for key in keys}
    return pandas.DataFrame(values)


def main():
    upstream, base_path, targ_path = sys.argv[1:4]
    cutoff = sys.argv[4] if len(sys.argv) > 4 else "0.0"
    location_filter = sys.argv[5] if len(sys.argv) > 5 else "*"
    # Perun does not depend on bottleneck: keep pandas on numpy's sums.
    pandas.set_option("compute.use_bottleneck", False)
    sys.path.insert(0, upstream)
    stub("perun")
    stub("perun.check")
    stub("perun.check.methods")
    stub("perun.check.methods.abstract_base_checker", AbstractBaseChecker=object)
    keys = {"degradation.cutoff": cutoff, "degradation.location_filter": location_filter}
    config = types.SimpleNamespace(lookup_key_recursively=lambda key, default: keys.get(key, default))
    stub("perun.logic", config=config)
    stub("perun.logic.config", lookup_key_recursively=config.lookup_key_recursively)
    convert = types.SimpleNamespace(resources_to_pandas_dataframe=resources_to_pandas_dataframe)
    stub("perun.profile", convert=convert)
    stub("perun.profile.convert", resources_to_pandas_dataframe=resources_to_pandas_dataframe)
    stub("perun.utils")
    stub("perun.utils.structs", DegradationInfo=DegradationInfo, PerformanceChange=PerformanceChange)
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "eto", upstream + "/perun/check/methods/exclusive_time_outliers.py")
    eto = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(eto)
    with open(base_path) as f:
        base = json.load(f)
    with open(targ_path) as f:
        targ = json.load(f)
    for info in eto.ExclusiveTimeOutliers().check(base, targ):
        print("\t".join([
            info.result.name, str(info.location), str(info.from_baseline), str(info.to_target),
            info.type, repr(float(info.rate_degradation)),
            repr(float(info.rate_degradation_relative)), info.confidence_type,
            repr(float(info.confidence_rate))]))


if __name__ == "__main__":
    main()
