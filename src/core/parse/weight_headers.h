// Weight-file headers: exact parameter counts and weight bytes per dtype or quant type,
// read from the header of a .safetensors file, a model.safetensors.index.json, or a .gguf
// file, never from the tensor data. Pure: standard library only, no I/O. The caller
// fetches bytes (File.slice in the browser, a bounded read natively) and asks again when
// a result says "I need the first M bytes"; every error is a value with a stable id.
// Sources: safetensors format (huggingface/safetensors README and safetensors/src/tensor.rs:
// 8-byte little-endian header length, JSON header, MAX_HEADER_SIZE, Dtype bit widths, the
// offset validation); GGUF format (ggml docs/gguf.md, ggml/src/gguf.cpp: v2/v3 layout,
// value types, alignment, tensor offset checks); ggml.h enum ggml_type and the block
// structs of ggml-common.h (elements and bytes per block of every quant type).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/diagnostics.h"

namespace llmmem::core {

// safetensors refuses headers above this (its MAX_HEADER_SIZE), so do we.
constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;
// GGUF metadata plus tensor infos; large tokenizers (256k tokens with merges) stay under 40 MB.
constexpr uint64_t kGgufMaxHeaderBytes = 128ull << 20;
// model.safetensors.index.json is read whole (it is JSON, parsed by core/json.h).
constexpr uint64_t kWeightIndexMaxBytes = 8ull << 20;
// A good first slice: a whole safetensors header or most GGUF headers in one read.
constexpr uint64_t kWeightHeaderFirstRead = 1ull << 20;
// Kept in the result's metadata list; the rest are counted, not stored.
constexpr size_t kWeightMetadataMaxEntries = 1024;
constexpr size_t kWeightMetadataMaxValueBytes = 4096;
// Counts and lengths the readers accept. Real files stay far below: llama.cpp's GGUF files
// have a few dozen key/values and at most a few thousand tensors, ggml names are under 64
// bytes (GGML_MAX_NAME), and safetensors names are module paths.
constexpr uint64_t kGgufMaxKeyValues = 1u << 16;    // 65,536
constexpr uint64_t kWeightMaxTensors = 1u << 20;    // 1,048,576, GGUF and safetensors alike
constexpr uint64_t kWeightMaxNameBytes = 1u << 16;  // a GGUF key or tensor name, a safetensors name
// The incremental reader's usual chunk: each Feed of this many bytes is a few milliseconds
// of work (the page feeds one per frame).
constexpr uint64_t kWeightHeaderChunk = 1ull << 20;

enum class WeightFormat { kUnknown, kSafetensors, kSafetensorsIndex, kGguf };
const char* WeightFormatName(WeightFormat f);  // "safetensors", "safetensors_index", "gguf"

// Stable ids (tests check them, front ends show the message that comes with them).
#define LLMMEM_WEIGHT_ISSUES(X)                                                                \
  X(kNone, "none", "no problem")                                                               \
  X(kTruncated, "truncated", "the file ends before its header or its tensor data does")        \
  X(kBadMagic, "bad_magic", "not a safetensors, safetensors index or GGUF file")               \
  X(kUnsupportedVersion, "unsupported_version", "a GGUF version other than 2 or 3")            \
  X(kHeaderTooLarge, "header_too_large", "the header is larger than the reader accepts")       \
  X(kMalformed, "malformed", "the header is not well-formed")                                  \
  X(kBadSize, "bad_size", "a size, count or dimension is negative or overflows")               \
  X(kOffsetMismatch, "offset_mismatch", "tensor data offsets disagree with dtype x shape")     \
  X(kBlockMisaligned, "block_misaligned", "a tensor is not a whole number of blocks or bytes") \
  X(kDuplicateName, "duplicate_name", "a tensor name or metadata key appears twice")           \
  X(kUnknownDtype, "unknown_dtype", "a dtype or ggml type the reader does not know")           \
  X(kMissingField, "missing_field", "a required field is missing")                             \
  X(kTrailingData, "trailing_data", "the file has bytes after the last tensor")                \
  X(kNeedsShardHeaders, "needs_shard_headers", "parameter counts need the shard headers")      \
  X(kMetadataCapped, "metadata_capped", "only part of the metadata is listed")

enum class WeightIssue {
#define LLMMEM_WEIGHT_ISSUE_ENUM(id, name, text) id,
  LLMMEM_WEIGHT_ISSUES(LLMMEM_WEIGHT_ISSUE_ENUM)
#undef LLMMEM_WEIGHT_ISSUE_ENUM
};
const char* WeightIssueName(WeightIssue id);  // "truncated"

struct WeightNote {
  WeightIssue id = WeightIssue::kNone;
  Severity severity = Severity::kWarning;  // warnings and infos; an error ends parsing
  std::string message;
};

enum class WeightHeaderStatus { kComplete, kNeedMoreBytes, kError };

// One dtype (safetensors: "BF16", "F8_E4M3") or ggml type (GGUF: "Q4_K", "F32").
struct WeightTypeTally {
  std::string type;
  uint64_t tensors = 0;
  uint64_t parameters = 0;  // elements
  uint64_t bytes = 0;       // exact: elements x bits / 8, or blocks x bytes per block
};

// GGUF key/values a front end can pre-fill a model from; -1 when the file does not say.
struct GgufModelInfo {
  uint32_t version = 0;
  uint32_t alignment = 32;  // general.alignment
  uint64_t kv_count = 0;
  std::string architecture;          // general.architecture: "llama", "qwen2", ...
  std::string name;                  // general.name
  int64_t parameter_count = -1;      // general.parameter_count
  int64_t file_type = -1;            // general.file_type (llama_ftype)
  int64_t block_count = -1;          // <arch>.block_count
  int64_t embedding_length = -1;     // <arch>.embedding_length
  int64_t feed_forward_length = -1;  // <arch>.feed_forward_length
  int64_t head_count = -1;           // <arch>.attention.head_count
  int64_t head_count_kv = -1;        // <arch>.attention.head_count_kv
  int64_t key_length = -1;           // <arch>.attention.key_length (head dim)
  int64_t context_length = -1;       // <arch>.context_length
  int64_t expert_count = -1;         // <arch>.expert_count
  int64_t expert_used_count = -1;    // <arch>.expert_used_count
  int64_t vocab_size = -1;           // tokenizer.ggml.tokens length, else <arch>.vocab_size
};

struct SafetensorsIndexInfo {
  bool has_total_size = false;
  uint64_t total_size = 0;               // metadata.total_size: bytes of all shards' tensors
  uint64_t tensor_count = 0;             // weight_map entries
  std::vector<std::string> shard_files;  // sorted, unique
};

struct WeightHeaderResult {
  WeightHeaderStatus status = WeightHeaderStatus::kError;
  uint64_t need_bytes = 0;                 // kNeedMoreBytes: call again with the first need_bytes
  WeightIssue error = WeightIssue::kNone;  // kError: why
  std::string message;                     // kError: a sentence naming the tensor, key or byte
  std::vector<WeightNote> notes;           // warnings and infos (also on success)

