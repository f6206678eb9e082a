// libFuzzer harness for the weight-file header readers (core/weight_headers.h). Not built by
// CMake (tests/fuzz is outside the tests/*.cpp glob); build by hand, e.g.
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
//     tests/fuzz/fuzz_weight_headers.cpp src/core/weight_headers*.cpp src/core/model/ggml_types.cpp \
//     src/core/parse/safetensors_header.cpp src/core/parse/gguf_header.cpp src/core/parse/weight_index.cpp \
//     src/core/parse/json.cpp src/core/base/diagnostics.cpp -o fuzz_weight_headers && ./fuzz_weight_headers
//     -max_len=65536
// Each input is one file; it is read whole, as a prefix of a larger file, and by every
// parser directly, and the results must keep the protocol's promises.
#include <cstdint>
#include <cstdlib>

#include "core/parse/weight_headers.h"

using namespace llmmem::core;

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckResult(const WeightHeaderResult& r, size_t size, uint64_t file_size) {
  switch (r.status) {
    case WeightHeaderStatus::kNeedMoreBytes:
      Check(r.need_bytes > size && r.need_bytes <= file_size);
      break;
    case WeightHeaderStatus::kError:
      Check(r.error != WeightIssue::kNone && !r.message.empty());
      break;
    case WeightHeaderStatus::kComplete: {
      if (!r.parameters_known) break;
      uint64_t tensors = 0, params = 0, bytes = 0;
      for (const WeightTypeTally& t : r.by_type) {
        tensors += t.tensors;
        params += t.parameters;
        bytes += t.bytes;
      }
      Check(tensors == r.tensor_count && params == r.parameter_count && bytes == r.weight_bytes);
      break;
    }
  }
  (void)WeightHeaderDiagnostics(r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint64_t sizes[] = {size, uint64_t{size} + 4096, uint64_t{1} << 40};
  for (uint64_t file_size : sizes) {
    CheckResult(ParseWeightHeader(data, size, file_size), size, file_size);
    CheckResult(ParseSafetensorsHeader(data, size, file_size), size, file_size);
    CheckResult(ParseGgufHeader(data, size, file_size), size, file_size);
    CheckResult(ParseSafetensorsIndex(data, size, file_size), size, file_size);
  }
  // A whole file read must not ask for more.
  Check(ParseWeightHeader(data, size, size).status != WeightHeaderStatus::kNeedMoreBytes);
  return 0;
}
