// The card the text describes and the estimate beside what it observed:
//  - MatchGpus: catalogue cards by reported capacity (and nvidia-smi's name when pasted);
//  - ConfigForCard: the loaded configuration on that card, with what others held
//    (other_processes_gb) so the estimate accounts for a shared GPU;
//  - CompareWithEstimate: observed against estimated figures, and how far the run had got
//    (allocated against the estimated weights and optimizer states).
#include <algorithm>
#include <cmath>

#include "core/estimate/estimate.h"
#include "core/oom/oom_report.h"
#include "core/parse/text.h"
#include "core/base/units.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
namespace {

std::string S(double bytes) { return FormatTorchSize(bytes); }
std::string Gb(double bytes) { return FormatNumber(bytes / kGB, 2) + " GB"; }

std::vector<std::string> NameTokens(const std::string& text) {
  std::string s = AsciiLower(text);
  for (char& c : s)
    if (c == '-' || c == '_' || c == '/' || c == '(' || c == ')' || c == ',') c = ' ';
  std::vector<std::string> out;
  size_t p = 0;
  while (p < s.size() && out.size() < 16) {
    while (p < s.size() && s[p] == ' ') ++p;
    const size_t b = p;
    while (p < s.size() && s[p] != ' ') ++p;
    const std::string t = s.substr(b, p - b);
    if (!t.empty() && t != "nvidia" && t != "geforce" && t != "tesla" && t != "amd" && t != "instinct" &&
        t != "intel" && t != "rtx" && t != "...")
      out.push_back(t);
  }
  return out;
}

int NameScore(const std::vector<std::string>& hint, const Gpu& g) {
  if (hint.empty()) return 0;
  const std::vector<std::string> name = NameTokens(g.name + " " + g.key);
  int score = 0;
  for (const std::string& t : hint) score += std::find(name.begin(), name.end(), t) != name.end() ? 1 : 0;
  return score;
}

double ReportedBytes(const Gpu& g) { return g.UsableBytes(); }

}  // namespace

std::vector<GpuMatch> MatchGpus(double capacity_bytes, bool cuda_total, const std::string& name) {
  std::vector<GpuMatch> out;
  if (!(capacity_bytes > 0)) return out;
  const std::vector<std::string> hint = NameTokens(name);
  std::vector<int> scores;
  for (const Gpu& g : Gpus()) {
    const double b = ReportedBytes(g);
    const bool by_capacity = cuda_total ? capacity_bytes <= b * 1.005 && capacity_bytes >= b * 0.90
                                        : std::fabs(b - capacity_bytes) <= std::fmax(2.0 * 1048576.0, 0.002 * b);
    const int score = NameScore(hint, g);
    const bool by_name = score > 0 && std::fabs(b - capacity_bytes) <= 0.15 * b;
    if (!by_capacity && !by_name) continue;
    GpuMatch m;
    m.gpu = &g;
    m.gap_bytes = b - capacity_bytes;
    m.why = by_capacity && score > 0 ? "name and capacity" : by_capacity ? "capacity" : "name";
    out.push_back(m);
    scores.push_back(score);
  }
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  StableSort(order, [&](size_t a, size_t b) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
    return std::fabs(out[a].gap_bytes) < std::fabs(out[b].gap_bytes);
  });
  std::vector<GpuMatch> sorted;
  for (size_t i = 0; i < order.size() && sorted.size() < 6; ++i) sorted.push_back(out[order[i]]);
  return sorted;
}

double HeldElsewhereBytes(const Observation& o, double context_bytes) {
  if (!o.capacity.Known() || !o.free.Known()) return 0;
  double held = 0;
  if (o.process_total.Known()) {
    held = o.capacity.bytes - o.free.bytes - o.process_total.bytes;
  } else if (o.reserved.Known()) {
    held = o.capacity.bytes - o.free.bytes - o.reserved.bytes - std::fmax(context_bytes, 0.0);
  } else if (o.used.Known()) {  // nvidia-smi: everything in use is someone's
    held = o.used.bytes;
  }
  return std::fmax(held, 0.0);
}

Config ConfigForCard(const Config& base, const Observation& o, const std::vector<GpuMatch>& matches) {
  Config c = base;
  if (!matches.empty()) {
    SelectGpu(c, *matches.front().gpu);
  } else if (o.capacity.Known()) {
    c.gpu = "custom";
    c.gpu_memory_gb = std::round(o.capacity.bytes / kGB * 1000.0) / 1000.0;
  }
  if (o.IsOom()) {
    const double held = HeldElsewhereBytes(o, base.cuda_context_gb * kGB);
    c.other_processes_gb = std::round(held / kGB * 100.0) / 100.0;
  }
  return c;
}

