// CompareRun (run_compare.h). Which figures of a log describe one GPU, and which estimate
// leaves each category sums:
//  - the measured side: the figures of the first GPU the log names (vLLM's first worker or
//    the driver, SGLang's TP0, llama.cpp's CUDA0 ...; host buffers CPU/CUDA_Host are left
//    out). A line form printed once per buffer (llama.cpp's, Ollama's backend lines) is
//    summed over its lines on that device (an SWA model has two KV caches); any other form
//    is taken at its last line (vLLM prints its profile once per start);
//  - the estimate side: the GPU leaves of Explain's tree by their category, except what
//    lives apart: CUDA graphs ("cuda_graphs"), non-torch memory ("non_torch" is built to
//    match vLLM's non_torch_increase, which is measured after the CUDA context exists,
//    plus "comm_buffers", "cublas_workspaces") and the CUDA context ("cuda_context").
#include "core/run/run_compare.h"

#include <algorithm>
#include <cmath>

#include "core/base/enum_table.h"
#include "core/estimate/estimate.h"
#include "core/estimate/serving.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

bool IsHostDevice(const std::string& d) {
  return d.compare(0, 3, "CPU") == 0 || d.find("Host") != std::string::npos;
}

bool Additive(const std::string& form) {
  return form == "llama_model_buffer" || form == "llama_kv_buffer" || form == "llama_kv_total" ||
         form == "llama_compute_buffer" || form == "llama_output_buffer" || form == "ollama_backend_memory";
}

// The device the comparison describes: TP0 / the driver when named, else the first GPU seen.
std::string ChooseDevice(const RunLog& log) {
  std::string first;
  bool have = false;
  for (const MeasuredFigure& f : log.figures) {
    if (!IsByteFigure(f.kind) || RunCategoryOf(f.kind) == RunCategory::kNone || IsHostDevice(f.device)) continue;
    if (f.device.find("TP0") != std::string::npos) return f.device;
    if (!have) {
      first = f.device;
      have = true;
    }
  }
  return first;
}

struct Measured {
  double bytes = -1, tolerance = 0;
  std::vector<size_t> lines;
  std::string from;
  bool planned = false;
};

// One kind on `device`; a total printed for all devices ("" device: llama.cpp's KV size line)
// counts when the device has no figure of its own.
Measured MeasureKind(const RunLog& log, MeasuredKind k, const std::string& device) {
  Measured m;
  for (int pass = 0; pass < 2 && m.bytes < 0; ++pass) {
    const std::string want = pass == 0 ? device : std::string();
    if (pass == 1 && device.empty()) break;
    const MeasuredFigure* last = nullptr;
    for (const MeasuredFigure& f : log.figures)
      if (f.kind == k && f.device == want) last = &f;
    if (last == nullptr) continue;
    if (Additive(last->form)) {
      m.bytes = 0;
      for (const MeasuredFigure& f : log.figures) {
        if (f.kind != k || f.device != want || f.form != last->form) continue;
        m.bytes += f.value;
        m.tolerance += f.tolerance;
        m.lines.push_back(f.line);
        if (m.from.empty()) m.from = f.text;
      }
    } else {
      m.bytes = last->value;
      m.tolerance = last->tolerance;
      m.lines.push_back(last->line);
      m.from = last->text;
    }
    m.planned = last->form == "ollama_offload_plan";
  }
  return m;
}

std::string LastId(const std::string& dotted) {
  const size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// The run category an estimate leaf belongs to; kNone for what the logs never print
// (fragmentation, other processes, ...).
RunCategory LeafCategory(const BreakdownNode& n) {
  const std::string id = LastId(n.id);
  if (id == "cuda_graphs") return RunCategory::kCudaGraphs;
  if (id == "non_torch" || id == "comm_buffers" || id == "cublas_workspaces") return RunCategory::kNonTorch;
  if (id == "cuda_context") return RunCategory::kCudaContext;
  if (id == "host_buffers" || id == "mapped" || id == "kv_cpu") return RunCategory::kNone;  // host memory
  switch (n.category) {
    case Category::kWeights: return RunCategory::kWeights;
    case Category::kKvCache: return RunCategory::kKvCache;
    case Category::kActivations: return RunCategory::kActivations;
    default: return RunCategory::kNone;
  }
}

void SumLeaves(const BreakdownNode& n, RunCategory want, double& bytes, std::vector<std::string>& ids) {
  if (n.children.empty()) {
    if (n.device == Device::kGpu && LeafCategory(n) == want && n.bytes > 0) {
      bytes += n.bytes;
      ids.push_back(n.id);
    }
    return;
  }
  for (const BreakdownNode& c : n.children) SumLeaves(c, want, bytes, ids);
}

std::string Gib(double b) { return FormatNumber(b / 1073741824.0, 2) + " GiB"; }

Runtime RuntimeOf(RunSource s) {
  switch (s) {
    case RunSource::kVllm: return Runtime::kVllm;
    case RunSource::kSglang: return Runtime::kSglang;
    case RunSource::kLlamaCpp: return Runtime::kLlamaCpp;
    case RunSource::kOllama: return Runtime::kOllama;
    default: return Runtime::kHfGenerate;
  }
}

}  // namespace

