// Seed 002's view of a layer stack, computed directly:
//   memory = model memory + batch size x per-sample memory
// model memory: weights, buffers, gradients and optimizer states (independent of the input),
// BatchNorm's per-channel statistics, the CUDA context; per-sample memory: what one sample
// adds (training: every tensor autograd keeps for backward, the loss's; inference: the most
// bytes alive at once), and the largest batch that fits the card.
// Sources: seed 002 ("显存占用 = 模型显存占用 + batch_size × 每个样本的显存占用"; SGD 2x,
// momentum 3x, Adam 4x the weights); PyTorch's torch.optim state (momentum_buffer; exp_avg,
// exp_avg_sq, and a 0-dim fp32 step per tensor kept on the CPU unless capturable/fused),
// measured in tests/truth/measure_cnn.py.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/network/layer_stack.h"

namespace llmmem::core {

struct NetworkEstimateInput {
  NetworkSettings settings;
  int64_t batch = 32;
  Optimizer optimizer = Optimizer::kSgdMomentum;
  double cuda_context_gb = 1.3;              // seed 002: ~1.3 GB
  double fragmentation_pct = 5;              // allocator reserve, % of the allocated bytes
  double gpu_memory_bytes = 85.520809984e9;  // what the card reports (H100 80 GB: 81559 MiB)
};

struct NetworkTerm {
  std::string id;  // "weights", "gradients", "optimizer", "activations", ...
  std::string label;
  double bytes = 0;         // on the GPU, for the whole batch
  bool per_sample = false;  // grows with the batch
  std::string formula;      // with the values substituted
};

struct NetworkEstimate {
  bool ok = false;
  Diagnostics diagnostics;
  NetworkAnalysis analysis;
  int64_t batch = 0;
  double model_bytes = 0;       // everything that does not grow with the batch (context included)
  double per_sample_bytes = 0;  // what one more sample adds (before fragmentation)
  double total_bytes = 0;       // model + batch x per-sample, fragmentation included
  double host_bytes = 0;        // kept in CPU memory (Adam's step tensors)
  double gpu_bytes = 0;
  bool fits = false;
  int64_t max_batch = 0;  // the largest batch that fits (0: not even one sample)
  std::vector<NetworkTerm> terms;
};

// Bounded, pure; diagnostics name the field (batch, optimizer, dtype, network).
NetworkEstimate EstimateNetwork(const NetworkSpec& spec, const NetworkEstimateInput& in);

// Optimizer state bytes for P trainable parameters of `elem` bytes in T tensors, on the GPU
// (and on the host: Adam's step tensors).
struct OptimizerStateBytes {
  double gpu = 0, host = 0;
  std::string formula;
};
OptimizerStateBytes NetworkOptimizerState(Optimizer o, double trainable_params, int trainable_tensors, double elem);

}  // namespace llmmem::core
