// The model.safetensors.index.json reader (ParseSafetensorsIndex in core/weight_headers.h):
// the whole file parsed by core/json.h, the shard files listed from weight_map, and
// metadata.total_size kept as the weight bytes; parameter counts need the shard headers.
// Standard library only (plus core/json.h and core/weight_headers_internal.h).
// Source: the sharded-checkpoint index written by huggingface_hub / transformers
// save_pretrained (metadata.total_size, weight_map: tensor name -> shard file).
#include <algorithm>
#include <set>
#include <string>

#include "core/parse/json.h"
#include "core/parse/weight_headers.h"
#include "core/parse/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

static_assert(kWeightIndexMaxBytes == kJsonMaxBytes, "the index is parsed by ParseJson");

WeightHeaderResult ParseSafetensorsIndex(const uint8_t* data, size_t size, uint64_t file_size) {
  const WeightFormat f = WeightFormat::kSafetensorsIndex;
  file_size = std::max<uint64_t>(file_size, size);
  if (file_size > kWeightIndexMaxBytes) {
    return Error(
        f, WeightIssue::kHeaderTooLarge,
        "the index file is " + Num(file_size) + " bytes; at most " + Num(kWeightIndexMaxBytes) + " are accepted");
  }
  if (size < file_size) {
    WeightHeaderResult r;
    r.status = WeightHeaderStatus::kNeedMoreBytes;
    r.format = f;
    r.need_bytes = file_size;  // JSON: the whole file
    return r;
  }
  const size_t bom = (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) ? 3 : 0;
  const JsonParseResult parsed = ParseJson(std::string(reinterpret_cast<const char*>(data) + bom, size - bom));
  if (!parsed.ok) return Error(f, WeightIssue::kMalformed, "the index is not valid JSON: " + parsed.error);
  const Json* map = parsed.value.Find("weight_map");
  if (!map || !map->IsObject()) {
    return Error(f, WeightIssue::kMissingField, "the index has no \"weight_map\" object (tensor name -> shard file)");
  }
  WeightHeaderResult r;
  r.format = f;
  std::set<std::string> shards;
  for (const auto& [tensor, file] : map->AsObject()) {
    if (!file.IsString()) {
      return Error(f, WeightIssue::kMalformed, "weight_map entry " + Quoted(tensor) + " is not a file name string");
    }
    shards.insert(file.AsString());
  }
  r.index.tensor_count = map->AsObject().size();
  r.index.shard_files.assign(shards.begin(), shards.end());
  const Json* meta = parsed.value.Find("metadata");
  const Json* total = meta ? meta->Find("total_size") : nullptr;
  if (total) {
    const double v = total->IsNumber() ? total->AsNumber() : -1;
    if (!(v >= 0 && v <= 9007199254740992.0 && v == static_cast<double>(static_cast<uint64_t>(v)))) {
      return Error(f, WeightIssue::kBadSize, "metadata.total_size must be a whole number of bytes, 0 to 2^53");
    }
    r.index.has_total_size = true;
    r.index.total_size = static_cast<uint64_t>(v);
    r.weight_bytes = r.index.total_size;
  }
  r.tensor_count = r.index.tensor_count;
  r.parameters_known = false;
  r.header_bytes = size;
  r.notes.push_back({WeightIssue::kNeedsShardHeaders, Severity::kInfo,
                     "the index lists " + Num(r.index.tensor_count) + " tensors in " + Num(shards.size()) +
                         " shard files; drop the shard files too to count parameters per dtype (only their "
                         "headers are read)"});
  r.status = WeightHeaderStatus::kComplete;
  return r;
}

}  // namespace llmmem::core
