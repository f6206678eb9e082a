// The estimate: per-GPU peak memory, itemised. Two entry points share one accounting
// (account.h), so the numbers cannot drift apart:
//  - EstimateTotals: the numeric fast path (no allocation, no strings) for charts,
//    the fit map and the solver, which run it tens of thousands of times a frame;
//  - Explain: the same accounting with the breakdown tree, formulas and sources.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/not_counted.h"
#include "core/base/diagnostics.h"
#include "core/base/phrase.h"
#include "core/model/model.h"

namespace llmmem::core {

// The moments whose live tensors the total may describe; the peak is the largest.
//  kForwardEnd: end of forward / start of backward: weights, gradients kept across
//               micro-batches, optimizer states and every saved activation.
//  kOptimizerStep: the update: model states plus the step's temporaries (DeepSpeed's
//               fp32 gradient copy), activations already freed.
//  kGeneration: RLHF rollout: the generation engine's weights and KV cache, no
//               training activations (equal to the persistent states otherwise).
//  kLayerBackward: a layer's backward, after the loss's: the loss's tensors and the
//               output side's saved tensors are freed, the head's gradient exists, and
//               under full recompute one layer is re-created. Measured on an H200 (torch
//               2.11, transformers 5.17): the loss-gradient transient and the recomputed
//               layer never coexist (tests/truth/GPU.md).
enum class Moment : uint8_t { kForwardEnd = 0, kOptimizerStep = 1, kGeneration = 2, kLayerBackward = 3 };
constexpr int kMomentCount = 4;
// Where a tensor lives: the GPU total counts only kGpu; offloaded bytes are reported apart.
enum class Device : uint8_t { kGpu, kCpu, kNvme };
const char* DeviceId(Device d);    // "gpu", "cpu", "nvme" (JSON, CSV)
const char* DeviceName(Device d);  // "GPU", "CPU", "NVMe"
const char* MomentName(Moment m);
const char* MomentId(Moment m);  // "forward_end", "optimizer_step", "generation", "layer_backward" (JSON)

enum class Category : uint8_t {
  kWeights,
  kGradients,
  kMasterWeights,
  kOptimizerStates,
  kActivations,
  kKvCache,
  kBuffers,
  kOverheads,
  kCount
};
constexpr int kCategoryCount = static_cast<int>(Category::kCount);
const char* CategoryId(Category c);
const char* CategoryName(Category c);

// What the verdict says (issue 28: no confident answer that is wrong). "Fits" needs every
// part of the memory counted and every memory the placement uses (the GPU's, and the host
// RAM set with ram_gb) large enough:
//  kFits:       all counted, within the GPU's capacity and the RAM set;
//  kDoesNotFit: the counted total exceeds the capacity, or the host RAM set is short
//               (also when the configuration has errors: no estimate);
//  kIncomplete: what is counted fits, but a part of the memory is unknown (NotCounted).
enum class Verdict : uint8_t { kFits, kDoesNotFit, kIncomplete };
const char* VerdictId(Verdict v);  // "fits", "does_not_fit", "incomplete" (JSON, CLI)

struct Totals {
  bool ok = false;  // false when the config has errors (see Validate)
  Moment peak_moment = Moment::kForwardEnd;
  double peak_bytes = 0;  // per GPU, at peak_moment
  double moment_bytes[kMomentCount] = {0, 0, 0, 0};
  double category_bytes[kCategoryCount] = {};  // at peak_moment
  double cpu_bytes = 0;                        // offloaded to host RAM (per GPU's share), largest over the moments
  double nvme_bytes = 0;                       // offloaded to NVMe (per GPU's share)
  double capacity_bytes = 0;     // CapacityBytes: gpu_memory_gb * 1e9 in whole bytes (vLLM/SGLang: their share)
  int64_t gpus = 1;              // dp x tp x pp x cp
  int pipeline_stage = 0;        // the most loaded stage (0-based), which the total describes
  int64_t params = 0;            // the model's parameters (params_override when given)
  int64_t active_params = 0;     // per token (MoE: top-k experts); == params when dense
  int64_t trainable_params = 0;  // full model, LoRA adapters, or 0 for inference
  double quick_rule_bytes = 0;   // inference rule of thumb P * (Q/8) * 1.2 (seed 002)
  // The three figures people measure, at the peak: what PyTorch's allocator hands out
  // (torch.cuda.max_memory_allocated), what it holds (max_memory_reserved: plus the
  // fragmentation reserve), and what nvidia-smi shows (peak_bytes: plus the CUDA context
  // and communication buffers outside the allocator).
  double allocated_bytes = 0;
  double reserved_bytes = 0;
  // In reserved_bytes, not in peak_bytes: the 16-bit logits' block the allocator keeps cached
  // while the loss's backward takes a new segment (LossCachedBytes, account_model_ends.h).
  double loss_cached_bytes = 0;
  double nvidia_smi_bytes = 0;  // peak_bytes plus what reserved_bytes holds beyond the peak's margin
  // The verdict's other inputs: the parts not counted (NotCounted bits), and the host RAM the
  // placement needs (llama.cpp/Ollama: mmapped weights, CPU KV, host buffers; offload: this
  // GPU's share) against ram_gb (0: not checked).
  uint8_t not_counted = 0;
  double host_bytes = 0;
  bool host_short = false;

