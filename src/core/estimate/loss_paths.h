// The HF loss path per logit, by kernel and transformers version: what its forward and
// backward hold (HfLoss: the leaves of account_model_ends.h), and the same tensors in the
// order the caching allocator sees them (HfLossAllocations: what max_memory_reserved holds
// beyond them). Both describe one sequence; tests/test_caching_allocator.cpp checks they agree.
#pragma once

#include <algorithm>
#include <cstddef>

#include "core/config/config.h"
#include "core/estimate/activations_paper.h"
#include "core/estimate/caching_allocator.h"
#include "core/base/sources.h"

namespace llmmem::core::detail {

// Bytes per logit the HF loss holds (transformers loss/loss_utils.py ForCausalLMLoss;
// PyTorch's cross_entropy is log_softmax + nll_loss). Forward: the caller's logits (e), the
// fp32 upcast, the shifted copy (<= 4.48) and the log-probabilities. Backward: the log-probs
// with NllLossBackward0's and LogSoftmaxBackward0's outputs; an in-place kernel (Unsloth's
// Fast_CrossEntropyLoss) writes its gradient into its input and adds only the slice's.
struct HfLossWidths {
  double kept;       // saved for the backward: the log-probabilities, or the fused kernel's input
  double forward;    // alive while the cross-entropy's forward runs
  double backward;   // alive while the loss's backward runs
  double converted;  // alive while accelerate converts the model's outputs to fp32 (AMP), else 0
};

// PyTorch AMP runs cross_entropy in fp32 (it is on autocast's fp32 list: torch
// aten/src/ATen/autocast_mode.cpp, "CUDA Ops that can autocast to float32" in the AMP docs): a
// model whose own loss hands it 16-bit logits (GPTBigCode's CrossEntropyLoss on the shifted
// lm_logits) gets an fp32 cast of them inside the call and fp32 log-probabilities. A custom
// Function (Unsloth's kernel) is not cast.
inline bool AutocastUpcastsLoss(const Config& c) {
  return Autocast(c) && c.loss_kernel == LossKernel::kTorch && !c.loss_logits_fp32;
}

// accelerate's prepare_model under AMP wraps the forward in ConvertOutputsToFp32
// (accelerate v1.0.1 src/accelerate/accelerator.py prepare_model, utils/operations.py
// convert_to_fp32): the model's 16-bit logits get an fp32 copy after the forward returns,
// while the returned logits and what the loss keeps are still alive; the HF Trainer holds the
// copy until compute_loss returns. torchtune and torchtitan run no autocast.
inline bool AccelerateConvertsOutputs(const Config& c, double e) {
  const bool hf_trainer = c.loss_kernel == LossKernel::kTorch || c.loss_kernel == LossKernel::kInplace;
  return Autocast(c) && hf_trainer && e < 4;
}

inline constexpr double kChunks = 8;  // CEWithChunkedOutputLoss's num_output_chunks default

inline HfLossWidths HfLoss(const Config& c, double e) {
  // Under AMP a 16-bit loss input is shifted first, then cast inside cross_entropy.
  const bool amp = AutocastUpcastsLoss(c);
  const double f = c.loss_logits_fp32 || amp ? 4.0 : e;  // the loss's format
  const double upcast = f > e ? f : 0.0;                 // .float() of fp32 logits is the same tensor
  const double shifted = c.loss_shift_copy ? (amp ? e : f) : 0.0;
  // accelerate's fp32 copy beside the returned logits and what the loss keeps (unless that is
  // the logits themselves: the in-place kernel on unshifted 16-bit logits).
  const bool converts = AccelerateConvertsOutputs(c, e);
  auto converted = [&](double kept_apart) { return converts ? e + 4 + kept_apart : 0.0; };
  if (c.loss_kernel == LossKernel::kTorch) return {f, e + upcast + shifted + f, 3 * f, converted(f)};
  // torch.distributed.tensor.parallel.loss_parallel (loss.py _log_softmax, and
  // _nll_loss_and_log_softmax_backward: (zeros + exp(log_probs)) * grad): the forward holds the
  // shifted logits and their exp, the backward the log-probs, the zeros, the exp and their sum.
  if (c.loss_kernel == LossKernel::kLossParallel) return {f, e + upcast + shifted + 2 * f, 4 * f, 0};
  // torchtune's CEWithChunkedOutputLoss (modules/loss/ce_chunked_output_loss.py@4fba6cd): the
  // head's output as kChunks bf16 chunks, each upcast in turn, every chunk's log-probs saved;
  // the recipe's `del logits` frees the chunks before backward, which runs chunk by chunk.
  if (c.loss_kernel == LossKernel::kChunked) return {f, e + f + upcast / kChunks, f + 2 * f / kChunks, 0};
  // The same loss with compile=True (training/_compile.py@1814feb compiles compute_cross_entropy):
  // each chunk's compiled graph keeps its 16-bit input and two fp32 numbers per row (measured:
  // tests/truth/measure_compiled_loss.py), and its backward writes one 16-bit chunk gradient.
  if (c.loss_kernel == LossKernel::kChunkedCompiled) return {e, e, e + e / kChunks, 0};
  return {f, e + upcast + shifted, std::max(f + shifted, upcast > 0 ? f + e : f),
          converted(upcast + shifted > 0 ? f : 0.0)};
}

// What the breakdown says of each loss path, kernel by kernel, beside HfLoss's widths: the kept
// tensor and the node keeping it, how it departs from the paper, the labels' row, and what the
// forward and backward hold beside the kept tensor.
struct HfLossText {
  const char* kept;
  const char* kept_node;
  const char* kept_note;
  const char* kept_source;
  const char* targets;  // the labels' row (the compiled loss adds each row's max and log-sum-exp)
  double targets_bytes;
  const char* targets_node;
  const char* forward;  // beside the kept tensor, while the forward runs
  const char* backward;
  const char* source;  // of the transient's row
};

inline HfLossText HfLossTexts(const Config& c) {
  const bool fp32 = c.loss_logits_fp32 || AutocastUpcastsLoss(c);
  const char* log_probs = fp32 ? "Log-probabilities (fp32)" : "Log-probabilities";
  const char* hf_source = c.loss_shift_copy ? src::kHfLossShift : src::kHfLoss;
  const char* labels = "Shifted labels (int64)";
  const char* hf_forward = "the model's logits, their fp32 upcast and the shifted copy, in the loss's forward";
  const char* torch_backward = "NllLossBackward0 output and LogSoftmaxBackward0 output";
  const char* upcast_note =
      AutocastUpcastsLoss(c)
          ? "autocast runs cross_entropy in fp32: it casts the 16-bit logits and keeps its fp32 log-softmax output"
          : "ForCausalLMLoss upcasts the logits (logits.float()); cross_entropy keeps its log-softmax output";
  switch (c.loss_kernel) {
    case LossKernel::kTorch:
      return {log_probs, "LogSoftmaxBackward0 (result)", upcast_note, src::kHfLoss,   labels,
              8,         "NllLossBackward0 (target)",    hf_forward,  torch_backward, hf_source};
    case LossKernel::kInplace:
      return {fp32 ? "Logits kept by the fused loss (fp32)" : "Logits kept by the fused loss",
              "Fast_CrossEntropyLoss (logits; the gradient is written into them)",
              "the fused kernel keeps only its input and the per-row logsumexp",
              src::kUnslothCe,
              labels,
              8,
              "Fast_CrossEntropyLoss (labels)",
              hf_forward,
              "the slice's gradient beside the in-place one, in the loss's backward",
              hf_source};
    case LossKernel::kLossParallel:
      return {log_probs,
              "LogSoftmaxBackward0 (result)",
              upcast_note,
              src::kLossParallel,
              labels,
              8,
              "NllLossBackward0 (target)",
              "the model's logits, their fp32 upcast, the shifted logits and their exp, in the loss's forward",
              "loss_parallel's fused backward: zeros with the targets' -1, exp(log-probs), their sum",
              src::kLossParallel};
    case LossKernel::kChunked:
      return {log_probs,
              "LogSoftmaxBackward0 (result)",
              "each chunk upcast in turn (logits.float()); cross_entropy keeps every chunk's log-softmax output",
              src::kTorchtuneChunkedCe,
              labels,
              8,
              "NllLossBackward0 (target)",
              "the head's 16-bit chunks and one chunk's fp32 upcast, in the loss's forward",
              torch_backward,
              src::kTorchtuneChunkedCe};
    case LossKernel::kChunkedCompiled:
      return {"Logit chunks kept by the compiled loss",
              "CompiledFunctionBackward (the chunk, row max and log-sum-exp)",
              "Inductor fuses each chunk's upcast and cross-entropy and recomputes the softmax in the backward",
              src::kTorchtuneCompiledCe,
              "Shifted labels (int64), row max and log-sum-exp (fp32)",
              16,
              "CompiledFunctionBackward (labels)",
              "the head's 16-bit chunks, in the loss's forward",
              "one chunk's 16-bit gradient beside the chunks not yet through their backward",
              src::kTorchtuneCompiledCe};
  }
  return {};
}

// The same tensors in the order the caching allocator sees them, for what it keeps reserved
// beyond them. Forward: the head's logits, the upcast, the shifted copy, the log-probabilities
// (loss_parallel: after the shifted logits and their exp); the loss returns (upcast and copy
// freed) and the caller drops its outputs before backward (transformers' Trainer.compute_loss,
// torchtitan's `del pred`). Backward: NllLossBackward0's and LogSoftmaxBackward0's outputs
// (loss_parallel: zeros, exp, their sum, the product), SliceBackward0's full-size gradient for
// the shift, then ToCopyBackward0's 16-bit one. An in-place kernel writes its gradient into
// its input.
// torchtune's chunked loss in the same terms: the chunks' logits, then chunk by chunk the upcast
// and the log-probs; backward in reverse, each chunk's two gradients and its 16-bit one, which
// the head's backward takes after every chunk's.
inline AllocatorPeaks ChunkedLossAllocations(bool fp32_logits, double e) {
  constexpr int8_t kN = static_cast<int8_t>(kChunks);
  constexpr int8_t kLogits = 0, kLogProbs = kN, kCastGrad = 2 * kN, kUpcast = 3 * kN, kNllGrad = kUpcast + 1,
                   kGrad = kUpcast + 2;
  const double f = fp32_logits ? 4.0 : e;
  const bool upcast = f > e;
  AllocatorStep steps[12 * kN];
  int k = 0;
  for (int8_t i = 0; i < kN; ++i) steps[k++] = {static_cast<int8_t>(kLogits + i), e / kN};
  for (int8_t i = 0; i < kN; ++i) {
    if (upcast) steps[k++] = {kUpcast, f / kN};
    steps[k++] = {static_cast<int8_t>(kLogProbs + i), f / kN};
    if (upcast) steps[k++] = {kUpcast, 0};
  }
  for (int8_t i = 0; i < kN; ++i) steps[k++] = {static_cast<int8_t>(kLogits + i), 0};  // `del logits`
  for (int8_t i = kN - 1; i >= 0; --i) {
    // The chunk's log-softmax gradient is what the head takes, unless it is cast back to 16 bits.
    const int8_t grad = upcast ? kGrad : static_cast<int8_t>(kCastGrad + i);
    steps[k++] = {kNllGrad, f / kN};
    steps[k++] = {grad, f / kN};
    steps[k++] = {kNllGrad, 0};
    steps[k++] = {static_cast<int8_t>(kLogProbs + i), 0};
    if (upcast) {
      steps[k++] = {static_cast<int8_t>(kCastGrad + i), e / kN};
      steps[k++] = {kGrad, 0};
    }
  }
  return SimulateCachingAllocator(steps, k);
}

// Compiled, each chunk's graph keeps its 16-bit input until its backward, which writes the
// chunk's 16-bit gradient; the head's backward takes them all after the last.
inline AllocatorPeaks CompiledChunkedLossAllocations(double e) {
  constexpr int8_t kN = static_cast<int8_t>(kChunks);
  AllocatorStep steps[4 * kN];
  int k = 0;
  for (int8_t i = 0; i < kN; ++i) steps[k++] = {i, e / kN};  // the head's chunks, kept by their graphs
  for (int8_t i = kN - 1; i >= 0; --i) {
    steps[k++] = {static_cast<int8_t>(kN + i), e / kN};  // the chunk's gradient
    steps[k++] = {i, 0};
  }
  for (int8_t i = 0; i < kN; ++i) steps[k++] = {static_cast<int8_t>(kN + i), 0};
  return SimulateCachingAllocator(steps, k);
}

// amp: autocast casts the (shifted) 16-bit input inside cross_entropy (AutocastUpcastsLoss);
// converted: accelerate copies the returned logits to fp32 after the forward (AccelerateConvertsOutputs).
inline AllocatorPeaks HfLossAllocations(bool fp32_logits, bool shift_copy, LossKernel kernel, double e, bool amp,
                                        bool converted) {
  if (kernel == LossKernel::kChunked) return ChunkedLossAllocations(fp32_logits, e);
  if (kernel == LossKernel::kChunkedCompiled) return CompiledChunkedLossAllocations(e);
  const double f = fp32_logits || amp ? 4.0 : e;
  const bool upcast = f > e, inplace = kernel == LossKernel::kInplace;
  enum : int8_t {
    kLogits, kUpcast, kShifted, kLogProbs, kTemp1, kTemp2, kTemp3, kGrad, kSliceGrad, kCastGrad, kConverted
  };
  AllocatorStep steps[28];
  int n = 0;
  auto alloc = [&](int8_t t, double size) { steps[n++] = {t, size}; };
  auto release = [&](int8_t t) { steps[n++] = {t, 0}; };
  alloc(kLogits, e);
  int8_t input = kLogits;  // what the cross-entropy reads
  if (amp) {               // the 16-bit shifted copy, then autocast's fp32 cast of it
    if (shift_copy) alloc(input = kShifted, e);
    if (upcast) alloc(input = kUpcast, f);
  } else {
    if (upcast) alloc(input = kUpcast, f);
    if (shift_copy) alloc(input = kShifted, f);
  }
  if (kernel == LossKernel::kLossParallel) {
    alloc(kTemp1, f);  // x - max
    alloc(kTemp2, f);  // its exp, freed by the sum
    release(kTemp2);
    alloc(kLogProbs, f);
    release(kTemp1);
  } else if (!inplace) {
    alloc(kLogProbs, f);
  }
  for (int8_t t : {kShifted, kUpcast}) {
    if (t != input || !inplace) release(t);  // the in-place kernel keeps its input
  }
  if (converted) alloc(kConverted, 4);  // while the returned logits are still alive
  if (kLogits != input || !inplace) release(kLogits);
  if (converted) release(kConverted);  // compute_loss returns before the backward
  int8_t grad = input;  // the in-place kernel's gradient is its input
  if (kernel == LossKernel::kTorch) {
    alloc(kTemp1, f);  // NllLossBackward0's output
    alloc(grad = kGrad, f);
    release(kTemp1);
    release(kLogProbs);
  } else if (kernel == LossKernel::kLossParallel) {
    alloc(kTemp1, f);  // zeros_like(log_probs), the target's -1 scattered in
    alloc(kTemp2, f);  // exp(log_probs)
    alloc(kTemp3, f);  // their sum
    release(kTemp2);
    alloc(grad = kGrad, f);  // times the incoming gradient
    release(kTemp3);
    release(kTemp1);
    release(kLogProbs);
  }
  auto through = [&](int8_t next, double size) {  // a backward node's output replaces its input
    alloc(next, size);
    release(grad);
    grad = next;
  };
  if (amp) {  // ToCopyBackward0 to 16 bits, then the slice's
    if (upcast) through(kCastGrad, e);
    if (shift_copy) through(kSliceGrad, e);
  } else {
    if (shift_copy) through(kSliceGrad, f);
    if (upcast) through(kCastGrad, e);
  }
  release(grad);
  return SimulateCachingAllocator(steps, n);
}

inline AllocatorPeaks HfLossAllocations(const Config& c, double e) {
  return HfLossAllocations(c.loss_logits_fp32, c.loss_shift_copy, c.loss_kernel, e, AutocastUpcastsLoss(c),
                           AccelerateConvertsOutputs(c, e));
}

// Reserved beyond allocated per logit. The sequence depends only on the loss flags and the
// logits' width, so the common widths are run once (every estimate asks).
inline double LossCachedPerLogit(const Config& c, double e) {
  struct Table {
    // [fp32 logits][shift copy][kernel][e == 4][amp upcast][converted]
    double at[2][2][EnumCount(LossKernel::kLast)][2][2][2];
    Table() {
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
          for (size_t k = 0; k < EnumCount(LossKernel::kLast); ++k)
            for (int w = 0; w < 2; ++w)
              for (int amp = 0; amp < 2; ++amp)
                for (int conv = 0; conv < 2; ++conv) {
                  const AllocatorPeaks p = HfLossAllocations(a != 0, b != 0, static_cast<LossKernel>(k), w ? 4.0 : 2.0,
                                                             amp != 0, conv != 0);
                  at[a][b][k][w][amp][conv] = p.reserved - p.allocated;
                }
    }
  };
  if (e != 2 && e != 4) {
    const AllocatorPeaks p = HfLossAllocations(c, e);
    return p.reserved - p.allocated;
  }
  static const Table table;
  return table.at[c.loss_logits_fp32][c.loss_shift_copy][static_cast<int>(c.loss_kernel)][e == 4]
                 [AutocastUpcastsLoss(c)][AccelerateConvertsOutputs(c, e)];
}

}  // namespace llmmem::core::detail
