# SPDX-License-Identifier: GPL-3.0-or-later
"""What the oracle scripts share to run Python Perun's own modules from a
checkout of upstream Perun without installing Perun (developer tools):

    stub(name, **attrs)          an empty module in sys.modules (a package)
    stub_packages(root, names)   packages whose modules come from root, their
                                 __init__ (which imports half of Perun) not run
    stub_convert(program)        perun.profile.convert with the flatten() the
                                 data provider needs, for string uids only
    Profile(data)                the part of perun.profile.factory.Profile the
                                 data provider uses
    rows_of(data)                the rows of Profile.all_resources, flattened

The scripts outside tests/helpers put this folder on sys.path first.
"""
import sys
import types


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__path__ = []
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


def stub_packages(root, names):
    for name in names:
        stub(name).__path__ = [root + "/" + name.replace(".", "/")]


def stub_convert(program):
    def flatten(value):
        if not isinstance(value, str):
            raise SystemExit(program + ": only string uids are supported")
        return value
    return stub("perun.profile.convert", flatten=flatten)


class Profile:
    """The part of perun.profile.factory.Profile the data provider uses."""

    def __init__(self, data):
        self.data = data

    def all_resources(self):
        for name, columns in self.data["resources"].items():
            persistent = self.data["resource_type_map"][name]
            if columns:
                for values in zip(*columns.values()):
                    row = dict(zip(columns.keys(), values))
                    row.update(persistent)
                    yield row.get("snapshot", 0), row
            else:
                yield persistent.get("snapshot", 0), persistent


def rows_of(data):
    """Profile.all_resources(flatten_values=True) over the stored flattened form."""
    for _, row in Profile(data).all_resources():
        yield dict(row)
