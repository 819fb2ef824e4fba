#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerate the expected models of the regression_analysis tests (a developer tool).

The oracle is Python Perun's own code, imported from a checkout of upstream
Perun without installing it or its dependencies: the data provider
(data_provider.generic_profile_provider) and the computation
(methods.compute with regression_models, generic, specific, derived and
tools).  Only what those modules import but never call for this is
replaced: numpy (used by plotting helpers), the plotting extension, the
logger, and profile.convert, whose flatten() is needed for string uids
only.  The flattened profile is expanded into rows exactly as
perun.profile.factory.Profile.all_resources does.

    gen-expected.py [--keep-order] UPSTREAM_CHECKOUT PROFILE METHOD STEPS [MODEL,...]
prints the list of model records on stdout; regen-expected.sh runs it for
every line of the files "cases" and "cases-ordered".  The shuffle of the
randomised methods (iterative, initial_guess) is Python's, so their cases
run with --keep-order: upstream's tools.shuffle_points keeps its check of
the points but not the shuffle, and the test runs the methods without a
generator on the same order.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../../tests/helpers"))

from upstream_stubs import Profile, stub, stub_convert, stub_packages  # noqa: E402


def load_upstream(root):
    sys.path.insert(0, root)
    stub_packages(root, ("perun", "perun.utils", "perun.utils.common", "perun.profile",
                         "perun.postprocess", "perun.postprocess.regression_analysis",
                         "perun.postprocess.regression_analysis.extensions"))
    stub("numpy", typing=stub("numpy.typing"))
    stub("perun.utils.log", minor_info=lambda *args, **kwargs: None)
    stub_convert("gen-expected.py")
    stub("perun.postprocess.regression_analysis.extensions.plot_models",
         model_plot_computation=None, generic_plot_x_pts=None,
         generic_plot_y_pts=None, quad_plot_y_pts=None)
    import importlib
    # common_kit imports half of Perun: run only safe_division's source.
    source = open(root + "/perun/utils/common/common_kit.py").read()
    start = source.index("def safe_division")
    end = source.index("\ndef ", start + 1)
    tools = importlib.import_module("perun.postprocess.regression_analysis.tools")
    common_kit = stub("perun.utils.common.common_kit", tools=tools)
    exec(compile(source[start:end], "common_kit.py", "exec"), common_kit.__dict__)
    sys.modules["perun.utils.common"].common_kit = common_kit
    methods = importlib.import_module("perun.postprocess.regression_analysis.methods")
    provider = importlib.import_module("perun.postprocess.regression_analysis.data_provider")
    return methods, provider


def main():
    args = sys.argv[1:]
    keep_order = args[:1] == ["--keep-order"]
    if keep_order:
        args = args[1:]
    root, path, method, steps = args[:4]
    models = tuple(args[4].split(",")) if len(args) > 4 else ()
    methods, provider = load_upstream(root)
    if keep_order:
        tools = sys.modules["perun.postprocess.regression_analysis.tools"]

        def same_order(x_pts, y_pts):
            tools.check_points(len(x_pts), len(y_pts), tools.MIN_POINTS_COUNT)
            return list(x_pts), list(y_pts)
        tools.shuffle_points = same_order
    with open(path) as handle:
        profile = Profile(json.load(handle))
    data = provider.generic_profile_provider(profile, of_key="amount",
                                             per_key="structure-unit-size")
    result = methods.compute(data, method, models, steps=int(steps))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
