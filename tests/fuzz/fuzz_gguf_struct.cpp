// libFuzzer, structure-aware: the input is a recipe for a GGUF file with valid framing and
// hostile counts, lengths, value types, dimensions, ggml types and offsets (the fuzzer's
// bytes choose each field, hostile values likely). Each file is read whole, incrementally
// and as a prefix (weight_checks.h). Built by tests/fuzz/build.sh.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstring>
#include <string>
#include <vector>

#include "weight_checks.h"

namespace {

using namespace fuzz_weights;

struct Out {
  std::string b;
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  void Str(FuzzedDataProvider& fdp, const std::string& s) {
    Le(Interesting(fdp, s.size()), 8);
    b += s;
  }
};

const char* const kKeys[] = {"general.architecture",       "general.name",
                             "general.alignment",          "general.parameter_count",
                             "general.file_type",          "llama.block_count",
                             "llama.embedding_length",     "llama.feed_forward_length",
                             "llama.attention.head_count", "llama.attention.head_count_kv",
                             "llama.context_length",       "llama.expert_count",
                             "llama.vocab_size",           "tokenizer.ggml.tokens",
                             "tokenizer.ggml.scores",      "x"};
const char* const kTensorNames[] = {"token_embd.weight", "blk.0.attn_q.weight", "output.weight", "w"};
const uint32_t kTypes[] = {0,  1,  2,  3,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                           21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 34, 35, 36, 39, 4,  5,  99, 0xFFFFFFFF};
const uint64_t kFixed[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

void Value(FuzzedDataProvider& fdp, Out& o, uint32_t type, int depth) {
  if (type < 13 && kFixed[type] > 0) {
    o.Le(type == 4 && fdp.ConsumeBool() ? 32 : Interesting(fdp, fdp.ConsumeIntegral<uint64_t>()),
         static_cast<int>(kFixed[type]));
    return;
  }
  if (type == 8) {
    o.Str(fdp, fdp.ConsumeBool() ? std::string("llama") : fdp.ConsumeRandomLengthString(5000));
    return;
  }
  if (type == 9) {
    const uint32_t elem = fdp.ConsumeBool() ? 8 : fdp.ConsumeIntegralInRange<uint32_t>(0, 14);
    const uint64_t real = fdp.ConsumeIntegralInRange<uint64_t>(0, 64);
    o.Le(elem, 4);
    o.Le(Interesting(fdp, real), 8);
    for (uint64_t i = 0; i < real && depth < 2; ++i) Value(fdp, o, elem, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Out o;
  o.b = fdp.ConsumeIntegralInRange<int>(0, 30) == 0 ? "GGUX" : "GGUF";
  static const uint32_t kVersions[] = {3, 3, 3, 2, 1, 4, 0x03000000};
  o.Le(kVersions[fdp.ConsumeIntegralInRange<size_t>(0, 6)], 4);
  const uint64_t n_tensors = fdp.ConsumeIntegralInRange<uint64_t>(0, 12);
  const uint64_t n_kv = fdp.ConsumeIntegralInRange<uint64_t>(0, 12);
  o.Le(Interesting(fdp, n_tensors), 8);
  o.Le(Interesting(fdp, n_kv), 8);
  std::string last;
  for (uint64_t i = 0; i < n_kv; ++i) {
    last = Name(fdp, last, kKeys, sizeof kKeys / sizeof kKeys[0]);
    o.Str(fdp, last);
    const uint32_t type = fdp.ConsumeIntegralInRange<uint32_t>(0, 14);
    o.Le(type, 4);
    Value(fdp, o, type, 0);
  }
  uint64_t offset = 0, align = 32;
  for (uint64_t i = 0; i < n_tensors; ++i) {
    last = Name(fdp, last, kTensorNames, sizeof kTensorNames / sizeof kTensorNames[0]);
    o.Str(fdp, last);
    const uint32_t n_dims = fdp.ConsumeIntegralInRange<uint32_t>(0, 5);
    o.Le(n_dims, 4);
    uint64_t elems = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t v = Interesting(fdp, fdp.ConsumeBool() ? 256 : 32);
      o.Le(v, 8);
      elems *= v;
    }
    o.Le(kTypes[fdp.ConsumeIntegralInRange<size_t>(0, sizeof kTypes / sizeof kTypes[0] - 1)], 4);
    o.Le(Interesting(fdp, offset), 8);
    offset += (elems * 4 + align - 1) / align * align;  // a guess at the packed offset (F32)
  }
  // The data section: none, some, or a fair amount; the declared file size may differ.
  const size_t data_bytes = fdp.ConsumeIntegralInRange<size_t>(0, 1 << 14);
  o.b.append(data_bytes, '\0');
  static const uint64_t kSizes[] = {0, 1, 1ull << 40, ~0ull >> 1};
  const uint64_t extra = kSizes[fdp.ConsumeIntegralInRange<size_t>(0, 3)];
  CheckFile(o.b, o.b.size() + extra, fdp);
  return 0;
}
