#!/usr/bin/env python3
"""Writes FILE.br (Brotli, quality 11) and FILE.gz (gzip -9, no timestamp) beside each of
the site's files, reproducibly, so scripts/serve.py (or any static server told to) sends
them with Content-Encoding: br to browsers that take it (all current ones, also over
http://localhost) and gzip to the rest. A twin no smaller than its file is not written;
twins newer than their file are kept (Brotli 11 takes seconds on the wasm).

Brotli comes from Debian's python3-brotli (scripts/bootstrap installs it): run with
/usr/bin/python3.
usage: precompress.py DIR
"""
import gzip
import os
import sys

try:
    import brotli
except ImportError:
    sys.exit("precompress.py: the brotli module is missing: apt-get install python3-brotli "
             "(scripts/bootstrap does), and run this with /usr/bin/python3")

SUFFIXES = (".html", ".js", ".css", ".wasm", ".ttf", ".json", ".svg", ".txt")
CODECS = ((".br", lambda d: brotli.compress(d, quality=11)),
          (".gz", lambda d: gzip.compress(d, compresslevel=9, mtime=0)))


def write_twin(path: str, suffix: str, pack) -> None:
    out = path + suffix
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(path):
        return
    data = open(path, "rb").read()
    packed = pack(data)
    if len(packed) >= len(data):
        if os.path.exists(out):
            os.remove(out)
        return
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(packed)
    os.replace(tmp, out)


def main() -> int:
    root = sys.argv[1]
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.endswith(SUFFIXES) and os.path.isfile(path):
            for suffix, pack in CODECS:
                write_twin(path, suffix, pack)
    return 0


if __name__ == "__main__":
    sys.exit(main())
