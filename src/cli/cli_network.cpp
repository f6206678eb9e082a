// The layer-stack command: flags -> a request JSON (core/network_request.h) -> the estimate,
// printed as seed 002's view (model memory, per-sample memory, model + batch x per-sample,
// the batch that fits) with the largest layers, or every layer, or JSON.
#include "cli/cli_network.h"

#include <algorithm>
#include <iostream>

#include "core/network/layer_stack_account.h"
#include "core/network/network_json.h"
#include "core/network/network_request.h"
#include "core/parse/number_text.h"
#include "core/base/units.h"

namespace llmmem::cli {
namespace {

using core::FormatBytes;
using core::FormatCount;
using core::FormatNumber;
using core::Json;
using core::UnitSystem;

std::string Pad(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// MB with enough digits that small terms (a loss of a few KB) do not read as zero.
std::string Mb(double bytes) {
  if (bytes == 0) return "0";
  return FormatNumber(bytes / 1e6, bytes < 1e4 ? 5 : bytes < 1e6 ? 3 : 2);
}

std::string Help() {
  using core::IdList;
  const std::string dtypes = IdList<core::Dtype>("|", core::IsPlainFloatRow, "|");
  const std::string optimizers = IdList<core::Optimizer>("|", core::LayerStackOptimizer, "|");
  const std::string profiles = IdList<core::TorchProfile>("|", nullptr, "|");
  const std::string kernels = IdList<core::AttentionKernel>("|", nullptr, "|");
  return "llmmem: any network, layer by layer (seed 002: memory = model + batch x per-sample)\n"
         "\n"
         "  llmmem --model resnet50 --image-size 224 --batch 64\n"
         "  llmmem --network stack.json --batch 32 --mode infer\n"
         "  llmmem --torch-repr model.txt --image-size 224 --layers\n"
         "\n"
         "  --model KEY          a torchvision preset (--list-networks)\n"
         "  --network FILE       a layer-stack JSON file (format: src/core/network/network_json.h)\n"
         "  --torch-repr FILE    the text print(model) shows (PyTorch's module repr)\n"
         "  --image-size N|HxW   input height and width (default: the preset's)\n"
         "  --channels C         input channels (default 3)\n"
         "  --input C,H,W        the whole input per sample (1 to 4 sizes; token ids: L)\n"
         "  --batch N            samples per step (default 32)\n"
         "  --mode train|infer   train(): autograd keeps tensors; infer: eval() under no_grad\n"
         "  --dtype " +
         dtypes +
         "   parameters and activations (default fp32)\n"
         "  --optimizer " +
         optimizers +
         "   (default momentum)\n"
         "  --profile " +
         profiles +
         "   whose PyTorch keeps the tensors (default torch2-cuda;\n"
         "                       torch1.13-cpu is what tests/truth measured)\n"
         "  --attention " +
         kernels +
         "   nn.MultiheadAttention's kernel (auto: fused on torch2-cuda)\n"
         "  --loss on|off        cross-entropy on the output (default on)\n"
         "  --gpu KEY | --gpu-memory-gb G   the card (llmmem --list-gpus; default H100-SXM-80GB)\n"
         "  --cuda-context-gb G  CUDA context (default 1.3, seed 002)\n"
         "  --fragmentation-pct P  allocator reserve (default 5)\n"
         "  --layers             every layer: shape, parameters, feature map, kept for backward\n"
         "  --top N              the N layers that keep the most (default 10)\n"
         "  --json               the whole result as JSON (the JS API's estimateNetwork gives the same)\n"
         "  --list-networks      the presets with their parameter counts\n"
         "Exit status: 0 fits, 1 does not fit, 2 bad input.\n";
}

std::string ListNetworks() {
  std::string out = Pad("key", 28) + Pad("parameters", 14, true) + "  " + Pad("input", 12) + "name\n";
  for (const core::NetworkPreset& p : core::NetworkPresets()) {
    std::string in;
    for (int64_t d : p.spec.input) in += (in.empty() ? "" : "x") + std::to_string(d);
    out +=
        Pad(p.key, 28) + Pad(FormatCount(p.spec.published_params), 14, true) + "  " + Pad(in, 12) + p.spec.name + "\n";
  }
  return out;
}

std::string Render(const core::NetworkRequest& r, const core::NetworkEstimate& e, bool all_layers, int top) {
  const core::NetworkAnalysis& a = e.analysis;
  const core::NetworkEstimateInput& in = r.input;
  std::string out;
  out += "Network: " + (r.spec.name.empty() ? std::string("custom") : r.spec.name) + " (" + r.source + "), " +
         FormatCount(a.params) + " parameters, input " + a.input.ToString() + " -> output " + a.output.ToString() +
         "\n";
  out += std::string("Workload: ") + (in.settings.training ? "training" : "inference") + ", batch " +
         std::to_string(in.batch) + ", " + core::Info(in.settings.dtype).id +
         (in.settings.training ? std::string(", ") + core::Id(in.optimizer) : std::string()) + ", profile " +
         core::Id(in.settings.profile) + "\n\n";
  out += Pad("", 40) + Pad("MB", 12, true) + "\n";
  out += "Model memory (whatever the batch)\n";
  for (const core::NetworkTerm& t : e.terms) {
    if (t.per_sample) continue;
    out += Pad("  " + t.label, 40) + Pad(Mb(t.bytes), 12, true) + "   " + t.formula + "\n";
  }
  out += Pad("  = model memory", 40) + Pad(Mb(e.model_bytes), 12, true) + "\n";
  out += "Per-sample memory\n";
  if (in.settings.training) {
    out += Pad("  kept for backward", 40) + Pad(Mb(a.saved_bytes), 12, true) +
           "   every tensor autograd keeps, once per storage\n";
    if (a.loss_bytes > 0)
      out += Pad("  loss", 40) + Pad(Mb(a.loss_bytes), 12, true) + "   log-probabilities and int64 targets\n";
    if (a.output_held_bytes > 0) out += Pad("  output", 40) + Pad(Mb(a.output_held_bytes), 12, true) + "\n";
    if (a.input_held_bytes > 0) out += Pad("  input", 40) + Pad(Mb(a.input_held_bytes), 12, true) + "\n";
    out += Pad("  (seed 002's sum of feature maps)", 40) + Pad("(" + Mb(a.feature_map_bytes) + ")", 12, true) +
           "   every layer's new output summed, for comparison\n";
  } else {
    out += Pad("  most alive at once", 40) + Pad(Mb(a.inference_peak_bytes), 12, true) + "   eval() under no_grad\n";
  }
  out += Pad("  = per-sample memory", 40) + Pad(Mb(e.per_sample_bytes), 12, true) + "\n\n";
  out += "memory = model + batch x per-sample = " + FormatBytes(e.model_bytes, UnitSystem::kDecimal) + " + " +
         std::to_string(in.batch) + " x " + FormatBytes(e.per_sample_bytes, UnitSystem::kDecimal) +
         (in.fragmentation_pct > 0 ? " (+" + FormatNumber(in.fragmentation_pct, 1) + "% on the allocated)" : "") +
         " = " + core::FormatBytesBoth(e.total_bytes) + "\n";
  out += (e.fits ? "FITS " : "DOES NOT FIT ") + (r.gpu.empty() ? std::string("the GPU") : r.gpu) + " (" +
         core::FormatBytesBoth(e.gpu_bytes) + "); the largest batch that fits: " + std::to_string(e.max_batch) + "\n";
  if (e.host_bytes > 0) out += "On the CPU: " + FormatNumber(e.host_bytes, 0) + " B of optimizer step counters\n";

  // Layers: all of them, or the ones that keep the most.
  std::vector<size_t> order(a.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!all_layers) {
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return a.rows[x].saved_bytes + a.rows[x].feature_map_bytes > a.rows[y].saved_bytes + a.rows[y].feature_map_bytes;
    });
    if (order.size() > static_cast<size_t>(top)) order.resize(static_cast<size_t>(top));
  }
  out += all_layers ? "\nEvery layer (per sample; MB)\n"
                    : "\nThe layers that keep the most (per sample; MB; --layers for all)\n";
  out += Pad("layer", 44) + Pad("type", 20) + Pad("output", 16) + Pad("params", 13, true) +
         Pad("feature map", 13, true) + Pad(in.settings.training ? "kept" : "scratch", 10, true) + "  kept what\n";
  for (size_t i : order) {
    const core::LayerRow& row = a.rows[i];
    const std::string name = std::string(all_layers ? static_cast<size_t>(row.depth) * 2 : 0, ' ') + row.name;
    out += Pad(name, 44) + Pad(core::Info(row.kind).id, 20) + Pad(row.out.ToString(), 16) +
           Pad(row.params ? FormatCount(row.params) : "", 13, true) +
           Pad(row.feature_map_bytes ? Mb(row.feature_map_bytes) : "", 13, true) +
           Pad(in.settings.training ? (row.saved_bytes ? Mb(row.saved_bytes) : "")
                                    : (row.workspace_bytes ? Mb(row.workspace_bytes) : ""),
               10, true) +
           "  " + (in.settings.training ? row.saved_what : "") + (row.shared_bytes > 0 ? " (shared)" : "") + "\n";
  }
  const auto diffs = core::ProfileDifferences(r.spec, in.settings);
  if (in.settings.training && !diffs.empty()) {
    out += "\nWhere PyTorch versions and devices differ (per sample, torch 1.13 CPU minus PyTorch 2.x CUDA):\n";
    for (const core::ProfileDifference& d : diffs) {
      out += "  " + FormatNumber(d.bytes_per_sample / 1e6, 3) + " MB per sample";
      if (d.bytes_per_step != 0) out += ", " + FormatNumber(d.bytes_per_step / 1e6, 3) + " MB per step";
      out += ": " + d.what + "\n";
    }
  }
  for (const std::string& n : a.notes) out += "Note: " + n + "\n";
  out += "(MB = 1e6 bytes, GB = 1e9 bytes, GiB = 2^30 bytes)\n";
  return out;
}

}  // namespace

