#!/usr/bin/env python3
"""The network presets as one JSON file the page fetches on demand (core/network/network_json.h
AddNetworkPresetBundle): {"files": [{"name": "resnet50.json", "text": "<the file>"}, ...]}.

  scripts/bundle_networks.py OUT FILE.json...
"""
import json
import os
import sys


def main():
    out, files = sys.argv[1], sys.argv[2:]
    bundle = {"files": [{"name": os.path.basename(f), "text": open(f, encoding="utf-8").read()}
                        for f in sorted(files, key=os.path.basename)]}
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(bundle, fh, ensure_ascii=False, separators=(",", ":"))
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
