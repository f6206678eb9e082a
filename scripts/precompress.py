#!/usr/bin/env python3
"""Writes FILE.gz beside each of the site's files (gzip -9, no timestamp: reproducible),
so scripts/serve.py (or any static server told to) sends them with Content-Encoding: gzip.
A .gz no smaller than its file is not written.

usage: precompress.py DIR
"""
import gzip
import os
import sys

SUFFIXES = (".html", ".js", ".css", ".wasm", ".ttf", ".json", ".svg", ".txt")


def main() -> int:
    root = sys.argv[1]
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if not name.endswith(SUFFIXES) or not os.path.isfile(path):
            continue
        data = open(path, "rb").read()
        packed = gzip.compress(data, compresslevel=9, mtime=0)
        out = path + ".gz"
        if len(packed) >= len(data):
            if os.path.exists(out):
                os.remove(out)
            continue
        tmp = out + ".tmp"
        with open(tmp, "wb") as f:
            f.write(packed)
        os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