Config ApplyLogSettings(const Config& base, const RunLog& log, std::vector<std::string>& notes) {
  Config c = base;
  const RunSettingsSeen& s = log.settings;
  const Runtime r = RuntimeOf(log.source);
  if (log.source != RunSource::kMemoryStats && c.runtime != r) {
    notes.push_back(std::string("runtime set to ") + Id(r) + ": the log is " + RunSourceName(log.source) + "'s");
    c.runtime = r;
    c.mode = Mode::kInference;
  }
  if (s.max_model_len > 0 && (r == Runtime::kVllm || r == Runtime::kSglang) && c.seq != s.max_model_len) {
    notes.push_back("seq " + std::to_string(c.seq) + " -> " + std::to_string(s.max_model_len) +
                    ": the log's max_model_len (line " + std::to_string(s.max_model_len_line) + ")");
    c.seq = s.max_model_len;
  }
  if (s.n_ctx > 0 && (r == Runtime::kLlamaCpp || r == Runtime::kOllama)) {
    const int64_t per_slot = s.n_ctx / std::max<int64_t>(1, c.batch);
    if (per_slot > 0 && per_slot != c.seq) {
      notes.push_back("seq " + std::to_string(c.seq) + " -> " + std::to_string(per_slot) + ": the log's n_ctx " +
                      std::to_string(s.n_ctx) + " over " + std::to_string(c.batch) + " slot(s) (line " +
                      std::to_string(s.n_ctx_line) + ")");
      c.seq = per_slot;
    }
  }
  // Against the fraction the runtime would use (mem_fraction 0 is its default: ResolveServing).
  const double fraction = c.runtime == r ? ResolveServing(c).mem_fraction : c.mem_fraction;
  if (s.gpu_memory_utilization > 0 && (r == Runtime::kVllm || r == Runtime::kSglang) &&
      std::fabs(fraction - s.gpu_memory_utilization) > 1e-9) {
    notes.push_back("mem_fraction " + FormatNumber(fraction, 2) + " -> " + FormatNumber(s.gpu_memory_utilization, 2) +
                    ": the log's gpu_memory_utilization / mem_fraction_static (line " +
                    std::to_string(s.utilization_line) + ")");
    c.mem_fraction = s.gpu_memory_utilization;
  }
  return c;
}

