// The linear token mixers of 2025's hybrid models, as their kernels train them: Gated DeltaNet
// (Qwen3-Next, Qwen3.5), Mamba-2 (Nemotron-H, Granite-4.0-H, Falcon-H1) and Kimi Delta Attention
// (Kimi-Linear), each on the fused-kernel path and, for the first two, transformers' torch
// fallback (linear_kernels torch). Each tensor is a row for activations_hf.h's layer walk;
// measured: tests/truth/measure_linear_layers.py. Split out of activations_hf.h (one job a file).
#pragma once

#include <cmath>

#include "core/estimate/activation_inputs.h"
#include "core/estimate/activation_rows.h"
#include "core/estimate/activations_paper.h"
#include "core/estimate/derived.h"

namespace llmmem::core {

// Linear layers whose saved tensors are counted from their kernels below: Gated DeltaNet, Mamba-2
// and Kimi Delta Attention.
inline bool CountsLinearMixer(const ModelSpec& m) { return m.linear_layers > 0; }

// Shares of the model's layers with softmax attention, with a linear mixer, with an MLP.
inline double AttentionShare(const ModelSpec& m) {
  if (m.layers <= 0) return 1.0;
  const int64_t attention = CountsLinearMixer(m) ? m.AttentionLayers() : m.layers - m.mixer_free_layers;
  return std::max(0.0, static_cast<double>(attention) / static_cast<double>(m.layers));
}
inline double LinearShare(const ModelSpec& m) {
  if (m.layers <= 0 || !CountsLinearMixer(m)) return 0.0;
  return std::min(1.0, static_cast<double>(m.linear_layers) / static_cast<double>(m.layers));
}
inline double MlpShare(const ModelSpec& m) {
  if (m.layers <= 0) return 1.0;
  return std::max(0.0, static_cast<double>(m.MlpLayers()) / static_cast<double>(m.layers));
}

// Calls f for each row with its share multiplied by `share`; none when the share is 0.
template <class F>
auto Shared(double share, F& f) {
  return [share, &f](LayerTensor t) {
    if (share <= 0) return;
    t.share *= share;
    f(t);
  };
}

namespace detail {

// The row builder of every mixer below: one linear-mixer tensor, kept in the first layer only
// without adapters (under LoRA nothing in the first layer's mixer needs a gradient).
inline constexpr const char* kTorchFallbackNote = "transformers' torch fallback: every chunk's intermediates kept";
template <class F>
auto MixerRow(const Derived& d, F& f, const char* vs_paper) {
  return [&d, &f, vs_paper](const char* id, const char* name, double bytes, const char* dims, double elements,
                            Split split, const char* node) {
    LayerTensor t{LayerGroup::kLinearMixer, id, name, bytes, dims, elements, split, node, vs_paper};
    t.first_layer_kept = !d.adapters;
    f(t);
  };
}

// fla's chunked kernels work on chunks of 64 tokens: chunk_local_cumsum(g, chunk_size=64) and the
// WY matrix A = solve_tril(chunk_scaled_dot_kkt_fwd(...)) of shape (b, s, heads, 64)
// (fla ops/gated_delta_rule/chunk.py@92396f2 chunk_gated_delta_rule_fwd).
inline constexpr double kFlaChunk = 64;

// One Gated DeltaNet layer (Qwen3NextGatedDeltaNet.forward, transformers
// modeling_qwen3_next.py@7515843b617551b008901620ca58f1208bbc330d) as it runs with
// flash-linear-attention and causal-conv1d installed, the path users who train these models run
// (is_fast_path_available). Counted: what each autograd node or Function keeps.
//   in_proj_qkvz / in_proj_ba: their input (MmBackward0 self);
//   causal_conv1d_fn: CausalConv1dFn saves x (the cat of q, k, v, channel-last, no copy), weight,
//     bias (causal-conv1d causal_conv1d_interface.py@dedc05ff ctx.save_for_backward);
//   beta = b.sigmoid(): SigmoidBackward0 keeps its result, which the kernel saves too;
//   g = -A_log.float().exp() * softplus(a.float() + dt_bias): SoftplusBackward0 keeps its fp32
//     input, MulBackward0 the fp32 softplus and the fp32 -exp(A_log) per head (ExpBackward0 its result);
//   chunk_gated_delta_rule: ChunkGatedDeltaRuleFunction saves q, q_rstd, k, k_rstd, v, g, beta, A
//     (fla ops/gated_delta_rule/chunk.py@92396f2): q and k l2-normalised (new tensors, per value
//     head after repeat_interleave), one fp32 rstd per token and head each, v made contiguous by
//     @input_guard (a copy: it is a view of the conv's output), g the fp32 chunk-local cumsum, A in
//     k's dtype, 64 per token and head; the rest (w, u, h, v_new) is recomputed in backward;
//   FusedRMSNormGated: LayerNormGatedFunction saves x (the kernel's output o), g (z), weight and an
//     fp32 rstd per row of head_v_dim (fla modules/fused_norm_gate.py@46e7632);
//   out_proj: its input (MmBackward0 self).
// transformers' torch fallback (torch_chunk_gated_delta_rule, nn.Conv1d, Qwen3NextRMSNormGated)
// keeps every intermediate of its chunk loop instead (24x the kernels' bytes in
// tests/truth/measure_linear_layers.py): GatedDeltaNetTorchTensors, with linear_kernels torch.
template <class F>
void GatedDeltaNetTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double hv = static_cast<double>(m.linear_v_heads), dk = static_cast<double>(m.linear_k_dim);
  const double key = static_cast<double>(m.linear_k_heads) * dk, value = hv * static_cast<double>(m.linear_v_dim);
  const auto row = MixerRow(d, f, "");
  if (LinearKeepsInput(d, 0))
    row("gdn_in_input", "In projections' input (norm output)", e, "sbh", w.sb * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj_qkvz and in_proj_ba");
  row("gdn_conv_input", "Causal conv input (q, k, v concatenated)", e, "sb(2 k_heads k_dim + v_heads v_dim)",
      w.sb * (2 * key + value), Split::kTp, "CausalConv1dFn (x)");
  row("gdn_beta", "Beta = sigmoid(b)", e, "sb*v_heads", w.sb * hv, Split::kTp,
      "SigmoidBackward0 (result), ChunkGatedDeltaRuleFunction (beta)");
  row("gdn_gate", "Decay gate: softplus input and output (fp32)", 4, "sb(2 v_heads)", 2 * w.sb * hv, Split::kTp,
      "SoftplusBackward0 (self), MulBackward0 (other)");
  row("gdn_qk", "Q and K, l2-normalised, per value head", e, "sb(2 v_heads k_dim)", 2 * w.sb * hv * dk, Split::kTp,
      "ChunkGatedDeltaRuleFunction (q, k)");
  row("gdn_v", "V, made contiguous", e, "sb*v_heads*v_dim", w.sb * value, Split::kTp,
      "ChunkGatedDeltaRuleFunction (v)");
  row("gdn_wy", "WY matrix A, 64 per token and head", e, "sb(64 v_heads)", kFlaChunk * w.sb * hv, Split::kTp,
      "ChunkGatedDeltaRuleFunction (A)");
  row("gdn_stats", "Q/K rstd, cumulated gate, norm rstd (fp32)", 4, "sb(4 v_heads)", 4 * w.sb * hv, Split::kTp,
      "ChunkGatedDeltaRuleFunction (q_rstd, k_rstd, g), LayerNormGatedFunction (rstd)");
  row("gdn_norm", "Gated norm: kernel output and gate z", e, "sb(2 v_heads v_dim)", 2 * w.sb * value, Split::kTp,
      "LayerNormGatedFunction (x, g)");
  if (LinearKeepsInput(d, 0))
    row("gdn_out_input", "Out projection input (gated norm output)", e, "sb*v_heads*v_dim", w.sb * value, Split::kTp,
        "MmBackward0 (self) of out_proj");
  row("gdn_decay", "-exp(A_log) per head (fp32)", 4, "(2 v_heads)", 2 * hv, Split::kTp,
      "ExpBackward0 (result), MulBackward0 (self)");
}

// One Gated DeltaNet layer through transformers' torch fallback (linear_kernels torch: neither
// flash-linear-attention nor causal-conv1d installed): nn.Conv1d + silu, torch_chunk_gated_delta_rule
// (chunk_size 64, use_qk_l2norm_in_kernel) and Qwen3NextRMSNormGated, modeling_qwen3_next.py@7515843b6175
// as replicas_linear.py runs it op for op. Autograd keeps, with n = ceil(s / 64) chunks of C = 64
// and S = n C padded tokens per sequence (all of the rule in fp32):
//   the conv's input and the silu's input (the conv's output, s + conv - 1 columns); beta's sigmoid; the
//   gate's fp32 softplus input and output and -exp(A_log);
//   l2norm: each of q and k (repeat_interleave's copies; without repetition both are views of the
//   conv's output, that one storage) and its rsqrt per row;
//   per padded token and head: the fp32 value, key, beta, query (scaled), k_beta, v_beta, exp(g),
//   k_beta exp(g), each chunk's exp(g_i), k_cumdecay from the second chunk on;
//   per chunk, six C x C fp32 matrices (exp of the decay, k_beta k^T, the decay mask, attn after the
//   eye, q_i k_i^T and its masked product) and the forward substitution's clones, row i and the
//   i x i block for i = 1..63; two C x C bool masks;
//   the chunk loop: the state entering each chunk (dk x dv per head), q_i exp(g_i) from the second
//   chunk on, v_new, exp(g_last), exp(g_last - g_i) and k_i exp(...) per chunk;
//   the gated norm: the fp32 upcast, rsqrt, the normalised tensor cast back (for the weight), the
//   weighted product, the fp32 gate and silu(gate) (in fp32 without repetition the gate is a view of
//   in_proj_qkvz's output, that storage);
//   in_proj's and out_proj's inputs when their weights train.
// torch 1.13 keeps two more (MeanBackward1's x^2, index_select's index): test_linear_layers.cpp adds them.
template <class F>
void GatedDeltaNetTorchTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double hk = static_cast<double>(m.linear_k_heads), hv = static_cast<double>(m.linear_v_heads);
  const double dk = static_cast<double>(m.linear_k_dim), dv = static_cast<double>(m.linear_v_dim);
  const double key = hk * dk, value = hv * dv, conv_dim = 2 * key + value, T = w.sb, b = d.b;
  const double s = d.s_local, C = kFlaChunk, n = std::ceil(s / C), S = n * C, bh = b * hv;
  const bool repeated = m.linear_v_heads > m.linear_k_heads;
  const auto row = MixerRow(d, f, kTorchFallbackNote);
  const bool trains = LinearKeepsInput(d, 0);
  if (trains)
    row("gdn_in_input", "In projections' input (norm output)", e, "sbh", T * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj_qkvz and in_proj_ba");
  row("gdnt_conv", "Conv1d input and its padded output (silu input)", e, "b(2 k_heads k_dim + v_heads v_dim)(2s + conv - 1)",
      T * conv_dim + b * conv_dim * (s + static_cast<double>(m.linear_conv) - 1), Split::kTp,
      "ConvolutionBackward0 (input), SiluBackward0 (self)");
  row("gdn_beta", "Beta = sigmoid(b)", e, "sb*v_heads", T * hv, Split::kTp, "SigmoidBackward0 (result)");
  row("gdnt_gate", "Decay gate: softplus input and output, -exp(A_log) (fp32)", 4, "2 sb v_heads + 2 v_heads",
      2 * T * hv + 2 * hv, Split::kTp, "SoftplusBackward0 (self), MulBackward0, ExpBackward0 (result)");
  row("gdnt_l2norm", "l2norm: q and k, their rsqrt per row", e,
      repeated ? "sb(2 v_heads k_dim + 2 v_heads)" : "sb(2 k_heads k_dim + v_heads v_dim + 2 v_heads)",
      (repeated ? 2 * T * hv * dk : T * conv_dim) + 2 * T * hv, Split::kTp, "MulBackward0 (self, other), RsqrtBackward0");
  row("gdnt_tokens", "Padded fp32 q, k, v, beta, gates and their products per token", 4,
      "bS*v_heads(2 v_dim + 4 k_dim + 3)", b * S * hv * (2 * dv + 4 * dk + 3 + (n >= 2 ? dk : 0)), Split::kTp,
      "MulBackward0, BmmBackward0, ExpBackward0 of torch_chunk_gated_delta_rule");
  row("gdnt_chunk_matrices", "Six 64 x 64 matrices per chunk and head (fp32)", 4, "6 b v_heads n 64^2",
      6 * bh * n * C * C, Split::kTp, "ExpBackward0, MulBackward0, BmmBackward0 (decay mask, attn, q k^T)");
  row("gdnt_substitution", "Forward substitution's clones, rows and blocks (fp32)", 4,
      "b v_heads n sum(i + i^2), i < 64", bh * n * ((C - 1) * C / 2 + (C - 1) * C * (2 * C - 1) / 6), Split::kTp,
      "MulBackward0 (self, other) of row x sub");
  row("gdnt_masks", "Causal masks (bool, 64 x 64)", 1, "2 x 64^2", 2 * C * C, Split::kTp,
      "MaskedFillBackward0 (mask)");
  row("gdnt_loop", "Chunk loop: states, v_new, decays, decayed keys (fp32)", 4,
      "b v_heads(n k_dim v_dim + (n-1)64 k_dim + n 64(v_dim + k_dim + 1) + n)",
      bh * (n * dk * dv + (n - 1) * C * dk + n * C * (dv + dk + 1) + n), Split::kTp,
      "MulBackward0, BmmBackward0 (mat2) of the recurrence");
  const double gate = e == 4 && !repeated ? T * (2 * key + 2 * value) : T * value;
  row("gdnt_norm_fp32", "Gated norm: fp32 upcast, rsqrt, gate and silu(gate)", 4,
      repeated || e != 4 ? "sb(3 v_heads v_dim + v_heads)" : "sb(2 v_heads v_dim + v_heads + 2 k_heads k_dim + 2 v_heads v_dim)",
      2 * T * value + gate + T * hv, Split::kTp, "MulBackward0, RsqrtBackward0, SiluBackward0 (self)");
  row("gdnt_norm", "Gated norm: weighted product and its normalised input, cast back", e, "sb(2 v_heads v_dim)",
      (trains ? 2 : 1) * T * value, Split::kTp, "MulBackward0 (self, other) of weight x normalised x silu(gate)");
  if (trains)
    row("gdn_out_input", "Out projection input (gated norm output)", e, "sb*v_heads*v_dim", T * value, Split::kTp,
        "MmBackward0 (self) of out_proj");
}

// One Mamba-2 mixer (NemotronHMamba2Mixer, transformers modeling_nemotron_h.py@897753a012bf;
// Bamba / Granite-4.0-H and Falcon-H1 alike) as cuda_kernels_forward trains it with mamba_ssm and
// causal-conv1d installed: in_proj, then mamba_split_conv1d_scan_combined with the gated norm and
// out_proj inside. MambaSplitConv1dScanCombinedFn (state-spaces/mamba
// mamba_ssm/ops/triton/ssd_combined.py@d757aef189a5) saves zxbcdt (in_proj's output: z, x, B, C,
// dt), the scan output out_x before the norm, the norm's fp32 rstd per token and group, A and the
// weights; the conv, the scan's states and out_proj's input are recomputed in backward. A =
// -exp(A_log.float()): ExpBackward0 keeps its fp32 result, the Function A. torch_forward (the
// naive SSD without mamba_ssm) keeps its (chunk x chunk) intermediates instead (11x the kernel's
// bytes in tests/truth/measure_linear_layers.py): Mamba2TorchTensors, with linear_kernels torch.
template <class F>
void Mamba2Tensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double heads = static_cast<double>(m.linear_v_heads), groups = static_cast<double>(m.linear_k_heads);
  const double inner = heads * static_cast<double>(m.linear_v_dim);
  const double bc = groups * static_cast<double>(m.linear_k_dim);  // n_groups x d_state
  const auto row = MixerRow(d, f, "");
  if (LinearKeepsInput(d, 0))
    row("mamba_in_input", "In projection input (norm output)", e, "sbh", w.sb * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj");
  row("mamba_zxbcdt", "In projection output: z, x, B, C, dt", e, "sb(2 d_inner + 2 n_groups d_state + heads)",
      w.sb * (2 * inner + 2 * bc + heads), Split::kTp, "MambaSplitConv1dScanCombinedFn (zxbcdt)");
  row("mamba_out_x", "Scan output before the gated norm", e, "sb*d_inner", w.sb * inner, Split::kTp,
      "MambaSplitConv1dScanCombinedFn (out_x)");
  if (m.linear_norm)
    row("mamba_rstd", "Gated norm rstd per group (fp32)", 4, "sb*n_groups", w.sb * groups, Split::kTp,
        "MambaSplitConv1dScanCombinedFn (rstd)");
  row("mamba_a", "A = -exp(A_log) per head (fp32)", 4, "(2 heads)", 2 * heads, Split::kTp,
      "ExpBackward0 (result), MambaSplitConv1dScanCombinedFn (A)");
}

// One Kimi Delta Attention layer (KimiDeltaAttention.forward in the checkpoint's own
// modeling_kimi.py, moonshotai/Kimi-Linear-48B-A3B-Instruct, which imports flash-linear-attention
// and asks for v0.4.0: fla-org/flash-linear-attention@2e0f6c31f9db50f010cb157c712c048b8a3a89d2) in
// training. Heads H = num_heads, head_dim D, P = H x D for q, k, v and both gates. Counted:
//   q/k/v_proj, f_a_proj, g_a_proj, b_proj: their shared input (MmBackward0 self);
//   q/k/v_conv1d (ShortConvolution, default triton backend): CausalConv1dFunction saves its input x,
//     each projection's (b, t, P) output, weight and bias (fla/modules/convolution.py);
//   f_b_proj and g_b_proj: their D-wide inputs, the f_a / g_a outputs (MmBackward0 self);
//   fused_kda_gate: KDAGateFunction saves g, f_b_proj's output, and A (fla/ops/kda/gate.py); it
//     returns -exp(A) softplus(g + dt_bias) in fp32, one decay per key channel;
//   beta = b_proj(x).float().sigmoid(): SigmoidBackward0 keeps its fp32 result, saved by the kernel too;
//   chunk_kda: ChunkKDAFunction saves q, q_rstd, k, k_rstd, v, g, beta, Aqk, Akk (fla/ops/kda/chunk.py):
//     q and k l2-normalised (new tensors) with one fp32 rstd per token and head, v the conv's output,
//     g the fp32 chunk-local cumsum of the per-channel gate (P per token where Gated DeltaNet keeps one
//     per head), Aqk fp32 and Akk in k's dtype, 64 per token and head each (chunk_kda_fwd_intra
//     output_dtype=torch.float32, solve_tril output_dtype=k.dtype); w, u, h, v_new are recomputed;
//   o_norm (FusedRMSNormGated, sigmoid): LayerNormGatedFunction saves x (the kernel's output), g
//     (g_b_proj's output), weight and an fp32 rstd per token and head (fla/modules/fused_norm_gate.py);
//   o_proj: its input (MmBackward0 self).
// Measured: tests/truth/measure_linear_layers.py (kda_kernels_*), equal to the byte.
template <class F>
void KdaTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double heads = static_cast<double>(m.linear_v_heads), dim = static_cast<double>(m.linear_v_dim);
  const double p = heads * dim;
  const auto row = MixerRow(d, f, "");
  const bool trains = LinearKeepsInput(d, 0);
  if (trains)
    row("kda_in_input", "Projections' input (norm output)", e, "sbh", w.sb * d.h, Split::kSp,
        "MmBackward0 (self) of q/k/v_proj, f_a_proj, g_a_proj, b_proj");
  row("kda_conv_inputs", "Short conv inputs (q, k, v projections)", e, "sb(3 heads head_dim)", 3 * w.sb * p,
      Split::kTp, "CausalConv1dFunction (x) of q/k/v_conv1d");
  if (trains)
    row("kda_low_rank", "Gates' low-rank inputs (f_a, g_a outputs)", e, "sb(2 head_dim)", 2 * w.sb * dim, Split::kSp,
        "MmBackward0 (self) of f_b_proj and g_b_proj");
  row("kda_gate_input", "Decay gate input (f_b_proj output)", e, "sb*heads*head_dim", w.sb * p, Split::kTp,
      "KDAGateFunction (g)");
  row("kda_beta", "Beta = sigmoid(b) (fp32)", 4, "sb*heads", w.sb * heads, Split::kTp,
      "SigmoidBackward0 (result), ChunkKDAFunction (beta)");
  row("kda_qk", "Q and K, l2-normalised", e, "sb(2 heads head_dim)", 2 * w.sb * p, Split::kTp,
      "ChunkKDAFunction (q, k)");
  row("kda_v", "V (conv output)", e, "sb*heads*head_dim", w.sb * p, Split::kTp, "ChunkKDAFunction (v)");
  row("kda_g_cumsum", "Per-channel decay, chunk-local cumsum (fp32)", 4, "sb*heads*head_dim", w.sb * p, Split::kTp,
      "ChunkKDAFunction (g)");
  row("kda_aqk", "Intra-chunk Aqk, 64 per token and head (fp32)", 4, "sb(64 heads)", kFlaChunk * w.sb * heads,
      Split::kTp, "ChunkKDAFunction (Aqk)");
  row("kda_akk", "Intra-chunk Akk inverse, 64 per token and head", e, "sb(64 heads)", kFlaChunk * w.sb * heads,
      Split::kTp, "ChunkKDAFunction (Akk)");
  row("kda_stats", "Q/K rstd, norm rstd (fp32)", 4, "sb(3 heads)", 3 * w.sb * heads, Split::kTp,
      "ChunkKDAFunction (q_rstd, k_rstd), LayerNormGatedFunction (rstd)");
  row("kda_norm", "Gated norm: kernel output and gate", e, "sb(2 heads head_dim)", 2 * w.sb * p, Split::kTp,
      "LayerNormGatedFunction (x, g)");
  if (trains)
    row("kda_out_input", "Out projection input (gated norm output)", e, "sb*heads*head_dim", w.sb * p, Split::kTp,
        "MmBackward0 (self) of o_proj");
}

// One Mamba-2 mixer through transformers' torch fallback (linear_kernels torch: no mamba_ssm /
// causal-conv1d): NemotronHMamba2Mixer.torch_forward (modeling_nemotron_h.py@897753a012bf, the naive
// SSD without einsums, Zamba2RMSNormGated) as replicas_linear.py runs it op for op. With chunk
// C = linear_chunk, n = ceil(s / C) chunks and S = n C padded tokens, autograd keeps:
//   the conv's input (a view of in_proj's output: all of it) and the silu's input (the conv's output,
//   s + conv - 1 columns); dt's softplus input, clamp input and the clamped dt; A = -exp(A_log);
//   x (fp32, for x dt; in fp32 a view of the silu's output, that storage), per padded token the
//   D-residual's padded x, x, B and C in chunks, B decayed, the decay of the states and of the output
//   (per head), C times the states summed;
//   per chunk and head three C x C fp32 tensors (L = exp(segsum), G, M); per head (n+1)^2 chunk
//   decays, the (n+1) states and their decayed sum (head_dim x d_state each); four bool masks;
//   the gated norm: y (the padded sum, fp32), the fp32 gate (in fp32 a view of in_proj's output,
//   already counted), silu(gate), the gated product, rsqrt per group, the normalised tensor;
//   in_proj's and out_proj's inputs when their weights train.
// torch 1.13 keeps two more (MeanBackward1's x^2, repeat_interleave's index): test_linear_layers.cpp
// adds them. Without the gated norm (Falcon-H1's mamba_rms_norm off) its rows are left out, unmeasured.
template <class F>
void Mamba2TorchTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double H = static_cast<double>(m.linear_v_heads), hd = static_cast<double>(m.linear_v_dim);
  const double G = static_cast<double>(m.linear_k_heads), ds = static_cast<double>(m.linear_k_dim);
  const double inner = H * hd, conv_dim = inner + 2 * G * ds, proj = inner + conv_dim + H, T = w.sb, b = d.b;
  const double s = d.s_local, C = static_cast<double>(std::max<int64_t>(1, m.linear_chunk));
  const double n = std::ceil(s / C), S = n * C;
  const auto row = MixerRow(d, f, kTorchFallbackNote);
  const bool trains = LinearKeepsInput(d, 0);
  if (trains)
    row("mamba_in_input", "In projection input (norm output)", e, "sbh", T * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj");
  row("mambat_conv", "Conv1d input (in_proj's output) and its padded output (silu input)", e,
      "sb(2 d_inner + 2 n_groups d_state + heads) + b(d_inner + 2 n_groups d_state)(s + conv - 1)",
      T * proj + b * conv_dim * (s + static_cast<double>(m.linear_conv) - 1), Split::kTp,
      "ConvolutionBackward0 (input), SiluBackward0 (self)");
  row("mambat_dt", "dt: softplus input, clamp input, clamped dt", e, "3 sb heads", 3 * T * H, Split::kTp,
      "SoftplusBackward0, ClampBackward1 (self), MulBackward0 (other)");
  row("mamba_a", "A = -exp(A_log) per head (fp32)", 4, "(2 heads)", 2 * H, Split::kTp,
      "ExpBackward0 (result), MulBackward0 (self)");
  row("mambat_tokens", "x, B, C, their chunks, decays and products per token (fp32)", 4,
      e == 4 ? "sb(d_inner + 2 n_groups d_state) + bS(3 d_inner + 3 heads d_state + 2 heads)"
             : "sb d_inner + bS(3 d_inner + 3 heads d_state + 2 heads)",
      (e == 4 ? T * conv_dim : T * inner) + b * S * (3 * inner + 3 * H * ds + 2 * H), Split::kTp,
      "MulBackward0, ExpBackward0 of the naive SSD");
  row("mambat_chunk_matrices", "L, G and M: three C x C tensors per chunk and head (fp32)", 4, "3 b heads n C^2",
      3 * b * H * n * C * C, Split::kTp, "ExpBackward0 (result), MulBackward0 (self, other)");
  row("mambat_states", "Chunk states, their decays and decayed sums (fp32)", 4,
      "b heads (n+1)(2 head_dim d_state + n + 1)", b * H * (n + 1) * (2 * hd * ds + n + 1), Split::kTp,
      "MulBackward0 (self, other) of decay_chunk x states, C x states");
  row("mambat_masks", "Segment-sum masks (bool)", 1, "2 C^2 + 2 (n+1)^2", 2 * C * C + 2 * (n + 1) * (n + 1),
      Split::kTp, "MaskedFillBackward0 (mask)");
  if (m.linear_norm)
    row("mambat_norm", "Gated norm: y, gate, silu(gate), gated product, rsqrt, normalised (fp32)", 4,
        "bS d_inner + sb(3 d_inner + n_groups) (+ sb d_inner gate)",
        b * S * inner + T * ((e == 4 ? 2 : 3) * inner + G) + (trains ? T * inner : 0), Split::kTp,
        "MulBackward0, SiluBackward0, RsqrtBackward0 of Zamba2RMSNormGated");
  if (trains)
    row("mamba_out_input", "Out projection input", e, "sb*d_inner", T * inner, Split::kTp,
        "MmBackward0 (self) of out_proj");
}

}  // namespace detail

}  // namespace llmmem::core
