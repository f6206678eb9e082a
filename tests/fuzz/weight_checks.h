// Checks shared by the weight-header fuzz harnesses (fuzz_gguf_struct.cpp,
// fuzz_safetensors_struct.cpp): one file is read whole, incrementally in chunks the fuzzer
// chooses, and as prefixes, and the answers must keep the readers' promises. Aborts (a
// finding) on any broken promise.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/parse/json.h"
#include "core/report/result_json.h"
#include "core/base/safe_text.h"
#include "core/parse/weight_headers.h"

namespace fuzz_weights {

using namespace llmmem::core;

inline void Check(bool ok) {
  if (!ok) std::abort();
}

inline void CheckOne(const WeightHeaderResult& r) {
  if (r.status == WeightHeaderStatus::kError) Check(r.error != WeightIssue::kNone && !r.message.empty());
  // Messages and names are for people: no raw control characters, valid UTF-8.
  for (unsigned char c : r.message) Check(c >= 0x20);
  Check(ValidUtf8(r.message) == r.message);
  if (r.ok()) {
    uint64_t tensors = 0, params = 0, bytes = 0;
    for (const WeightTypeTally& t : r.by_type) {
      tensors += t.tensors;
      params += t.parameters;
      bytes += t.bytes;
    }
    if (r.parameters_known) Check(tensors == r.tensor_count && params == r.parameter_count && bytes == r.weight_bytes);
    Check(r.parameter_count < (1ull << 63) && r.weight_bytes < (1ull << 63));  // shown as signed counts
    const GgufModelInfo& g = r.gguf;
    for (int64_t v :
         {g.parameter_count, g.file_type, g.block_count, g.embedding_length, g.feed_forward_length, g.head_count,
          g.head_count_kv, g.key_length, g.context_length, g.expert_count, g.expert_used_count, g.vocab_size}) {
      Check(v >= -1);
    }
    Check(r.metadata.size() <= kWeightMetadataMaxEntries);
  }
  // The JSON of any result is valid UTF-8 and parses back.
  const std::string json = WeightHeaderToJson(r).Dump();
  Check(ValidUtf8(json) == json);
  Check(ParseJson(json).ok);
}

inline bool SameAnswer(const WeightHeaderResult& a, const WeightHeaderResult& b) {
  return a.status == b.status && a.error == b.error && a.message == b.message && a.tensor_count == b.tensor_count &&
         a.parameter_count == b.parameter_count && a.weight_bytes == b.weight_bytes &&
         a.header_bytes == b.header_bytes && a.metadata == b.metadata && a.gguf.architecture == b.gguf.architecture &&
         a.gguf.block_count == b.gguf.block_count;
}

// Reads `file` (of file_size bytes; the file may be longer than the bytes held, its tail
// then is never needed or is an error) whole, in fuzzer-chosen chunks, and as a prefix.
inline void CheckFile(const std::string& file, uint64_t file_size, FuzzedDataProvider& fdp) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(file.data());
  const WeightHeaderResult whole = ParseWeightHeader(bytes, file.size(), file_size);
  CheckOne(whole);
  Check(whole.status != WeightHeaderStatus::kNeedMoreBytes || whole.need_bytes > file.size());
  if (file_size == file.size()) Check(whole.status != WeightHeaderStatus::kNeedMoreBytes);

  // Incremental, in chunks of any size: the same answer as one read.
  WeightHeaderReader reader(file_size);
  int feeds = 0;
  while (reader.status() == WeightHeaderStatus::kNeedMoreBytes && reader.next_offset() < file.size()) {
    Check(++feeds < 1 << 22);
    const uint64_t at = reader.next_offset();
    Check(reader.next_size() > 0);
    const size_t n = fdp.ConsumeIntegralInRange<size_t>(1, 1 << 16);
    reader.Feed(bytes + at, std::min<size_t>(n, file.size() - at));
  }
  if (reader.status() != WeightHeaderStatus::kNeedMoreBytes) {
    CheckOne(reader.result());
    Check(SameAnswer(reader.result(), whole));
  } else {
    Check(whole.status == WeightHeaderStatus::kNeedMoreBytes);
  }

  // A prefix of a file that reads whole never answers an error; a request asks for more.
  const size_t cut = fdp.ConsumeIntegralInRange<size_t>(0, file.size());
  const WeightHeaderResult prefix = ParseWeightHeader(bytes, cut, file_size);
  CheckOne(prefix);
  if (whole.ok()) Check(prefix.status != WeightHeaderStatus::kError);
  if (prefix.status == WeightHeaderStatus::kNeedMoreBytes)
    Check(prefix.need_bytes > cut && prefix.need_bytes <= file_size);
}

// A value the fuzzer picks, hostile ones likely: 0, 1, small, powers of two and their
// neighbours, 2^31, 2^32, 2^63, 2^64 - 1, or any.
inline uint64_t Interesting(FuzzedDataProvider& fdp, uint64_t fair) {
  static const uint64_t kValues[] = {0,
                                     1,
                                     2,
                                     3,
                                     31,
                                     32,
                                     33,
                                     255,
                                     256,
                                     4096,
                                     65535,
                                     65536,
                                     65537,
                                     (1ull << 20),
                                     (1ull << 20) + 1,
                                     (1ull << 31),
                                     (1ull << 32),
                                     (1ull << 32) + 1,
                                     (1ull << 62),
                                     (1ull << 63) - 1,
                                     (1ull << 63),
                                     ~0ull - 1,
                                     ~0ull};
  switch (fdp.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return kValues[fdp.ConsumeIntegralInRange<size_t>(0, sizeof kValues / sizeof kValues[0] - 1)];
    case 1:
      return fdp.ConsumeIntegral<uint64_t>();
    case 2:
      return fair + fdp.ConsumeIntegralInRange<int>(-2, 2);
    default:
      return fair;
  }
}

// A name: common keys, control characters, invalid UTF-8, long, or a repeat of the last.
inline std::string Name(FuzzedDataProvider& fdp, const std::string& last, const char* const* common, size_t n_common) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return last;
    case 1:
      return std::string("\x1b]0;x\x07\r\xc2\x9b\xe2\x80\xae") + fdp.ConsumeRandomLengthString(16);
    case 2:
      return std::string(fdp.ConsumeIntegralInRange<size_t>(0, 70000), 'n');
    case 3:
      return fdp.ConsumeRandomLengthString(32);
    default:
      return common[fdp.ConsumeIntegralInRange<size_t>(0, n_common - 1)];
  }
}

}  // namespace fuzz_weights
