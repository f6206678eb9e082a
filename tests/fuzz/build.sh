#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang-14, ASan and UBSan into build/fuzz/.
# Needs build/native (for the generated presets source): scripts/build native first.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/fuzz
mkdir -p "$out/obj"
CXX=${CXX:-clang++-14}
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -Isrc)
sources=(src/core/*/*.cpp build/native/generated/presets_data.cpp build/native/generated/networks_data.cpp build/native/generated/job_examples_data.cpp
         src/cli/cli_args.cpp)
objs=()
for src in "${sources[@]}"; do
  obj="$out/obj/$(echo "$src" | tr '/' '_').o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find src/core -newer "$obj" -name '*.h' -print -quit)" ]; then
    "$CXX" "${flags[@]}" -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done
for harness in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$harness" .cpp)
  if [ ! -x "$out/$name" ] || [ "$harness" -nt "$out/$name" ] || [ -n "$(find "$out/obj" -newer "$out/$name" -print -quit)" ]; then
    "$CXX" "${flags[@]/fuzzer-no-link/fuzzer}" "$harness" "${objs[@]}" -lyaml -o "$out/$name"
  fi
done
echo "fuzz harnesses in $out: $(find "$out" -maxdepth 1 -name 'fuzz_*' -type f -executable | wc -l)"
