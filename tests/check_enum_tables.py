#!/usr/bin/env python3
"""Every enum table in src/core is in the round-trip test (issue 29: it missed 7 of 22).

Finds each `EnumTable<...> TableOf(E)` declared under src/core and fails unless
tests/test_enum_table.cpp calls `RoundTrips<E>()`: a new table is tested without anyone
remembering to list it."""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DECL = re.compile(r"EnumTable<[^>]*>\s+TableOf\((\w+)\b")


def main():
    tables = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src", "core")):
        for name in files:
            if name.endswith((".h", ".cpp")):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    tables.update(m.group(1) for m in DECL.finditer(f.read()))
    tables.discard("E")  # the generic declaration in enum_table.h's comment and templates
    with open(os.path.join(ROOT, "tests", "test_enum_table.cpp"), encoding="utf-8") as f:
        tested = set(re.findall(r"RoundTrips<(\w+)>\(\)", f.read()))
    missing = sorted(tables - tested)
    for t in missing:
        print(f"enum table {t} (src/core) is not in tests/test_enum_table.cpp's RoundTrips")
    if missing or not tables:
        return 1
    print(f"check_enum_tables: all {len(tables)} enum tables round-trip in tests/test_enum_table.cpp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
