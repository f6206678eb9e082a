// Remedies in seed 002's order of preference (it is the tie-break): drop metric logits,
// 16-bit training, FlashAttention, smaller micro-batch with accumulation, shorter context,
// ZeRO stages and offload, LoRA/QLoRA, recompute; then quantisation for inference and more
// GPUs (TP, data parallel with ZeRO-3).
#include "core/solve/doctor.h"

#include <algorithm>

#include "core/config/stacks.h"
#include "core/estimate/estimate.h"
#include "core/solve/fit.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
namespace {

class Builder {
 public:
  Builder(const Config& base, double base_peak, double capacity)
      : base_(base), base_peak_(base_peak), capacity_(capacity) {}

  // A remedy: `c` is the base with the remedy's settings. The settings still at the program's
  // defaults follow them (stacks.h FollowChanged), as they would in the program.
  void Add(const char* id, std::string title, std::string change, std::string tradeoff, Config c, bool workload) {
    FollowChanged(c, base_);
    const Totals t = EstimateTotals(c);
    if (!t.ok || t.peak_bytes >= base_peak_) return;
    Remedy r;
    r.id = id;
    r.title = std::move(title);
    r.change = std::move(change);
    r.tradeoff = std::move(tradeoff);
    r.config = std::move(c);
    r.peak_bytes = t.peak_bytes;
    r.saving_bytes = base_peak_ - t.peak_bytes;
    r.fits = t.peak_bytes <= capacity_;
    r.changes_workload = workload;
    list_.push_back(std::move(r));  // insertion order is the seed's preference: the tie-break
  }
  // Remedies that fit first, then those that keep the workload, then by saving.
  std::vector<Remedy> Sorted() {
    StableSort(list_, [](const Remedy& a, const Remedy& b) {
      if (a.fits != b.fits) return a.fits;
      if (a.changes_workload != b.changes_workload) return !a.changes_workload;
      return a.saving_bytes > b.saving_bytes;
    });
    return std::move(list_);
  }

 private:
  const Config& base_;
  double base_peak_;
  double capacity_;
  std::vector<Remedy> list_;
};

}  // namespace

