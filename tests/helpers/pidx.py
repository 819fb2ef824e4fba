#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An independent reader and writer of Perun's store, written from its spec
(perun-inventory.md section 2), used by the tests to check what perun writes
and to make stores as Python Perun makes them.

  pidx.py read <index>                 print header and entries
  pidx.py verify <.perun> <minor>      check every object of a minor index
  pidx.py write-v1 <.perun> <minor> <profile>...
                                       store profiles, with a version-1 index
"""
import hashlib, json, os, struct, sys, time, zlib


def read_index(path):
    data = open(path, "rb").read()
    assert data[:4] == b"pidx", "bad magic"
    version, count = struct.unpack("<ii", data[4:12])
    pos, entries = 12, []
    while pos + 24 < len(data) and len(entries) < count:
        (mtime,) = struct.unpack("<I", data[pos:pos + 4])
        sha = data[pos + 4:pos + 24].hex()
        end = data.index(b"\0", pos + 24)
        name = data[pos + 24:end].decode()
        pos = end + 1
        extra = []
        if version >= 2:
            for _ in range(5):
                (n,) = struct.unpack("<I", data[pos:pos + 4])
                extra.append(data[pos + 4:pos + 4 + n].decode())
                pos += 4 + n
        entries.append((mtime, sha, name, extra))
    assert len(entries) == count, "count mismatch"
    return version, entries


def object_path(perun_dir, sha):
    return os.path.join(perun_dir, "objects", sha[:2], sha[2:])


def main():
    cmd = sys.argv[1]
    if cmd == "read":
        version, entries = read_index(sys.argv[2])
        print(f"version {version} entries {len(entries)}")
        for mtime, sha, name, extra in entries:
            print(name, " ".join(extra))
    elif cmd == "verify":
        perun_dir, minor = sys.argv[2], sys.argv[3]
        _, entries = read_index(object_path(perun_dir, minor))
        for _, sha, name, extra in entries:
            payload = zlib.decompress(open(object_path(perun_dir, sha), "rb").read())
            assert hashlib.sha1(payload).hexdigest() == sha, f"{name}: sha mismatch"
            header, body = payload.decode().split("\0", 1)
            prefix, ptype, size = header.split(" ")
            assert prefix == "profile" and ptype in ("time", "mixed", "memory"), header
            assert len(body) == int(size), f"{name}: length mismatch"
            profile = json.loads(body)
            assert "origin" not in profile, f"{name}: origin was stored"
            assert profile["header"]["type"] == ptype == extra[0]
        print(f"ok {len(entries)} objects")
    elif cmd == "write-v1":
        perun_dir, minor, files = sys.argv[2], sys.argv[3], sys.argv[4:]
        entries = []
        for f in files:
            profile = json.load(open(f))
            profile.pop("origin", None)
            body = json.dumps(profile)
            payload = f"profile {profile['header']['type']} {len(body)}\0{body}".encode()
            sha = hashlib.sha1(payload).hexdigest()
            os.makedirs(os.path.dirname(object_path(perun_dir, sha)), exist_ok=True)
            open(object_path(perun_dir, sha), "wb").write(zlib.compress(payload))
            entries.append((os.path.basename(f), round(os.stat(f).st_mtime), sha))
        entries.sort()
        os.makedirs(os.path.dirname(object_path(perun_dir, minor)), exist_ok=True)
        with open(object_path(perun_dir, minor), "wb") as out:
            out.write(b"pidx" + struct.pack("i", 1) + struct.pack("i", len(entries)))
            for name, mtime, sha in entries:
                out.write(struct.pack("<I", mtime) + bytes.fromhex(sha) + name.encode() + b"\0")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
