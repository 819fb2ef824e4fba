#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerate the expected outputs of the tableof tests (a developer tool).

The expected files are produced by an independent oracle: Python Perun's own
flattening (perun.profile.query, imported from a checkout of upstream Perun)
and the real tabulate library (Debian: python3-tabulate), arranged the way
perun/view/tableof/run.py and perun/profile/convert.py arrange them, minus
pandas.  Where this project deliberately differs from upstream the oracle
follows this project (see README.md): a stable sort, numbers that match
--filter-by numerically, filters grouped by key.

    gen-expected.py UPSTREAM_CHECKOUT PROFILE [-h K]... [-s K] [-f K V]... \
        [--format F] resources|models
prints the table on stdout; regen-expected.sh runs it for every line of
the file "cases".
"""
import csv
import json
import math
import sys
import types

import tabulate


def load_upstream(root):
    """Import perun.profile.query without installing Perun or its deps."""
    sys.path.insert(0, root)
    pkg = types.ModuleType("perun")
    pkg.__path__ = [root + "/perun"]
    sys.modules["perun"] = pkg
    sys.modules["click"] = types.ModuleType("click")
    for name in ("perun.postprocess", "perun.postprocess.regression_analysis"):
        mod = types.ModuleType(name)
        mod.__path__ = []
        sys.modules[name] = mod
    tools = types.ModuleType("perun.postprocess.regression_analysis.tools")
    sys.modules[tools.__name__] = tools
    sys.modules["perun.postprocess.regression_analysis"].tools = tools
    from perun.profile import query
    return query


def resource_rows(query, profile):
    """convert.resources_to_pandas_dataframe without pandas."""
    rows = []
    if isinstance(profile.get("resources"), dict):
        for type_id, columns in profile["resources"].items():
            persistent = dict(query.all_items_of(profile["resource_type_map"][type_id]))
            keys = list(columns.keys())
            for values in zip(*columns.values()):
                row = dict(zip(keys, values))
                row.update(persistent)
                row["snapshots"] = row.get("snapshot", 0)
                rows.append(row)
            if not columns:
                row = dict(persistent)
                row["snapshots"] = row.get("snapshot", 0)
                rows.append(row)
    return rows


def model_rows(query, profile):
    return [dict(query.all_items_of(m)) for m in profile.get("models", [])]


def main(argv):
    query = load_upstream(argv[1])
    with open(argv[2]) as f:
        profile = json.load(f)
    headers, sort_by, filters, fmt, what = [], None, [], "simple", None
    words, i = argv[3:], 0
    while i < len(words):
        if words[i] in ("--headers", "-h"):
            headers.append(words[i + 1])
            i += 2
        elif words[i] in ("--sort-by", "-s"):
            sort_by = words[i + 1]
            i += 2
        elif words[i] in ("--filter-by", "-f"):
            filters.append((words[i + 1], words[i + 2]))
            i += 3
        elif words[i] == "--format":
            fmt = words[i + 1]
            i += 2
        elif words[i] in ("resources", "models"):
            what = words[i]
            i += 1
        else:
            raise SystemExit("unknown argument " + words[i])
    rows = resource_rows(query, profile) if what == "resources" else model_rows(query, profile)
    fields = {"snapshots"} if what == "resources" else set()
    for row in rows:
        fields.update(row.keys())
    headers = headers or sorted(fields)
    nan = float("nan")
    # pandas turns a numeric column with missing values into floats.
    table = [{k: row.get(k, nan) for k in fields} for row in rows]
    # csv and json show the values themselves: no upcast, no rounding.
    raw = fmt in ("csv", "json")
    for key in fields if not raw else ():
        values = [r[key] for r in table]
        if any(isinstance(v, float) and math.isnan(v) for v in values) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
        ):
            for r in table:
                r[key] = float(r[key])
    if sort_by:
        def number(v):
            return isinstance(v, (int, float)) and not isinstance(v, bool)
        present = [r[sort_by] for r in table if not (isinstance(r[sort_by], float) and math.isnan(r[sort_by]))]
        numeric = all(number(v) for v in present)
        def key(r):
            v = r[sort_by]
            if isinstance(v, float) and math.isnan(v):
                return (1, 0)
            return (0, v if numeric else str(v))
        table.sort(key=key)
    if filters:
        groups = {}
        for k, v in filters:
            groups.setdefault(k, []).append(v)
        def matches(value, wanted):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                try:
                    return any(float(w) == value for w in wanted)
                except ValueError:
                    return False
            return str(value) in wanted
        table = [r for r in table if all(matches(r[k], ws) for k, ws in groups.items())]
    if fmt == "csv":
        print_csv(table, headers)
    elif fmt == "json":
        print_json(table, headers, what)
    else:
        fmt = "pipe" if fmt == "markdown" else fmt
        out = tabulate.tabulate([[r[h] for h in headers] for r in table], headers=headers, tablefmt=fmt)
        if out:
            print(out)


def missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def print_csv(table, headers):
    writer = csv.writer(sys.stdout, lineterminator="\n")
    if headers:
        writer.writerow(headers)
    for r in table:
        writer.writerow(["" if missing(r[h]) else r[h] for h in headers])


def print_json(table, headers, what):
    def value(v):
        return "null" if missing(v) or (isinstance(v, float) and math.isinf(v)) else json.dumps(v)
    out = '{\n  "version": 1,\n  "table": %s,\n  "headers": [%s],\n  "rows": [' % (
        json.dumps(what), ", ".join(json.dumps(h) for h in headers))
    out += ",".join("\n    {" + ", ".join("%s: %s" % (json.dumps(h), value(r[h])) for h in headers) + "}"
                    for r in table)
    out += "\n  ]\n}" if table else "]\n}"
    print(out)


if __name__ == "__main__":
    main(sys.argv)
