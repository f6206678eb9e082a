#include "core/report/serving_json.h"

#include <cmath>

#include "core/solve/serve_fit.h"
#include "core/estimate/sinks.h"
#include "core/estimate/speed.h"

namespace llmmem::core {
namespace {

// The report's lines ({label, value, note}: ServingLine, SpeedLine) as rows.
template <class Line>
Json LinesToJson(const std::vector<Line>& lines) {
  Json::Array out;
  for (const Line& l : lines) {
    Json row(Json::Object{});
    row["label"] = Json(l.label);
    row["value"] = Json(l.value);
    row["note"] = Json(l.note);
    out.push_back(std::move(row));
  }
  return Json(std::move(out));
}

}  // namespace

Json ServingToJson(const ServingReport& r) {
  Json j(Json::Object{});
  j["runtime"] = Json(Id(r.runtime));
  j["ok"] = Json(r.ok);
  if (!r.ok) return j;
  const ServingSettings& s = r.settings;
  Json set(Json::Object{});
  set["total_bytes"] = Json(s.total_bytes);
  if (IsPagedServer(r.runtime)) {
    set["mem_fraction"] = Json(s.mem_fraction);
    set["max_num_batched_tokens"] = Json(static_cast<double>(s.batched_tokens));
    set["max_num_seqs"] = Json(static_cast<double>(s.max_num_seqs));
    set["cuda_graphs"] = Json(s.cuda_graphs);
    set["cuda_graph_sizes"] = Json(static_cast<double>(s.graph_sizes));
    j["budget_bytes"] = Json(std::floor(r.budget_bytes));
    j["kv_available_bytes"] = Json(std::floor(r.kv_available_bytes));
    j["blocks"] = Json(static_cast<double>(r.blocks));
    j["block_bytes"] = Json(WholeBytes(r.block_bytes));
    j["kv_tokens"] = Json(static_cast<double>(r.pool_tokens));
    j["max_concurrency"] = Json(r.max_concurrency);
    j["max_model_len"] = Json(static_cast<double>(r.max_model_len));
  } else {
    set["n_ctx"] = Json(static_cast<double>(s.n_ctx));
    set["slots"] = Json(static_cast<double>(s.slots));
    set["n_ubatch"] = Json(static_cast<double>(s.n_ubatch));
    set["gpu_layers"] = Json(static_cast<double>(s.gpu_layers));
    set["cache_type_k"] = Json(Info(s.k_type).id);
    set["cache_type_v"] = Json(Info(s.v_type).id);
    if (r.runtime == Runtime::kOllama) set["ollama_default_num_ctx"] = Json(static_cast<double>(s.ollama_default_ctx));
    j["gpu_layers"] = Json(static_cast<double>(r.gpu_layers));
    j["gpu_bytes"] = Json(WholeBytes(r.gpu_bytes));
    j["ram_bytes"] = Json(WholeBytes(r.ram_bytes));
    j["ram_fits"] = Json(r.ram_fits);
    j["kv_bytes"] = Json(WholeBytes(r.kv_bytes));
    j["compute_buffer_bytes"] = Json(WholeBytes(r.compute_buffer_bytes));
    j["host_buffer_bytes"] = Json(WholeBytes(r.host_buffer_bytes));
    j["host_compute_bytes"] = Json(WholeBytes(r.host_compute_bytes));
    j["output_buffer_bytes"] = Json(WholeBytes(r.output_buffer_bytes));
  }
  j["settings"] = std::move(set);
  j["lines"] = LinesToJson(r.lines);
  return j;
}

// The serving questions (core/serve_fit.h) under the configured runtime.
Json SpeedToJson(const SpeedEstimate& s) {
  Json j(Json::Object{});
  j["ok"] = Json(s.ok);
  if (!s.ok) {
    j["why_not"] = Json(s.why_not);
    return j;
  }
  j["bandwidth_bytes_s"] = Json(s.bandwidth);
  j["peak_flops"] = Json(s.peak_flops);
  if (s.training) {
    j["step_flops"] = Json(s.step_flops);
    j["step_s"] = Json(s.step_s);
    j["train_tokens_s"] = Json(s.train_tokens_s);
  } else {
    j["weight_bytes_step"] = Json(WholeBytes(s.weight_bytes_step));  // whole bytes, as every *_bytes figure
    j["kv_bytes_step"] = Json(WholeBytes(s.kv_bytes_step));
    j["decode_step_s"] = Json(s.decode_step_s);
    j["decode_tokens_s"] = Json(s.decode_tokens_s);
    j["batch_tokens_s"] = Json(s.batch_tokens_s);
    j["prefill_tokens_s"] = Json(s.prefill_tokens_s);
    j["ttft_s"] = Json(s.ttft_s);
  }
  j["lines"] = LinesToJson(s.lines);
  return j;
}

Json ServingFitToJson(const Config& c) {
  const ServeFit f = FitServing(c);
  Json j(Json::Object{});
  j["runtime"] = Json(Id(c.runtime));
  j["ok"] = Json(f.ok);
  if (!f.ok) return j;
  j["max_context"] = Json(static_cast<double>(f.max_context));
  j["model_context"] = Json(static_cast<double>(f.model_context));
  j["max_concurrency"] = Json(static_cast<double>(f.max_concurrency));
  if (f.ggml) {
    j["max_gpu_layers"] = Json(static_cast<double>(f.max_gpu_layers));
    j["ram_bytes_at_max_layers"] = Json(WholeBytes(f.ram_bytes_at_max_layers));
  }
  Json formats(Json::Object{});
  formats["found"] = Json(f.formats_found);
  if (f.formats_found) {
    formats["dtype"] = Json(Info(f.dtype).id);
    formats["kv_dtype"] = Json(Info(f.kv_dtype).id);
  }
  j["formats"] = std::move(formats);
  Json::Array sets;
  for (const GpuSetFit& g : f.gpu_sets) {
    Json row(Json::Object{});
    row["gpu"] = Json(g.gpu);
    row["count"] = Json(static_cast<double>(g.count));
    row["memory_bytes"] = Json(WholeBytes(g.memory_bytes));
    row["peak_bytes"] = Json(WholeBytes(g.peak_bytes));
    if (g.max_concurrency > 0) row["max_concurrency"] = Json(g.max_concurrency);
    sets.push_back(std::move(row));
  }
  j["gpu_sets"] = Json(std::move(sets));
  return j;
}

}  // namespace llmmem::core