bool IsNetworkCommand(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--network" || a == "--torch-repr" || a == "--list-networks" || a == "--image-size" ||
        a == "--network-help" || a.rfind("--network=", 0) == 0 || a.rfind("--torch-repr=", 0) == 0 ||
        a.rfind("--image-size=", 0) == 0)
      return true;
    if (a == "--model" && i + 1 < args.size() && core::FindNetworkPreset(args[i + 1]) != nullptr) return true;
    if (a.rfind("--model=", 0) == 0 && core::FindNetworkPreset(a.substr(8)) != nullptr) return true;
  }
  return false;
}

int RunNetworkCommand(const std::vector<std::string>& args, const ReadFileFn& read_network,
                      const ReadFileFn& read_repr) {
  Json req(Json::Object{});
  bool json = false, layers = false;
  int top = 10;
  auto fail = [](const std::string& msg) {
    std::cerr << "llmmem: error: " << msg << "\nllmmem: see llmmem --network-help for the flags\n";
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    bool has_value = false;
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    if (a == "--help" || a == "-h" || a == "--network-help") {
      std::cout << Help();
      return 0;
    }
    if (a == "--list-networks") {
      std::cout << ListNetworks();
      return 0;
    }
    if (a == "--json") {
      json = true;
      continue;
    }
    if (a == "--layers") {
      layers = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) return fail("unexpected argument \"" + a + "\"");
    if (!has_value) {
      if (i + 1 >= args.size()) return fail(a + " needs a value");
      value = args[++i];
    }
    std::string key = a.substr(2);
    std::replace(key.begin(), key.end(), '-', '_');
    if (key == "top") {
      int64_t n = 0;
      if (!core::ParseInt(value, n).empty() || n < 1 || n > 10000) return fail("--top must be between 1 and 10000");
      top = static_cast<int>(n);
      continue;
    }
    if (key == "network" || key == "torch_repr") {
      std::string error;
      const std::optional<std::string> text = (key == "network" ? read_network : read_repr)(value, error);
      if (!text) return fail("--" + a.substr(2) + " " + value + ": " + error);
      if (key == "network") {
        const core::JsonParseResult p = core::ParseJson(*text, core::NetworkJsonLimits());
        if (!p.ok) return fail("--network " + value + " is not valid JSON: " + p.error);
        req[key] = p.value;
      } else {
        req[key] = *text;
      }
      continue;
    }
    if (key == "input") {
      Json::Array dims;
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = value.find_first_of(",x", start);
        const std::string part = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        double d = 0;
        if (!core::ParseNumber(part, d).empty()) return fail("--input must be sizes such as 3,224,224, not \"" + value + "\"");
        dims.push_back(Json(d));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      req[key] = Json(dims);
      continue;
    }
    bool known = false;
    for (const char* const* k = core::kNetworkRequestKeys; *k; ++k) known |= key == *k;
    if (!known) return fail("unknown flag " + a + " for a layer stack (llmmem --network-help lists them)");
    req[key] = value;
  }
  const core::NetworkRequest r = core::NetworkRequestFromJson(req);
  core::NetworkEstimate e;
  if (r.ok) e = core::EstimateNetwork(r.spec, r.input);
  if (json) {
    std::cout << core::NetworkResultToJson(r, e).Dump(2) << "\n";
    if (!r.ok || !e.ok) return 2;
    return e.fits ? 0 : 1;
  }
  bool errors = false;
  for (const core::Diagnostics* list : {&r.diagnostics, static_cast<const core::Diagnostics*>(&e.diagnostics)}) {
    for (const core::Diagnostic& d : *list) {
      errors |= d.severity == core::Severity::kError;
      std::cerr << "llmmem: " << core::SeverityName(d.severity) << ": " << d.message << "\n";
    }
  }
  if (errors || !r.ok || !e.ok) return 2;
  std::cout << Render(r, e, layers, top);
  return e.fits ? 0 : 1;
}

}  // namespace llmmem::cli
