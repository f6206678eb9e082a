#include "cli/cli_weights.h"

#include <fstream>

#include "core/result_json.h"
#include "core/units.h"

namespace llmmem::cli {

core::WeightHeaderResult InspectWeightFile(const std::string& path) {
  core::WeightHeaderResult r;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.message = "cannot open " + path;
    return r;
  }
  in.seekg(0, std::ios::end);
  const uint64_t file_size = static_cast<uint64_t>(in.tellg());
  uint64_t want = std::min<uint64_t>(core::kWeightHeaderFirstRead, file_size);
  std::string buf;
  for (int round = 0; round < 32; ++round) {
    buf.resize(want);
    in.seekg(0);
    in.read(buf.data(), static_cast<std::streamsize>(want));
    r = core::ParseWeightHeader(reinterpret_cast<const uint8_t*>(buf.data()), static_cast<size_t>(in.gcount()), file_size);
    if (r.status != core::WeightHeaderStatus::kNeedMoreBytes) return r;
    want = r.need_bytes;
  }
  r.status = core::WeightHeaderStatus::kError;
  r.message = "the header did not end within 32 reads";
  return r;
}

std::string RenderWeightHeaders(const std::vector<std::string>& paths, const std::vector<core::WeightHeaderResult>& rs) {
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