Comparison CompareWithEstimate(const Observation& o, const Config& c) {
  Comparison cmp;
  const Totals t = EstimateTotals(c);
  if (!t.ok || !o.IsOom() || !o.allocated.Known()) return cmp;
  cmp.available = true;
  auto cat = [&](Category k) { return t.category_bytes[static_cast<int>(k)]; };
  const double W = cat(Category::kWeights), G = cat(Category::kGradients), M = cat(Category::kMasterWeights),
               O = cat(Category::kOptimizerStates), Act = cat(Category::kActivations), KV = cat(Category::kKvCache);
  const double A = o.allocated.bytes;
  const double context = (c.cuda_context_gb + c.comm_buffer_gb) * kGB;
  auto row = [&](std::string label, double observed, double estimated, std::string note) {
    cmp.rows.push_back({std::move(label), observed, estimated, std::move(note)});
  };
  row("Allocated by PyTorch", A, t.allocated_bytes,
      "observed at the failure; estimated: the peak (max_memory_allocated)");
  row("Reserved by PyTorch", o.reserved.Known() ? o.reserved.bytes : -1, t.reserved_bytes,
      "estimated: allocated + the fragmentation reserve (" + FormatNumber(c.fragmentation_pct) + "%)");
  row("This process on the GPU", o.process_total.Known() ? o.process_total.bytes : -1,
      t.peak_bytes - c.other_processes_gb * kGB, "nvidia-smi's view: reserved + CUDA context and buffers");
  row("This process outside PyTorch",
      o.process_total.Known() && o.reserved.Known() ? std::fmax(0.0, o.process_total.bytes - o.reserved.bytes) : -1,
      context, "CUDA context and communication buffers (cuda_context_gb + comm_buffer_gb)");
  row("Weights", -1, W, "");
  if (c.mode != Mode::kInference)
    row("Gradients, master weights, optimizer states", -1, G + M + O, "created by the first backward and step");
  row(c.mode == Mode::kInference ? "KV cache and activations" : "Activations", -1,
      c.mode == Mode::kInference ? KV + Act : Act, "");
  row("Held by other processes", HeldElsewhereBytes(o, c.cuda_context_gb * kGB), c.other_processes_gb * kGB,
      "observed: what the text shows outside this process");
  row("Capacity", o.capacity.Known() ? o.capacity.bytes : -1, t.capacity_bytes,
      "the message's total is what CUDA reports; the catalogue's is nvidia-smi's (the driver's share included)");

  // How far the run had got: allocated against what exists at each point of a step.
  const double pct = W > 0 ? 100.0 * A / W : 0;
  if (A < 0.9 * W) {
    cmp.stage = "While loading the weights: PyTorch had allocated " + S(A) + ", " + FormatNumber(pct, 0) +
                "% of the estimated " + S(W) + " of weights.";
  } else if (c.mode == Mode::kInference) {
    cmp.stage = A < W + 0.5 * (KV + Act) ? "After loading the weights (" + S(W) +
                                               "), while allocating the KV cache or the prefill's "
                                               "activations: " +
                                               S(A - W) + " of the estimated " + S(KV + Act) + "."
                                         : "During prefill or generation: " + S(A) +
                                               " allocated against an estimated peak of " + S(t.allocated_bytes) + ".";
  } else if (A < W + 0.5 * (G + M + O) + Act) {
    cmp.stage = "In the first forward or backward pass, before the first optimizer step: the weights (" + S(W) +
                ") were in, " + S(A - W) + " more was allocated (the forward's activations are estimated at " + S(Act) +
                ", the gradients at " + S(G) + "), and the optimizer states (" + S(O + M) + ") did not exist yet.";
  } else {
    cmp.stage = "At or after the first optimizer step: " + S(A) +
                " allocated is past the weights, gradients and "
                "optimizer states (" +
                S(W + G + M + O) + "); the failure came in a later forward, backward or step.";
  }

  if (A > 1.05 * t.allocated_bytes + 256.0 * 1048576.0) {
    cmp.differences.push_back("PyTorch had allocated " + S(A) + ", more than the estimate's whole peak (" +
                              S(t.allocated_bytes) +
                              "): the run holds something the configuration does not describe: "
                              "a larger batch or sequence than set, a second model in the process (a reference or "
                              "evaluation copy), logits kept for metrics (metrics_logits), or another precision.");
  } else if (o.request.Known() && A + o.request.bytes > 1.05 * t.allocated_bytes + 256.0 * 1048576.0) {
    cmp.differences.push_back("The failing step wanted " + S(A + o.request.bytes) + " (" + S(A) + " + " +
                              S(o.request.bytes) + "), more than the estimate's peak of " + S(t.allocated_bytes) +
                              ": the step that failed holds more than the configuration describes.");
  }
  if (o.process_total.Known() && o.reserved.Known()) {
    const double outside = o.process_total.bytes - o.reserved.bytes;
    if (std::fabs(outside - context) > 0.5 * kGB)
      cmp.differences.push_back("This process held " + S(std::fmax(outside, 0.0)) +
                                " outside PyTorch; the configuration "
                                "assumes " +
                                Gb(context) + " (cuda_context_gb + comm_buffer_gb).");
  }
  return cmp;
}

}  // namespace llmmem::core
