// Weight-file headers (core/weight_headers.h): the entry points that are not one format's
// reader. Enum names, sniffing the format from the first bytes and dispatching to
// safetensors_header.cpp, gguf_header.cpp or weight_index.cpp, summing shards into one
// result, and the result's notes as core diagnostics. Standard library only (plus
// core/weight_headers_internal.h). The type tables are in ggml_types.cpp.
#include "core/weight_headers.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

// -----------------------------------------------------------------------------------------
// [SECTION] Names
// -----------------------------------------------------------------------------------------

const char* WeightFormatName(WeightFormat f) {
  switch (f) {
    case WeightFormat::kUnknown: return "unknown";
    case WeightFormat::kSafetensors: return "safetensors";
    case WeightFormat::kSafetensorsIndex: return "safetensors_index";
    case WeightFormat::kGguf: return "gguf";
  }
  return "?";
}

const char* WeightIssueName(WeightIssue id) {
  switch (id) {
#define LLMMEM_WEIGHT_ISSUE_NAME(e, name, text) \
  case WeightIssue::e: return name;
    LLMMEM_WEIGHT_ISSUES(LLMMEM_WEIGHT_ISSUE_NAME)
#undef LLMMEM_WEIGHT_ISSUE_NAME
  }
  return "?";
}


// -----------------------------------------------------------------------------------------
// [SECTION] Sniffing and dispatch
// -----------------------------------------------------------------------------------------

WeightFormat SniffWeightFormat(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0) return WeightFormat::kGguf;
  if (size >= 9) {
    const uint64_t n = ReadLe(data, 8);
    if (n >= 2 && n <= kSafetensorsMaxHeaderBytes && data[8] == '{') return WeightFormat::kSafetensors;
  }
  size_t i = 0;
  if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;  // UTF-8 BOM
  while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) ++i;
  if (i < size && data[i] == '{') return WeightFormat::kSafetensorsIndex;
  return WeightFormat::kUnknown;
}

WeightHeaderResult ParseWeightHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  file_size = std::max<uint64_t>(file_size, size);
  if (file_size == 0) return Error(WeightFormat::kUnknown, WeightIssue::kTruncated, "the file is empty");
  const uint64_t probe = std::min<uint64_t>(9, file_size);
  if (size < probe) {
    WeightHeaderResult r;
    r.status = WeightHeaderStatus::kNeedMoreBytes;
    r.need_bytes = std::min(kWeightHeaderFirstRead, file_size);
    return r;
  }
  switch (SniffWeightFormat(data, size)) {
    case WeightFormat::kGguf: return ParseGgufHeader(data, size, file_size);
    case WeightFormat::kSafetensors: return ParseSafetensorsHeader(data, size, file_size);
    case WeightFormat::kSafetensorsIndex: return ParseSafetensorsIndex(data, size, file_size);
    case WeightFormat::kUnknown: break;
  }
  return Error(WeightFormat::kUnknown, WeightIssue::kBadMagic,
               "not a weight file this reader knows: a .safetensors file starts with an 8-byte length and '{', a "
               ".gguf file with \"GGUF\", a model.safetensors.index.json with '{'");
}

// -----------------------------------------------------------------------------------------
// [SECTION] Combining shards
// -----------------------------------------------------------------------------------------

WeightHeaderResult CombineWeightHeaders(const std::vector<WeightHeaderResult>& shards) {
  WeightHeaderResult out;
  out.status = WeightHeaderStatus::kComplete;
  Tally tally;
  const WeightHeaderResult* index = nullptr;
  bool any_shard = false, first_shard = true;
  for (size_t i = 0; i < shards.size(); ++i) {
    const WeightHeaderResult& s = shards[i];
    if (!s.ok()) {
      return Error(s.format, s.error == WeightIssue::kNone ? WeightIssue::kTruncated : s.error,
                   "file #" + Num(i) + " was not read completely" + (s.message.empty() ? "" : ": " + s.message));
    }
    out.notes.insert(out.notes.end(), s.notes.begin(), s.notes.end());
    if (s.format == WeightFormat::kSafetensorsIndex) {
      if (!index) index = &s;
      continue;
    }
    any_shard = true;
    for (const WeightTypeTally& t : s.by_type) {
      if (!tally.Merge(t)) return Error(s.format, WeightIssue::kBadSize, "the shards' total size overflows 64 bits");
    }
    if (!AddOk(out.header_bytes, s.header_bytes, out.header_bytes) ||
        !AddOk(out.data_bytes, s.data_bytes, out.data_bytes)) {
      return Error(s.format, WeightIssue::kBadSize, "the shards' total size overflows 64 bits");
    }
    if (first_shard) {
      out.format = s.format;
      out.metadata = s.metadata;
      out.gguf = s.gguf;
      first_shard = false;
    }
  }
  tally.Fill(out);
  out.parameters_known = any_shard;
  if (index) {
    out.index = index->index;
    if (!any_shard) {
      out.format = WeightFormat::kSafetensorsIndex;
      out.weight_bytes = index->weight_bytes;
      out.tensor_count = index->tensor_count;
    } else if (index->index.has_total_size && index->index.total_size != out.weight_bytes) {
      out.notes.push_back({WeightIssue::kNeedsShardHeaders, Severity::kWarning,
                           "the shards hold " + Num(out.weight_bytes) + " bytes of tensors but the index says " +
                               Num(index->index.total_size) + "; are all " + Num(index->index.shard_files.size()) +
                               " shard files there?"});
    }
  }
  return out;
}

// -----------------------------------------------------------------------------------------
// [SECTION] Diagnostics
// -----------------------------------------------------------------------------------------

Diagnostics WeightHeaderDiagnostics(const WeightHeaderResult& r) {
  auto map_id = [](WeightIssue id) {
    switch (id) {
      case WeightIssue::kTruncated:
      case WeightIssue::kMalformed: return DiagId::kParse;
      case WeightIssue::kBadMagic:
      case WeightIssue::kUnsupportedVersion: return DiagId::kUnsupported;
      case WeightIssue::kHeaderTooLarge:
      case WeightIssue::kBadSize: return DiagId::kOutOfRange;
      case WeightIssue::kUnknownDtype: return DiagId::kUnknownValue;
      case WeightIssue::kMissingField:
      case WeightIssue::kNeedsShardHeaders: return DiagId::kMissingField;
      case WeightIssue::kMetadataCapped: return DiagId::kIgnoredSetting;
      case WeightIssue::kNone:
      case WeightIssue::kOffsetMismatch:
      case WeightIssue::kBlockMisaligned:
      case WeightIssue::kDuplicateName:
      case WeightIssue::kTrailingData: break;
    }
    return DiagId::kInconsistent;
  };
  Diagnostics d;
  if (r.status == WeightHeaderStatus::kError) {
    d.push_back({map_id(r.error), Severity::kError, "weights_file", r.message});
  }
  for (const WeightNote& n : r.notes) d.push_back({map_id(n.id), n.severity, "weights_file", n.message});
  return d;
}

}  // namespace llmmem::core