std::vector<Remedy> Diagnose(const Config& c) {
  const Totals base = EstimateTotals(c);
  if (!base.ok) return {};
  const double capacity = base.capacity_bytes;
  Builder b(c, base.peak_bytes, capacity);
  const bool training = c.mode != Mode::kInference;

  if (c.metrics_logits) {
    Config x = c;
    x.metrics_logits = false;
    b.Add("metrics_logits", "Drop the compute_metrics logits", "metrics_logits=0",
          "compute metrics on the fly or on CPU", x, false);
  }
  if (training && c.dtype == Dtype::kFp32) {
    Config x = c;
    x.dtype = Dtype::kBf16;
    x.grad_dtype = Dtype::kBf16;
    b.Add("bf16", "Train in bf16 mixed precision", "dtype=bf16, grad_dtype=bf16",
          "V100 has no bf16: use fp16 with loss scaling", x, false);
  }
  if (Info(c.framework).eager_attention) {
    // Eager attention materialises the scores whatever flash_attn says.
    Config x = c;
    x.framework = Framework::kHfSdpa;
    x.flash_attn = true;
    b.Add("framework_sdpa", "Use SDPA attention instead of eager", "framework=hf-sdpa, flash_attn=1",
          "attn_implementation=\"sdpa\": no s x s tensors kept; also faster", x, false);
  } else if (!c.flash_attn) {
    Config x = c;
    x.flash_attn = true;
    b.Add("flash_attn", "Turn on FlashAttention", "flash_attn=1", "none: it is also faster", x, false);
  }
  if (training && IsHuggingFace(c.framework) && !Info(c.framework).liger_kernels) {
    Config x = c;
    x.framework = Framework::kLiger;
    x.flash_attn = true;
    b.Add("liger", "Use Liger kernels", "framework=liger",
          "fused linear cross-entropy keeps no logits; fused RMSNorm and SwiGLU keep less (use_liger_kernel=True)", x,
          false);
  }
  if (training && c.batch > 1) {
    Config x = c;
    x.batch = c.batch / 2;
    x.grad_accum = c.grad_accum * 2;
    b.Add("micro_batch", "Halve the micro-batch, double gradient accumulation",
          "batch=" + std::to_string(x.batch) + ", grad_accum=" + std::to_string(x.grad_accum),
          "same global batch; lower GPU utilisation", x, false);
  }
  if (c.seq > 512) {
    Config x = c;
    x.seq = c.seq / 2;
    b.Add("seq", "Halve the context length", "seq=" + std::to_string(x.seq),
          "shorter sequences: the model sees less context", x, true);
  }
  if (training && c.dp > 1 && c.zero < 3) {
    for (int z = c.zero + 1; z <= 3; ++z) {
      Config x = c;
      x.zero = z;
      b.Add(z == 1   ? "zero1"
            : z == 2 ? "zero2"
                     : "zero3",
            "Use ZeRO-" + std::to_string(z) + " over the " + std::to_string(c.dp) + " data-parallel GPUs",
            "zero=" + std::to_string(z),
            z == 3 ? "an all-gather of the weights per layer, forward and backward" : "more communication per step", x,
            false);
    }
  }
  if (training && c.offload_optimizer == Offload::kNone) {
    Config x = c;
    x.offload_optimizer = Offload::kCpu;
    b.Add("offload_optimizer", "Offload the optimizer to CPU (ZeRO-Offload)", "offload_optimizer=cpu",
          "the optimizer step runs on the CPU over PCIe: slower steps, needs host RAM", x, false);
  }
  if (c.mode == Mode::kTraining) {
    Config x = c;
    x.mode = Mode::kLora;
    b.Add("lora", "Fine-tune with LoRA instead", "mode=lora, lora_rank=" + std::to_string(x.lora_rank),
          "trains r(d_in + d_out) adapter parameters per matrix, not the whole model", x, true);
    x.mode = Mode::kQlora;
    b.Add("qlora", "Fine-tune with QLoRA instead", "mode=qlora",
          "a 4-bit NF4 base: slower and slightly less accurate than LoRA", x, true);
  }
  if (training && c.recompute != Recompute::kFull) {
    if (c.recompute == Recompute::kNone && !c.flash_attn) {
      Config x = c;
      x.recompute = Recompute::kSelective;
      b.Add("recompute_selective", "Selective activation recompute", "recompute=selective",
            "recomputes attention scores: a few % more compute", x, false);
    }
    Config x = c;
    x.recompute = Recompute::kFull;
    b.Add("recompute_full", "Full activation checkpointing", "recompute=full",
          "about 33% more compute (one extra forward)", x, false);
  }
  if (training && c.optimizer == Optimizer::kAdamW) {
    Config x = c;
    x.optimizer = Optimizer::kAdam8bit;
    b.Add("adam8bit", "Use 8-bit Adam", "optimizer=adam8bit", "block-wise quantised states; small accuracy risk", x,
          false);
  }
  if (!training) {
    const Dtype weights[] = {Dtype::kFp8, Dtype::kInt8, Dtype::kAwq, Dtype::kQ4_K_M};
    for (Dtype w : weights) {
      if (BitsPerWeight(w, c.quant) >= BitsPerWeight(c.dtype, c.quant)) continue;
      Config x = c;
      x.dtype = w;
      b.Add(Info(w).id, std::string("Quantise the weights to ") + Info(w).label, std::string("dtype=") + Info(w).id,
            "some quality loss; check the model's evaluations", x, true);
    }
    if (Info(c.kv_dtype).bits > 8) {
      Config x = c;
      x.kv_dtype = Dtype::kFp8;
      b.Add("kv_fp8", "Store the KV cache in FP8", "kv_dtype=fp8", "small quality loss on long contexts", x, false);
    }
    if (c.batch > 1) {
      Config x = c;
      x.batch = c.batch / 2;
      b.Add("batch", "Serve half as many sequences at once", "batch=" + std::to_string(x.batch), "lower throughput", x,
            false);
    }
  }
  // More GPUs.
  if (c.model.heads % (c.tp * 2) == 0 && c.tp < 8) {
    Config x = c;
    x.tp = c.tp * 2;
    x.sp = true;
    b.Add("tp", "Double tensor parallelism (with sequence parallelism)", "tp=" + std::to_string(x.tp) + ", sp=1",
          std::to_string(x.tp / c.tp) + "x the GPUs per replica, within one NVLink node", x, false);
  }
  if (training && c.dp == 1) {
    Config x = c;
    x.zero = 3;
    const FitGpus f = MinDataParallel(x, capacity);
    if (f.possible && f.min_dp > 1) {
      x.dp = f.min_dp;
      b.Add("zero3_gpus", "Shard with ZeRO-3 / FSDP over " + std::to_string(f.min_dp) + " GPUs",
            "dp=" + std::to_string(f.min_dp) + ", zero=3", "more GPUs and per-layer all-gathers", x, false);
    }
  }
  return b.Sorted();
}

}  // namespace llmmem::core
