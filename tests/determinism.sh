#!/usr/bin/env bash
# Native and WebAssembly builds of the core give bit-identical results: the same digest of
# thousands of random estimates (tests/test_properties.cpp, "Determinism digest").
set -uo pipefail
cd "$(dirname "$0")/.."
native=$(build/native/llmmem_tests -tc='Determinism*' | grep 'determinism digest')
wasm=$(node --no-experimental-fetch build/wasm/llmmem_tests.js -tc='Determinism*' | grep 'determinism digest')
echo "native: $native"
echo "wasm:   $wasm"
[ -n "$native" ] && [ "$native" = "$wasm" ]
