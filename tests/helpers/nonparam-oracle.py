#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Expected models of the non-parametric postprocessors (a developer tool).

The oracle is Python Perun's own code, imported from a checkout of upstream
Perun without installing it: the data provider
(regression_analysis/data_provider.py) and the computations
(regressogram/methods.py, moving_average/methods.py) with the real numpy,
scipy, pandas and scikit-learn (Debian: python3-numpy python3-scipy
python3-pandas python3-sklearn).  Only what those modules import but never
call here is replaced: perun.utils.exceptions, click and profile.convert, whose
flatten() is needed for string uids only.  The flattened profile is
expanded into rows as perun.profile.factory.Profile.all_resources does.

    nonparam-oracle.py UPSTREAM_CHECKOUT PROFILE POSTPROCESSOR 'JSON params'

prints a profile whose models are upstream's models for PROFILE (Python's
json.dumps, NaN included); the params are the postprocessor's
configuration as its click command builds it (e.g. for moving_average
{"moving_method": "ema", "decay": "com", "window_width": 2.0}), over the
click defaults.  Uids of a single point have models too, with r^2 NaN
(sklearn's r2_score of one sample), as upstream stores them.
"""
import json
import sys
import warnings

from upstream_stubs import Profile, stub, stub_convert, stub_packages

DEFAULTS = {
    "regressogram": {"bucket_number": None, "bucket_method": "doane",
                     "statistic_function": "mean"},
    "moving_average": {"moving_method": "sma", "min_periods": None, "window_width": None,
                       "center": True, "window_type": None},
}


def load_upstream(root, postprocessor):
    sys.path.insert(0, root)
    stub_packages(root, ("perun", "perun.utils", "perun.profile", "perun.postprocess",
                         "perun.postprocess.regression_analysis",
                         "perun.postprocess." + postprocessor))
    stub("perun.utils.exceptions")
    stub("click")  # moving_average's option callback only
    stub_convert("nonparam-oracle.py")
    import importlib
    methods = importlib.import_module("perun.postprocess." + postprocessor + ".methods")
    provider = importlib.import_module("perun.postprocess.regression_analysis.data_provider")
    return methods, provider


def main():
    warnings.simplefilter("ignore")  # pandas' and sklearn's, not ours
    root, path, postprocessor, params = sys.argv[1:5]
    config = dict(DEFAULTS[postprocessor], per_key="structure-unit-size", of_key="amount")
    config.update(json.loads(params))
    methods, provider = load_upstream(root, postprocessor)
    with open(path) as handle:
        data = json.load(handle)
    rows = provider.generic_profile_provider(Profile(data), **config)
    if postprocessor == "regressogram":
        models = methods.compute_regressogram(rows, config)
    else:
        models = methods.compute_moving_average(rows, config)
    out = {"header": data["header"],
           "collector_info": {"name": data["collector_info"]["name"], "params": {}},
           "postprocessors": [], "resources": {}, "resource_type_map": {}, "models": models}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
