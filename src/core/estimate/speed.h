// Speed beside memory (issue 16 part 4), a roofline with every assumption stated and
// adjustable (bw_efficiency, mfu, bandwidth_gbps, tflops, ram_bandwidth_gbps):
//  - decode: each step reads this GPU's weights (MoE: the experts the batch touches) and
//    every sequence's KV cache; time = bytes / (bandwidth x bw_efficiency), or the FLOPs
//    over peak x mfu when larger. Tokens/s per sequence and for the batch.
//  - prefill: 2 x active parameters + causal attention (2 x 2 x L x s/2 x heads x head_dim)
//    FLOPs per token over peak x mfu; time to first token for a prompt of seq tokens.
//  - training: 6N per token (LoRA: 4N, the frozen weights get no gradient) plus attention
//    12 L h s (PaLM, Chowdhery et al. 2022, appendix B), full recompute one more forward
//    (2N + 4 L h s); step time over every GPU's peak x mfu; tokens/s.
// The layers llama.cpp keeps on the CPU run at system-RAM bandwidth. Standard library only.
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/base/report_line.h"

namespace llmmem::core {

using SpeedLine = ReportLine;

struct SpeedEstimate {
  bool ok = false;
  std::string why_not;         // no bandwidth or peak known for this GPU, or errors
  double bandwidth = 0;        // bytes/s of one GPU, before efficiency
  double peak_flops = 0;       // FLOP/s of one GPU, before mfu
  const char* peak_kind = "";  // "bf16", "fp8", "int8"
  bool training = false;
  // Inference.
  double weight_bytes_step = 0;  // per GPU per decode step
  double kv_bytes_step = 0;
  double cpu_bytes_step = 0;  // llama.cpp: layers on the CPU, read from RAM
  double decode_step_s = 0;
  bool decode_compute_bound = false;
  double decode_tokens_s = 0;  // per sequence
  double batch_tokens_s = 0;   // all sequences together
  double prefill_flops_token = 0;
  double prefill_tokens_s = 0;
  double ttft_s = 0;  // a prompt of seq tokens
  // Training.
  double step_flops = 0;  // whole step, all GPUs
  double step_s = 0;
  double train_tokens_s = 0;
  std::vector<SpeedLine> lines;  // the figures and the assumptions, in words
};

SpeedEstimate EstimateSpeed(const Config& c);

}  // namespace llmmem::core
