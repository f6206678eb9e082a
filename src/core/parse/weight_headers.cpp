// Weight-file headers (core/weight_headers.h): the entry points that are not one format's
// reader. Enum names, sniffing the format from the first bytes and dispatching to
// safetensors_header.cpp, gguf_header.cpp or weight_index.cpp, summing shards into one
// result, and the result's notes as core diagnostics. Standard library only (plus
// core/weight_headers_internal.h). The type tables are in ggml_types.cpp.
#include "core/parse/weight_headers.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/parse/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

// -----------------------------------------------------------------------------------------
// [SECTION] Names
// -----------------------------------------------------------------------------------------

const char* WeightFormatName(WeightFormat f) {
  switch (f) {
    case WeightFormat::kUnknown:
      return "unknown";
    case WeightFormat::kSafetensors:
      return "safetensors";
    case WeightFormat::kSafetensorsIndex:
      return "safetensors_index";
    case WeightFormat::kGguf:
      return "gguf";
  }
  return "?";
}

const char* WeightIssueName(WeightIssue id) {
  switch (id) {
#define LLMMEM_WEIGHT_ISSUE_NAME(e, name, text) \
  case WeightIssue::e:                          \
    return name;
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
  // An 8-byte length then '{': safetensors, whatever the length says (its reader judges it).
  if (size >= 9 && ReadLe(data, 8) >= 2 && data[8] == '{') return WeightFormat::kSafetensors;
  size_t i = 0;
  if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;  // UTF-8 BOM
  while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) ++i;
  if (i < size && data[i] == '{') return WeightFormat::kSafetensorsIndex;
  return WeightFormat::kUnknown;
}

namespace {

// model.safetensors.index.json: JSON, read whole (at most kWeightIndexMaxBytes).
class IndexParser : public IncrementalParser {
 public:
  explicit IndexParser(uint64_t file_size) : file_size_(file_size) { result.format = WeightFormat::kSafetensorsIndex; }
  uint64_t keep_from() const override { return 0; }
  uint64_t resume_at() const override { return 0; }
  uint64_t need_end() const override { return file_size_; }
  uint64_t read_limit() const override { return file_size_; }
  uint64_t known_end() const override { return file_size_; }
  WeightHeaderStatus Parse(const Window& w) override {
    if (file_size_ <= kWeightIndexMaxBytes && w.end() < file_size_) return WeightHeaderStatus::kNeedMoreBytes;
    result = ParseSafetensorsIndex(w.at(0), static_cast<size_t>(w.end()), file_size_);
    return result.status;
  }

 private:
  uint64_t file_size_;
};

std::unique_ptr<IncrementalParser> MakeParser(WeightFormat f, uint64_t file_size) {
  switch (f) {
    case WeightFormat::kGguf:
      return MakeGgufParser(file_size);
    case WeightFormat::kSafetensors:
      return MakeSafetensorsParser(file_size);
    case WeightFormat::kSafetensorsIndex:
      return std::make_unique<IndexParser>(file_size);
    case WeightFormat::kUnknown:
      break;
  }
  return nullptr;
}

}  // namespace

// -----------------------------------------------------------------------------------------
// [SECTION] The incremental reader
// -----------------------------------------------------------------------------------------

struct WeightHeaderReader::Impl {
  uint64_t file_size = 0;
  Window window;
  std::unique_ptr<IncrementalParser> parser;
  WeightHeaderResult result;
  uint64_t next_offset = 0;
  uint64_t need_end = 0;

  void Finish(WeightHeaderResult r) {
    result = std::move(r);
    parser.reset();
    window = Window{};
  }

  // Runs the parser over what the window holds; sets the next request.
  void Advance() {
    if (!parser) {
      if (file_size == 0) return Finish(Error(WeightFormat::kUnknown, WeightIssue::kTruncated, "the file is empty"));
      const uint64_t probe = std::min<uint64_t>(9, file_size);
      if (window.end() < probe) {
        need_end = probe;
        next_offset = window.end();
        return;
      }
      const WeightFormat f = SniffWeightFormat(window.at(0), window.bytes.size());
      parser = MakeParser(f, file_size);
      if (!parser) {
        return Finish(Error(WeightFormat::kUnknown, WeightIssue::kBadMagic,
                            "not a weight file this reader knows: a .safetensors file starts with an 8-byte length and "
                            "'{', a .gguf file with \"GGUF\", a model.safetensors.index.json with '{'"));
      }
    }
    if (parser->Parse(window) != WeightHeaderStatus::kNeedMoreBytes) return Finish(std::move(parser->result));
    // Drop what is read; jump over what is skipped.
    const uint64_t keep = parser->keep_from();
    if (keep >= window.end()) {
      window.bytes.clear();
      window.base = keep;
    } else if (keep > window.base) {
      window.bytes.erase(0, static_cast<size_t>(keep - window.base));
      window.base = keep;
    }
    if (parser->resume_at() > window.end()) {
      window.bytes.clear();
      window.base = parser->resume_at();
    }
    next_offset = window.end();
    need_end = std::max(parser->need_end(), next_offset + 1);
  }
};