  WeightFormat format = WeightFormat::kUnknown;
  uint64_t header_bytes = 0;  // bytes of the file the header takes (safetensors: 8 + n;
                              // GGUF: up to the end of the tensor infos)
  uint64_t data_start = 0;    // where tensor data begins (GGUF: header_bytes aligned up)
  uint64_t data_bytes = 0;    // bytes of the data section the tensors span

  std::vector<WeightTypeTally> by_type;  // largest bytes first
  uint64_t tensor_count = 0;
  uint64_t parameter_count = 0;
  uint64_t weight_bytes = 0;
  bool parameters_known = true;  // false for an index: parameters need the shard headers

  // safetensors: __metadata__; GGUF: every key/value as text (arrays as "array<string>[n]").
  std::vector<std::pair<std::string, std::string>> metadata;
  GgufModelInfo gguf;          // format == kGguf
  SafetensorsIndexInfo index;  // format == kSafetensorsIndex

  bool ok() const { return status == WeightHeaderStatus::kComplete; }
};

// Which format the first bytes are (9 bytes decide; fewer may answer kUnknown).
WeightFormat SniffWeightFormat(const uint8_t* data, size_t size);

// The entry points. data/size: the first `size` bytes of a file of `file_size` bytes (the
// browser's File.size, a native stat). Each returns kComplete, kError, or kNeedMoreBytes
// with need_bytes > size and <= file_size: read the first need_bytes bytes and call again.
// A prefix of a valid file never answers kError; a file that is really too short does
// (kTruncated), so a caller loops at most a few times (GGUF asks for doubling slices).
// file_size is required (a file_size below size is taken as size); the tensor data must
// fit in it, so a cut-short download is reported even though the data is never read.
WeightHeaderResult ParseWeightHeader(const uint8_t* data, size_t size, uint64_t file_size);
WeightHeaderResult ParseSafetensorsHeader(const uint8_t* data, size_t size, uint64_t file_size);
WeightHeaderResult ParseGgufHeader(const uint8_t* data, size_t size, uint64_t file_size);
WeightHeaderResult ParseSafetensorsIndex(const uint8_t* data, size_t size, uint64_t file_size);

inline WeightHeaderResult ParseWeightHeader(std::string_view bytes, uint64_t file_size) {
  return ParseWeightHeader(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), file_size);
}

