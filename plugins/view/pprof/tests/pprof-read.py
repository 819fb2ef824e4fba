#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a gzip-compressed pprof profile without protobuf libraries.

    pprof-read.py FILE [--divide N]

A minimal protobuf reader (varints, length-delimited fields, packed and
unpacked repeated integers) for the fields of pprof's profile.proto that
matter here.  Prints the sample types ("type <type> <unit>"), the comments
("comment <text>") and then every sample as a folded stack, root first,
frames rebuilt as Perun writes them ("function()~file~line" when the
function has a file, else its name), value divided by N.  Checks the
references (string indices, location and function ids) on the way.
"""
import argparse
import gzip
import sys


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def fields(buf):
    """(field number, wire type, value) of a message; value is an int or bytes."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value = buf[i:i + n]
            i += n
        elif wire == 1:
            value = int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wire == 5:
            value = int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise ValueError(f"wire type {wire}")
        yield num, wire, value


def ints(wire, value):
    """A repeated integer field: one varint, or a packed run of them."""
    if wire == 0:
        return [value]
    out, i = [], 0
    while i < len(value):
        v, i = varint(value, i)
        out.append(v)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def message(buf, spec):
    """Decode buf as {name: value}; spec maps number -> (name, kind)."""
    out = {name: [] if kind.startswith("rep") else 0 for name, kind in spec.values()}
    for num, wire, value in fields(buf):
        if num not in spec:
            continue
        name, kind = spec[num]
        if kind == "int":
            out[name] = signed(value)
        elif kind == "rep_int":
            out[name] += [signed(v) for v in ints(wire, value)]
        elif kind == "rep_bytes":
            out[name].append(bytes(value))
        elif kind == "bytes":
            out[name] = bytes(value)
    return out


PROFILE = {1: ("sample_type", "rep_bytes"), 2: ("sample", "rep_bytes"), 4: ("location", "rep_bytes"),
           5: ("function", "rep_bytes"), 6: ("string_table", "rep_bytes"), 13: ("comment", "rep_int")}
VALUE_TYPE = {1: ("type", "int"), 2: ("unit", "int")}
SAMPLE = {1: ("location_id", "rep_int"), 2: ("value", "rep_int")}
LOCATION = {1: ("id", "int"), 4: ("line", "rep_bytes")}
LINE = {1: ("function_id", "int"), 2: ("line", "int")}
FUNCTION = {1: ("id", "int"), 2: ("name", "int"), 4: ("filename", "int")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--divide", type=float, default=1)
    args = ap.parse_args()
    with open(args.file, "rb") as f:
        raw = f.read()
    if raw[:2] != b"\x1f\x8b":
        sys.exit("pprof-read: not gzip-compressed")
    prof = message(gzip.decompress(raw), PROFILE)
    strings = [s.decode() for s in prof["string_table"]]
    if not strings or strings[0] != "":
        sys.exit("pprof-read: string_table[0] is not empty")

    def string(i):
        if not 0 <= i < len(strings):
            sys.exit(f"pprof-read: string index {i} out of range")
        return strings[i]

    for st in prof["sample_type"]:
        vt = message(st, VALUE_TYPE)
        print("type", string(vt["type"]), string(vt["unit"]))
    for c in prof["comment"]:
        print("comment", string(c))
    functions = {}
    for fb in prof["function"]:
        fn = message(fb, FUNCTION)
        functions[fn["id"]] = (string(fn["name"]), string(fn["filename"]))
    locations = {}
    for lb in prof["location"]:
        loc = message(lb, LOCATION)
        lines = [message(x, LINE) for x in loc["line"]]
        if len(lines) != 1 or lines[0]["function_id"] not in functions:
            sys.exit(f"pprof-read: location {loc['id']}: bad lines {lines}")
        name, filename = functions[lines[0]["function_id"]]
        locations[loc["id"]] = f"{name}()~{filename}~{lines[0]['line']}" if filename else name
    for sb in prof["sample"]:
        sample = message(sb, SAMPLE)
        if len(sample["value"]) != len(prof["sample_type"]):
            sys.exit("pprof-read: a sample's values do not match the sample types")
        try:
            frames = [locations[i] for i in reversed(sample["location_id"])]
        except KeyError as e:
            sys.exit(f"pprof-read: unknown location id {e}")
        print(";".join(frames), sample["value"][0] / args.divide)
    return 0


if __name__ == "__main__":
    sys.exit(main())