WeightHeaderReader::WeightHeaderReader(uint64_t file_size, WeightFormat format) : impl_(new Impl) {
  impl_->file_size = file_size;
  impl_->result.status = WeightHeaderStatus::kNeedMoreBytes;
  impl_->parser = MakeParser(format, file_size);
  impl_->Advance();
}

WeightHeaderReader::~WeightHeaderReader() { delete impl_; }

WeightHeaderStatus WeightHeaderReader::status() const { return impl_->result.status; }
uint64_t WeightHeaderReader::next_offset() const { return impl_->next_offset; }
uint64_t WeightHeaderReader::need_end() const { return impl_->need_end; }
uint64_t WeightHeaderReader::known_end() const { return impl_->parser ? impl_->parser->known_end() : 0; }
const WeightHeaderResult& WeightHeaderReader::result() const { return impl_->result; }

uint64_t WeightHeaderReader::next_size() const {
  if (status() != WeightHeaderStatus::kNeedMoreBytes) return 0;
  const uint64_t limit = impl_->parser ? std::min(impl_->parser->read_limit(), impl_->file_size) : impl_->file_size;
  const uint64_t at = impl_->next_offset;
  if (at >= limit) return 0;
  const uint64_t want = std::max(impl_->need_end > at ? impl_->need_end - at : 0, kWeightHeaderChunk);
  return std::min(want, limit - at);
}

WeightHeaderStatus WeightHeaderReader::Feed(const uint8_t* data, size_t size) {
  Impl& m = *impl_;
  if (m.result.status != WeightHeaderStatus::kNeedMoreBytes) return m.result.status;
  const uint64_t limit = m.parser ? std::min(m.parser->read_limit(), m.file_size) : m.file_size;
  const uint64_t take = std::min<uint64_t>(size, limit > m.next_offset ? limit - m.next_offset : 0);
  if (take == 0) {
    m.Finish(Error(m.parser ? m.parser->result.format : WeightFormat::kUnknown, WeightIssue::kTruncated,
                   "the file ended at byte " + Num(m.next_offset) + " while its header was read (it is " +
                       Num(m.file_size) + " bytes: was it changed while it was read?)"));
    return m.result.status;
  }
  m.window.bytes.append(reinterpret_cast<const char*>(data), static_cast<size_t>(take));
  // Parse only when the bytes the blocked item needs are all here: an item is never re-read
  // once per small feed.
  if (m.window.end() >= m.need_end || m.window.end() >= limit)
    m.Advance();
  else
    m.next_offset = m.window.end();
  return m.result.status;
}

// -----------------------------------------------------------------------------------------
// [SECTION] Prefix reads (ParseWeightHeader and the per-format entry points)
// -----------------------------------------------------------------------------------------

namespace {

WeightHeaderResult ParsePrefix(const uint8_t* data, size_t size, uint64_t file_size, WeightFormat format) {
  file_size = std::max<uint64_t>(file_size, size);
  WeightHeaderReader reader(file_size, format);
  while (reader.status() == WeightHeaderStatus::kNeedMoreBytes && reader.next_offset() < size) {
    const uint64_t at = reader.next_offset();
    reader.Feed(data + at, static_cast<size_t>(size - at));
  }
  if (reader.status() != WeightHeaderStatus::kNeedMoreBytes) return reader.result();
  // Ask for a prefix that reaches what the reader needs: the header's known end, else a
  // doubling slice (a GGUF header of H bytes takes about log2(H / first read) reads).
  WeightHeaderResult r;
  r.status = WeightHeaderStatus::kNeedMoreBytes;
  r.format = reader.result().format;
  uint64_t need = std::max<uint64_t>(reader.need_end(), size + 1);
  const uint64_t known = reader.known_end();
  if (known > 0) {
    need = std::max(need, known);
  } else {
    need =
        std::max(need, std::min(std::max<uint64_t>(uint64_t{size} * 2, kWeightHeaderFirstRead), kGgufMaxHeaderBytes));
  }
  r.need_bytes = std::min(need, file_size);
  return r;
}

}  // namespace

WeightHeaderResult ParseWeightHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  return ParsePrefix(data, size, file_size, WeightFormat::kUnknown);
}
WeightHeaderResult ParseGgufHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  return ParsePrefix(data, size, file_size, WeightFormat::kGguf);
}
WeightHeaderResult ParseSafetensorsHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  return ParsePrefix(data, size, file_size, WeightFormat::kSafetensors);
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
      case WeightIssue::kMalformed:
        return DiagId::kParse;
      case WeightIssue::kBadMagic:
      case WeightIssue::kUnsupportedVersion:
        return DiagId::kUnsupported;
      case WeightIssue::kHeaderTooLarge:
      case WeightIssue::kBadSize:
        return DiagId::kOutOfRange;
      case WeightIssue::kUnknownDtype:
        return DiagId::kUnknownValue;
      case WeightIssue::kMissingField:
      case WeightIssue::kNeedsShardHeaders:
        return DiagId::kMissingField;
      case WeightIssue::kMetadataCapped:
        return DiagId::kIgnoredSetting;
      case WeightIssue::kNone:
      case WeightIssue::kOffsetMismatch:
      case WeightIssue::kBlockMisaligned:
      case WeightIssue::kDuplicateName:
      case WeightIssue::kTrailingData:
        break;
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
