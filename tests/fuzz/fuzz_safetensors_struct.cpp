// libFuzzer, structure-aware: the input is a recipe for a safetensors file, an 8-byte length
// and a JSON header of tensors (dtype, shape, data_offsets), __metadata__ and extra keys,
// with hostile lengths, shapes and offsets, odd names (escapes, control characters, invalid
// UTF-8, repeats) and small structural damage. Each file is read whole, incrementally and as
// a prefix (weight_checks.h). Built by tests/fuzz/build.sh.
#include <fuzzer/FuzzedDataProvider.h>

#include <string>

#include "weight_checks.h"

namespace {

using namespace fuzz_weights;

const char* const kNames[] = {
    "model.embed_tokens.weight", "lm_head.weight", "w", "__metadata__", "\\u0077", "a\\\"b", "\\ud800", "\xff\xfe"};
const char* const kDtypes[] = {"F32",     "F16", "BF16", "U8",  "I8", "BOOL", "F4", "F6_E2M3",
                               "F8_E4M3", "F64", "I64",  "C64", "Q4", "bf16", ""};
const char* const kNumbers[] = {"0",
                                "1",
                                "-1",
                                "1.5",
                                "1e3",
                                "01",
                                "18446744073709551615",
                                "18446744073709551616",
                                "4294967296",
                                "9223372036854775808",
                                "0x10",
                                "null",
                                "\"8\"",
                                "[]"};

std::string Number(FuzzedDataProvider& fdp, uint64_t fair) {
  if (fdp.ConsumeIntegralInRange<int>(0, 6) == 0) return kNumbers[fdp.ConsumeIntegralInRange<size_t>(0, 13)];
  return std::to_string(Interesting(fdp, fair));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  std::string h = "{";
  const int entries = fdp.ConsumeIntegralInRange<int>(0, 16);
  uint64_t offset = 0;
  std::string last = "w";
  for (int i = 0; i < entries; ++i) {
    if (i > 0) h += fdp.ConsumeIntegralInRange<int>(0, 40) == 0 ? "" : ",";
    last = Name(fdp, last, kNames, sizeof kNames / sizeof kNames[0]);
    h += "\"" + last + "\":";
    if (last == "__metadata__") {
      h += fdp.ConsumeBool()
               ? "null"
               : "{\"format\":\"pt\",\"x\":" + std::string(fdp.ConsumeIntegralInRange<size_t>(0, 80), '[') + "1" +
                     std::string(fdp.ConsumeIntegralInRange<size_t>(0, 80), ']') + "}";
      continue;
    }
    const std::string dtype = kDtypes[fdp.ConsumeIntegralInRange<size_t>(0, sizeof kDtypes / sizeof kDtypes[0] - 1)];
    std::string shape = "[";
    uint64_t elems = 1;
    const int dims = fdp.ConsumeIntegralInRange<int>(0, 4);
    for (int d = 0; d < dims; ++d) {
      const uint64_t v = fdp.ConsumeIntegralInRange<uint64_t>(0, 64);
      elems *= v;
      shape += (d ? "," : "") + Number(fdp, v);
    }
    shape += "]";
    const uint64_t bytes = dtype == "F64" || dtype == "I64" || dtype == "C64" ? elems * 8 : elems * 4;
    std::string t = "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + Number(fdp, offset) +
                    "," + Number(fdp, offset + bytes) + "]";
    if (fdp.ConsumeIntegralInRange<int>(0, 10) == 0) t += ",\"extra\":{\"a\":[1,{\"b\":true}]}";
    if (fdp.ConsumeIntegralInRange<int>(0, 20) == 0) t += ",\"dtype\":\"F32\"";
    t += "}";
    h += t;
    offset += bytes;
  }
  h += fdp.ConsumeIntegralInRange<int>(0, 40) == 0 ? "" : "}";
  h += std::string(fdp.ConsumeIntegralInRange<size_t>(0, 9), ' ');
  if (fdp.ConsumeIntegralInRange<int>(0, 30) == 0 && !h.empty()) {  // one byte of damage
    h[fdp.ConsumeIntegralInRange<size_t>(0, h.size() - 1)] = static_cast<char>(fdp.ConsumeIntegral<uint8_t>());
  }
  std::string file;
  const uint64_t len = fdp.ConsumeIntegralInRange<int>(0, 8) == 0 ? Interesting(fdp, h.size()) : h.size();
  for (int i = 0; i < 8; ++i) file += static_cast<char>((len >> (8 * i)) & 0xFF);
  file += h;
  file.append(static_cast<size_t>(std::min<uint64_t>(offset, 1 << 16)), '\0');
  static const uint64_t kExtra[] = {0, 0, 0, 1, 1ull << 40};
  CheckFile(file, file.size() + kExtra[fdp.ConsumeIntegralInRange<size_t>(0, 4)], fdp);
  return 0;
}
