#include "cli/cli_fit.h"

#include "core/estimate/estimate.h"
#include "core/report/fit_json.h"
#include "core/config/gpu_count.h"
#include "core/catalogue/gpus.h"
#include "core/base/units.h"

namespace llmmem::cli {
namespace {

using core::FormatBytesBoth;
using core::FormatNumber;

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string RenderFit(const core::Config& c) {
  const core::Json j = core::FitToJson(c);  // the rows --json prints, in words
  const double cap = core::CapacityBytes(c);
  const int64_t other = core::GpusPerReplica(c);
  std::string out = "Fit on " + c.gpu + " (" + FormatBytesBoth(cap) + " per GPU), " + c.model.name + ", " +
                    core::Id(c.mode) + ", micro-batch " + std::to_string(c.batch) + " x " + std::to_string(c.seq) +
                    " tokens\n\nFewest GPUs per strategy (tp x pp x cp = " + std::to_string(other) + " per replica):\n";
  for (const core::Json& row : j.Find("fewest_gpus")->AsArray()) {
    const int z = static_cast<int>(row.Find("zero")->AsNumber());
    std::string line = "  ZeRO-" + std::to_string(z) + ": ";
    if (!row.Find("possible")->AsBool()) {
      line += "does not fit at any data-parallel size: " + row.Find("why_not")->AsString();
    } else {
      line += "k > " + FormatNumber(row.Find("threshold")->AsNumber(), 2) + " -> " +
              FormatNumber(row.Find("min_dp")->AsNumber(), 0) +
              " replicas = " + FormatNumber(row.Find("min_gpus")->AsNumber(), 0) + " GPUs";
    }
    if (row.Find("offload_params_dropped")->AsBool()) line += " (without parameter offload: it needs ZeRO-3)";
    out += line + "\n";
  }
  out += "\nWith the current layout:\n";
  const double mb = j.Find("max_micro_batch")->AsNumber();
  const double seq = j.Find("max_sequence")->AsNumber();
  out += "  largest micro-batch that fits: " +
         (mb > 0 ? FormatNumber(mb, 0) : std::string("none (batch 1 does not fit)")) + "\n";
  out +=
      "  longest sequence that fits:    " + (seq > 0 ? FormatNumber(seq, 0) + " tokens" : std::string("none")) + "\n";
  const core::Json* inf = j.Find("inference_formats");
  out += "  inference, most precise formats that fit: ";
  if (inf->Find("found")->AsBool()) {
    out += "weights " + inf->Find("dtype")->AsString() + ", KV cache " + inf->Find("kv_dtype")->AsString() + " (" +
           FormatBytesBoth(inf->Find("peak_bytes")->AsNumber()) + ")\n";
  } else {
    out += "none down to 2-bit weights and 4-bit KV\n";
  }
  if (const core::Json* sv = j.Find("serving"); sv != nullptr && sv->Find("ok")->AsBool()) {
    const bool ggml = sv->Find("max_gpu_layers") != nullptr;
    out += "\nServing under " + std::string(core::Info(c.runtime).label) + ":\n";
    const double ctx = sv->Find("max_context")->AsNumber();
    const double model_ctx = sv->Find("model_context")->AsNumber();
    out += "  longest context per request:   " + (ctx > 0 ? FormatNumber(ctx, 0) + " tokens" : std::string("none")) +
           (model_ctx > 0 ? " (the model was trained for " + FormatNumber(model_ctx, 0) + ")" : "") + "\n";
    out += "  most requests of " + std::to_string(c.seq) +
           " tokens at once: " + FormatNumber(sv->Find("max_concurrency")->AsNumber(), 0) + "\n";
    if (ggml) {
      const double n = sv->Find("max_gpu_layers")->AsNumber();
      out += "  most layers on the GPU (-ngl):  " +
             (n >= 0 ? FormatNumber(n, 0) + " of " + std::to_string(c.model.layers + 1) + "; the rest needs " +
                           FormatBytesBoth(sv->Find("ram_bytes_at_max_layers")->AsNumber()) + " of system RAM"
                     : std::string("none (the compute buffer and context alone do not fit)")) +
             "\n";
    }
    const core::Json* fm = sv->Find("formats");
    out += "  most precise formats it runs:  " +
           (fm->Find("found")->AsBool()
                ? "weights " + fm->Find("dtype")->AsString() + ", KV " + fm->Find("kv_dtype")->AsString()
                : std::string("none")) +
           "\n";
    out += "  GPU sets that run it (least memory first; memory is the cost proxy, the catalogue has no prices):\n";
    for (const core::Json& g : sv->Find("gpu_sets")->AsArray()) {
      out += "    " + FormatNumber(g.Find("count")->AsNumber(), 0) + " x " + Pad(g.Find("gpu")->AsString(), 20) +
             FormatBytesBoth(g.Find("memory_bytes")->AsNumber()) + " in all";
      if (const core::Json* mc = g.Find("max_concurrency"))
        out += ", " + FormatNumber(mc->AsNumber(), 1) + " requests at once";
      out += "\n";
    }
  }
  return out;
}

std::string RenderGpuList() {
  std::string out = Pad("key", 20) + Pad("marketed", 10) + Pad("usable (reported)", 30) + "name\n";
  for (const core::Gpu& g : core::Gpus()) {
    out += Pad(g.key, 20) + Pad(FormatNumber(g.memory_gb) + " GB", 10) +
           Pad(g.memory_bytes > 0 ? FormatBytesBoth(g.memory_bytes) : std::string("(nominal)"), 30) + g.name + "\n";
  }
  return out;
}

std::string RenderCompat(const core::CompatEstimate& c) {
  if (!c.ok) return c.tool + ": " + c.error + "\n";
  std::string out = "Compatibility: " + c.tool + "\n  " + c.scope + "\n";
  for (const core::CompatLine& l : c.lines) {
    out += "  " + Pad(l.label, 58) + " GPU " + Pad(core::FormatBytesBoth(l.gpu_bytes), 26) +
           (l.cpu_bytes > 0 ? " CPU " + core::FormatBytesBoth(l.cpu_bytes) : "") + "\n";
  }
  out += "Where it departs from this calculator's accounting:\n";
  for (const std::string& d : c.departures) out += "  - " + d + "\n";
  return out;
}

std::string RenderDoctor(const std::vector<core::Remedy>& remedies) {
  if (remedies.empty()) return "OOM doctor: no single remedy saves memory here.\n";
  std::string out = "OOM doctor (each remedy applied alone and re-estimated; best first):\n";
  for (const core::Remedy& r : remedies) {
    out += std::string(r.fits ? "  FITS  " : "        ") + Pad(r.title, 56) + " saves " +
           Pad(core::FormatBytesBoth(r.saving_bytes), 26) + " -> " + core::FormatBytesBoth(r.peak_bytes) + "\n";
    std::string flags = "--" + r.change;
    for (size_t at = flags.find(", "); at != std::string::npos; at = flags.find(", ", at)) flags.replace(at, 2, " --");
    out += "        " + flags + (r.changes_workload ? "  (changes the workload)" : "") + "; cost: " + r.tradeoff + "\n";
  }
  return out;
}

}  // namespace llmmem::cli