// The same readers, fed incrementally: the bytes of the file in order, in chunks of any
// size, from next_offset() (which may jump ahead: a GGUF tokenizer's strings are skipped,
// never read). Each Feed costs time proportional to the bytes it is given and memory
// bounded by the header's tensors and names, so a caller can spread a large header over
// frames and stop at any point (the page does; the CLI and the desktop read in a loop).
//   WeightHeaderReader r(file_size);
//   while (r.status() == WeightHeaderStatus::kNeedMoreBytes)
//     r.Feed(bytes at r.next_offset(), up to r.next_size() of them);
//   r.result()  // kComplete or kError, as ParseWeightHeader's
class WeightHeaderReader {
 public:
  // `format`: kUnknown sniffs it from the first bytes; another forces that reader.
  explicit WeightHeaderReader(uint64_t file_size, WeightFormat format = WeightFormat::kUnknown);
  ~WeightHeaderReader();
  WeightHeaderReader(const WeightHeaderReader&) = delete;
  WeightHeaderReader& operator=(const WeightHeaderReader&) = delete;

  WeightHeaderStatus status() const;
  uint64_t next_offset() const;  // where the next Feed's bytes must start
  uint64_t next_size() const;    // how many it can use now: at least what the next item needs
  uint64_t need_end() const;     // the reader cannot go on without the file's bytes up to here
  uint64_t known_end() const;    // where the header is known to end (safetensors), or 0 (GGUF)
  // Bytes that start at next_offset() (fewer than next_size() is fine, more are ignored past
  // what the reader needs). An empty feed, or one past the file's end, is an error.
  WeightHeaderStatus Feed(const uint8_t* data, size_t size);
  const WeightHeaderResult& result() const;  // kComplete or kError; the status otherwise

 private:
  struct Impl;
  Impl* impl_;
};

// Sums complete shard results (several .safetensors shards, or GGUF splits) into one.
// Metadata, GGUF info and the index come from the first shard that has them.
WeightHeaderResult CombineWeightHeaders(const std::vector<WeightHeaderResult>& shards);

// The result's error and notes as core diagnostics (field "weights_file") for the UI.
Diagnostics WeightHeaderDiagnostics(const WeightHeaderResult& r);

// ggml_type table (ggml.h enum; block layouts from ggml-common.h). block_bytes == 0 marks
// an id that ggml removed from GGUF files (Q4_2, Q4_3, Q4_0_4_4, ..., IQ4_NL_8_8).
struct GgmlTypeInfo {
  uint32_t id;
  const char* name;
  uint32_t block_elems;
  uint32_t block_bytes;
};
const GgmlTypeInfo* FindGgmlType(uint32_t id);  // nullptr when the id was never assigned

// safetensors Dtype table: name and bits per element (F4: 4, F6_*: 6, BOOL: 8).
struct SafetensorsDtypeInfo {
  const char* name;
  uint32_t bits;
};
const SafetensorsDtypeInfo* FindSafetensorsDtype(std::string_view name);  // exact, case-sensitive

}  // namespace llmmem::core
