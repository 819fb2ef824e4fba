#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerate the expected models of the kernel_regression tests (a developer tool).

The oracle is Python Perun's own code, imported from a checkout of upstream
Perun without installing Perun: the data provider
(regression_analysis.data_provider.generic_profile_provider) and
kernel_regression.methods.compute_kernel_regression, which call statsmodels'
KernelReg, scikit-learn and the pyqt_fit port (perun/thirdparty) exactly as
Perun does.  Needs python3-numpy, python3-scipy, python3-statsmodels and
python3-sklearn (Debian packages; never needed to build or test).

    gen-expected.py UPSTREAM_CHECKOUT PROFILE MODE [OPTION...]
OPTIONs are the plugin's command-line options (the same words the test
passes to perun postprocessby); they are turned into the configuration
dictionary Perun's click commands build for the mode.  Prints the list of
model records on stdout.

One deliberate difference is simulated: upstream's method-selection reads
the bandwidth rule from a key "method_name" that its command never sets
(so it always uses Scott's rule); the C plugin honours --bandwidth-method,
so the oracle is given "method_name" too.
"""
import json
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../../tests/helpers"))

from upstream_stubs import Profile, stub, stub_convert, stub_packages  # noqa: E402

# (long, short, key, type); type: str, int, float, pair, True/False (flag value)
OPTIONS = [
    ("per-key", "per", "per_key", str), ("of-key", "of", "of_key", str),
    ("reg-type", "rt", "reg_type", str),
    ("bandwidth-method", "bw", "bandwidth_method", str),
    ("bandwidth-method", "bm", "bandwidth_method", str),
    ("efficient", None, "efficient", True), ("uniformly", None, "efficient", False),
    ("randomize", None, "randomize", True), ("no-randomize", None, "randomize", False),
    ("n-sub-samples", "nsub", "n_sub_samples", int),
    ("n-re-samples", "nres", "n_re_samples", int),
    ("return-median", None, "return_median", True),
    ("return-mean", None, "return_median", False),
    ("bandwidth-value", "bv", "bandwidth_value", float),
    ("kernel-type", "kt", "kernel_type", str),
    ("smoothing-method", "sm", "smoothing_method", str),
    ("polynomial-order", "q", "polynomial_order", int),
    ("gamma-range", "gr", "gamma_range", "pair"),
    ("gamma-step", "gs", "gamma_step", float),
]

DEFAULTS = {
    "estimator-settings": {"reg_type": "ll", "bandwidth_method": "cv_ls", "efficient": False,
                           "randomize": False, "n_sub_samples": 50, "n_re_samples": 25,
                           "return_median": False},
    "user-selection": {"reg_type": "ll"},
    "method-selection": {"reg_type": "ll", "bandwidth_method": "scott"},
    "kernel-smoothing": {"kernel_type": "epanechnikov", "smoothing_method": "spatial-average",
                         "bandwidth_method": "scott", "bandwidth_value": None,
                         "polynomial_order": 3},
    "kernel-ridge": {"gamma_range": (1e-5, 1e-4), "gamma_step": 1e-5},
}


def parse(mode, words):
    config = dict(DEFAULTS[mode])
    config.update({"per_key": "structure-unit-size", "of_key": "amount"})
    i = 0
    while i < len(words):
        word = words[i].lstrip("-")
        for long, short, key, kind in OPTIONS:
            if word in (long, short):
                break
        else:
            raise SystemExit("gen-expected.py: unknown option " + words[i])
        if kind in (True, False):
            config[key] = kind
        elif kind == "pair":
            config[key] = (float(words[i + 1]), float(words[i + 2]))
            i += 2
        else:
            config[key] = kind(words[i + 1])
            i += 1
        i += 1
    config["kernel_mode"] = mode
    if mode == "method-selection":
        config["method_name"] = config["bandwidth_method"]
    return config


def load_upstream(root):
    sys.path.insert(0, root)
    stub_packages(root, ("perun", "perun.utils", "perun.profile", "perun.postprocess",
                         "perun.postprocess.regression_analysis",
                         "perun.postprocess.kernel_regression", "perun.thirdparty",
                         "perun.thirdparty.pyqt_fit_port"))

    class DictionaryKeysValidationFailed(Exception):
        pass
    stub("perun.utils.exceptions", DictionaryKeysValidationFailed=DictionaryKeysValidationFailed)
    # click is imported for the option callbacks only.
    stub("click", exceptions=stub("click.exceptions", BadOptionUsage=Exception))
    stub_convert("gen-expected.py")
    import importlib
    # The package's __init__ re-exports its modules: run it for real.
    port = root + "/perun/thirdparty/pyqt_fit_port/__init__.py"
    pyqt = sys.modules["perun.thirdparty.pyqt_fit_port"]
    exec(compile(open(port).read(), port, "exec"), pyqt.__dict__)
    methods = importlib.import_module("perun.postprocess.kernel_regression.methods")
    provider = importlib.import_module("perun.postprocess.regression_analysis.data_provider")
    return methods, provider


def main():
    root, path, mode = sys.argv[1:4]
    config = parse(mode, sys.argv[4:])
    warnings.filterwarnings("ignore")
    methods, provider = load_upstream(root)
    with open(path) as handle:
        profile = Profile(json.load(handle))
    data = provider.generic_profile_provider(profile, **config)
    result = methods.compute_kernel_regression(data, config)
    print(json.dumps(result, indent=1, default=float))


if __name__ == "__main__":
    main()