  // The counted total within the GPU's capacity (the solvers' question).
  bool GpuHolds() const { return ok && peak_bytes <= capacity_bytes; }
  Verdict Judge() const {
    if (!GpuHolds() || host_short) return Verdict::kDoesNotFit;
    return not_counted != 0 ? Verdict::kIncomplete : Verdict::kFits;
  }
  bool Fits() const { return Judge() == Verdict::kFits; }
  double Headroom() const { return capacity_bytes - peak_bytes; }  // negative: over by
};

// One row of the breakdown tree.
struct BreakdownNode {
  std::string id;    // stable dotted path: "model_states.optimizer.adam_m"
  std::string name;  // "Adam first moment m"
  Category category = Category::kOverheads;
  // Where the node lives: a leaf's tensors, or a group whose children all live on one
  // device off the GPU. `bytes` and `moment_bytes` are on that device: a GPU group's are the
  // sum of its GPU children (offloaded ones are not in the GPU figures above them).
  Device device = Device::kGpu;
  double bytes = 0;  // at the peak moment
  double moment_bytes[kMomentCount] = {0, 0, 0, 0};
  double cpu_bytes = 0;        // at the peak, held in CPU RAM by this node and below (the sum of its children's)
  double nvme_bytes = 0;       // at the peak, held on NVMe by this node and below
  double per_layer_bytes = 0;  // for per-layer tensors: one layer's bytes (A9)
  std::string formula;         // with the values substituted
  std::string source;          // paper, section, equation; seed document
  std::vector<BreakdownNode> children;

  const BreakdownNode* Find(const std::string& dotted_id) const;  // searches the subtree
};

struct Estimate {
  Totals totals;
  ParamCounts params;
  BreakdownNode tree;       // root "total"
  Diagnostics diagnostics;  // errors make totals.ok false
  std::string peak_note;    // which tensors coexist at the peak (and which pipeline stage), in words
  std::vector<Phrase> peak_phrases;  // the same sentences as phrases, for the UI to translate
  // How the allocator behaves around the peak, with where that is written (issue 32: "technical
  // detail behind the formula toggle"): the UI shows these with the formulas; the CLI and JSON
  // always. peak_note == Render(peak_phrases then peak_detail_phrases, " ").
  std::vector<Phrase> peak_detail_phrases;
  // With pipeline stages: the peaks of the first and the last stage; the figures are for
  // the larger (totals.pipeline_stage). Equal when pp == 1.
  double first_stage_peak_bytes = 0;
  double last_stage_peak_bytes = 0;
  std::string quick_rule_formula;
};

// The memory the verdict compares against: gpu_memory_gb in whole bytes; under vLLM or
// SGLang the share they may fill plus what lives outside it (serving.h ServingCapacityBytes).
double CapacityBytes(const Config& c);

Totals EstimateTotals(const Config& c);
Estimate Explain(const Config& c);

// The verdict in words, after "fits" / "does not fit": what is not counted and why, or which
// host memory is short; empty when the GPU's figures alone decide it.
std::string VerdictNote(const Config& c, const Totals& t);

}  // namespace llmmem::core
