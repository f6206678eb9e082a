#include "cli/cli_weights.h"

#include "core/report/result_json.h"
#include "core/base/units.h"
#include "io/bounded_file.h"

namespace llmmem::cli {

core::WeightHeaderResult InspectWeightFile(const std::string& path) {
  io::RegularFile file;
  std::string error;
  if (!file.Open(path, &error)) {
    core::WeightHeaderResult r;
    r.error = core::WeightIssue::kTruncated;
    r.message = "cannot read it: " + error;
    return r;
  }
  // Chunks in order, each parsed as it arrives: linear in the header, never the tensor data.
  core::WeightHeaderReader reader(file.size());
  std::string chunk;
  while (reader.status() == core::WeightHeaderStatus::kNeedMoreBytes) {
    if (!file.ReadAt(reader.next_offset(), reader.next_size(), &chunk, &error)) {
      core::WeightHeaderResult r;
      r.error = core::WeightIssue::kTruncated;
      r.message = "cannot read it: " + error;
      return r;
    }
    reader.Feed(reinterpret_cast<const uint8_t*>(chunk.data()), chunk.size());
  }
  return reader.result();
}

std::string RenderWeightHeaders(const std::vector<std::string>& paths,
                                const std::vector<core::WeightHeaderResult>& rs) {
  std::string out;
  for (size_t i = 0; i < rs.size(); ++i) {
    const core::WeightHeaderResult& r = rs[i];
    out += paths[i] + ": ";
    if (!r.ok()) {
      out += "error: " + r.message + "\n";
      continue;
    }
    out += std::to_string(r.tensor_count) + " tensors";
    if (r.parameters_known) {
      out += ", " + core::FormatCount(static_cast<int64_t>(r.parameter_count)) + " parameters, " +
             core::FormatBytesBoth(static_cast<double>(r.weight_bytes)) + " of weights";
    }
    out += " (header " + core::FormatCount(static_cast<int64_t>(r.header_bytes)) + " bytes read)\n";
    for (const core::WeightTypeTally& t : r.by_type) {
      out += "  " + t.type + ": " + std::to_string(t.tensors) + " tensors, " +
             core::FormatCount(static_cast<int64_t>(t.parameters)) + " parameters, " +
             core::FormatBytesBoth(static_cast<double>(t.bytes)) + "\n";
    }
    if (r.format == core::WeightFormat::kGguf && !r.gguf.architecture.empty()) {
      out += "  GGUF " + r.gguf.architecture + ": layers " + std::to_string(r.gguf.block_count) + ", hidden " +
             std::to_string(r.gguf.embedding_length) + ", heads " + std::to_string(r.gguf.head_count) + "/" +
             std::to_string(r.gguf.head_count_kv) + ", context " + std::to_string(r.gguf.context_length) + "\n";
    }
    for (const core::WeightNote& n : r.notes) out += "  note: " + n.message + "\n";
  }
  if (rs.size() > 1) {
    const core::WeightHeaderResult all = core::CombineWeightHeaders(rs);
    if (all.ok() && all.parameters_known) {
      out += "all files: " + core::FormatCount(static_cast<int64_t>(all.parameter_count)) + " parameters, " +
             core::FormatBytesBoth(static_cast<double>(all.weight_bytes)) + "\n";
    }
  }
  return out;
}

core::Json WeightHeadersToJson(const std::vector<std::string>& paths, const std::vector<core::WeightHeaderResult>& rs) {
  using core::Json;
  Json::Array files;
  for (size_t i = 0; i < rs.size(); ++i) {
    Json j = core::WeightHeaderToJson(rs[i]);
    j["path"] = Json(paths[i]);
    files.push_back(std::move(j));
  }
  Json out(Json::Object{});
  out["files"] = Json(std::move(files));
  return out;
}

}  // namespace llmmem::cli