RunComparison CompareRun(const RunLog& log, const Config& given, bool apply_log_settings) {
  RunComparison out;
  out.config = apply_log_settings ? ApplyLogSettings(given, log, out.notes) : given;
  if (!apply_log_settings) {
    std::vector<std::string> would;
    ApplyLogSettings(given, log, would);
    for (const std::string& w : would) out.notes.push_back("the log differs from the estimate's settings: " + w);
  }
  if (!log.settings.model.empty())
    out.notes.push_back("the log names the model \"" + log.settings.model + "\" (line " +
                        std::to_string(log.settings.model_line) + "); the estimate is of " +
                        (out.config.model.name.empty() ? std::string("the model given") : out.config.model.name));
  const Estimate e = Explain(out.config);
  out.ok = e.totals.ok;
  out.device = ChooseDevice(log);
  if (!out.device.empty()) out.notes.push_back("measured figures of one device: " + out.device);

  // The allocator's peaks (memory_stats) beside the estimate's allocated and reserved totals.
  struct PeakRow {
    MeasuredKind kind;
    const char* label;
    double estimated;
    const char* row;
  };
  const PeakRow peaks[] = {
      {MeasuredKind::kPeakAllocated, "Peak allocated", e.totals.allocated_bytes, "totals.allocated_bytes"},
      {MeasuredKind::kPeakReserved, "Peak reserved", e.totals.reserved_bytes, "totals.reserved_bytes"},
  };
  const RunCategory categories[] = {RunCategory::kWeights,    RunCategory::kKvCache,  RunCategory::kActivations,
                                    RunCategory::kCudaGraphs, RunCategory::kNonTorch, RunCategory::kCudaContext};
  auto place = [&](RunComparisonRow row) {
    if (row.measured >= 0 && row.estimated > 0) {
      row.ratio = row.measured / row.estimated;
      out.rows.push_back(std::move(row));
    } else if (row.measured >= 0) {
      if (row.note.empty())
        row.note = out.ok ? "not modelled: the estimate has no row for it" : "no estimate: the configuration has errors";
      out.not_modelled.push_back(std::move(row));
    } else if (row.estimated > 0) {
      out.not_measured.push_back(std::move(row));
    }
  };
  for (const RunCategory cat : categories) {
    RunComparisonRow row;
    row.category = cat;
    row.label = RunCategoryName(cat);
    bool planned = false;
    for (int k = 0; k < static_cast<int>(MeasuredKind::kCount); ++k) {
      const MeasuredKind kind = static_cast<MeasuredKind>(k);
      if (RunCategoryOf(kind) != cat) continue;
      const Measured m = MeasureKind(log, kind, out.device);
      if (m.bytes < 0) continue;
      row.measured = std::max(0.0, row.measured) + m.bytes;
      row.measured_tolerance += m.tolerance;
      row.lines.insert(row.lines.end(), m.lines.begin(), m.lines.end());
      if (row.measured_from.empty()) row.measured_from = m.from;
      planned |= m.planned;
    }
    if (planned) row.note = "Ollama's own plan (its offload line), not an allocation";
    if (out.ok) {
      double est = 0;
      SumLeaves(e.tree, cat, est, row.estimate_rows);
      if (est > 0) row.estimated = est;
    }
    place(std::move(row));
  }
  for (const PeakRow& p : peaks) {
    RunComparisonRow row;
    row.category = RunCategory::kAllocatorPeak;
    row.label = p.label;
    const Measured m = MeasureKind(log, p.kind, out.device);
    if (m.bytes < 0) continue;  // a serving log has no allocator peaks: nothing to say
    row.measured = m.bytes;
    row.measured_tolerance = m.tolerance;
    row.lines = m.lines;
    row.measured_from = m.from;
    if (out.ok && p.estimated > 0) {
      row.estimated = p.estimated;
      row.estimate_rows.push_back(p.row);
    }
    place(std::move(row));
  }
  // The counts the serving report gives too.
  if (out.ok && UsesServingRuntime(out.config)) {
    const ServingReport rep = Serve(out.config);
    struct CountRow {
      MeasuredKind kind;
      const char* label;
      double estimated;
      const char* row;
    };
    const bool paged = out.config.runtime == Runtime::kVllm || out.config.runtime == Runtime::kSglang;
    const CountRow counts[] = {
        {MeasuredKind::kKvTokens, "KV pool (tokens)", paged ? static_cast<double>(rep.pool_tokens) : -1,
         "serving.pool_tokens"},
        {MeasuredKind::kMaxConcurrency, "Maximum concurrency", paged ? rep.max_concurrency : -1,
         "serving.max_concurrency"},
        {MeasuredKind::kLayersOffloaded, "Layers on the GPU", paged ? -1 : static_cast<double>(rep.gpu_layers),
         "serving.gpu_layers"},
    };
    for (const CountRow& k : counts) {
      const MeasuredFigure* f = LastFigure(log, k.kind);
      if (f == nullptr || !(k.estimated > 0)) continue;
      RunComparisonRow row;
      row.label = k.label;
      row.measured = f->value;
      row.measured_tolerance = f->tolerance;
      row.lines.push_back(f->line);
      row.measured_from = f->text;
      row.estimated = k.estimated;
      row.estimate_rows.push_back(k.row);
      row.ratio = f->value > 0 ? f->value / k.estimated : 0;
      if (f->form == "ollama_offload_plan") row.note = "Ollama's own plan (its offload line)";
      out.counts.push_back(std::move(row));
    }
  }
  // The large gaps in words (more than 25% either way).
  for (const RunComparisonRow& r : out.rows)
    if (r.ratio > 0 && (r.ratio > 1.25 || r.ratio < 0.8))
      out.notes.push_back(r.label + ": measured " + Gib(r.measured) + " is " + FormatNumber(r.ratio, 2) +
                          "x the estimate's " + Gib(r.estimated));
  return out;
}

}  // namespace llmmem::core
