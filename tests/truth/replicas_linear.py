"""Replicas of 2025 token mixers, op for op, for the saved-tensor measurements of
measure_linear_layers.py (torch 1.13, CPU) and gpu_measure.py (--plan linear-layers).

Three modules, each taking the layer's normalised hidden states (b, s, h) and returning the
mixer's output, as transformers runs them in training (no cache, no padding mask):

* GatedDeltaNet: Qwen3NextGatedDeltaNet.forward (transformers
  src/transformers/models/qwen3_next/modeling_qwen3_next.py @7515843b617551b008901620ca58f1208bbc330d).
  kernels=False is transformers' torch fallback (nn.Conv1d + silu, torch_chunk_gated_delta_rule,
  Qwen3NextRMSNormGated), what runs without flash-linear-attention and causal-conv1d.
  kernels=True replaces the three fused calls by torch.autograd.Functions that save exactly what
  the real ones pass to ctx.save_for_backward, and compute their outputs with the reference ops
  under no_grad (the values of tensors that only backward reads, A, are not computed: only their
  shape and dtype matter for the bytes):
    CausalConv1dFn (Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py
      @dedc05ff2c440225ac30b3fd4f150ff42c852243): save_for_backward(x, weight, bias, seq_idx, initial_states)
    ChunkGatedDeltaRuleFunction (fla-org/flash-linear-attention fla/ops/gated_delta_rule/chunk.py
      @92396f250f2c8f0ad841cecfe29069c8a71a83eb): save_for_backward(q, q_rstd, k, k_rstd, v, g, beta, A,
      initial_state, cu_seqlens) with q, k the l2-normalised copies, q_rstd/k_rstd one fp32 per row,
      g the chunk-local cumsum (fp32), A the (b, s, heads, 64) WY matrix in k's dtype; inputs made
      contiguous by @input_guard
    LayerNormGatedFunction (fla fla/modules/fused_norm_gate.py @46e7632fa93bce0984e27da77b60f3923c75dbdf,
      FusedRMSNormGated): save_for_backward(residual_out (= x), g, weight, bias, mean (None for RMS), rstd)
* Mamba2Mixer: NemotronHMamba2Mixer (transformers models/nemotron_h/modeling_nemotron_h.py
  @897753a012bfa6dac8c0ae3281f23a2fc1e72db6; Zamba2RMSNormGated as its norm). kernels=False is
  torch_forward (the naive SSD without einsums); kernels=True is cuda_kernels_forward's training
  branch, mamba_split_conv1d_scan_combined (state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py
  @d757aef189a5215ab3568516825a145e49f7b7ed MambaSplitConv1dScanCombinedFn): save_for_backward(zxbcdt,
  conv1d_weight, conv1d_bias, out_x, A, D, dt_bias, initial_states, seq_idx, rmsnorm_weight, rstd,
  outproj_weight, outproj_bias); the out projection runs inside the Function (its input is recomputed).
* KimiDeltaAttention: Kimi-Linear's KDA layer as the checkpoint's own modeling_kimi.py runs it
  (moonshotai/Kimi-Linear-48B-A3B-Instruct, KimiDeltaAttention.forward; it requires
  flash-linear-attention v0.4.0, fla-org/flash-linear-attention@2e0f6c31f9db50f010cb157c712c048b8a3a89d2):
  q/k/v_proj, three ShortConvolutions (silu), f_a/f_b_proj into fused_kda_gate, beta =
  b_proj(x).float().sigmoid(), chunk_kda(use_qk_l2norm_in_kernel=True), g_a/g_b_proj into
  FusedRMSNormGated(activation="sigmoid"), o_proj. Kernels only (the checkpoint's code imports fla
  unconditionally), replaced by Functions saving the same lists as at v0.4.0:
    CausalConv1dFunction (fla/modules/convolution.py, ShortConvolution's default triton backend):
      save_for_backward(x, weight, bias, residual, initial_state), x the projection's (b, t, d) output
    KDAGateFunction (fla/ops/kda/gate.py): save_for_backward(g, A), g the f_b_proj output; returns
      -exp(A) * softplus(g + g_bias) in fp32, (b, t, heads, head_dim)
    ChunkKDAFunction (fla/ops/kda/chunk.py): save_for_backward(q, q_rstd, k, k_rstd, v, g, beta, Aqk,
      Akk, initial_state, cu_seqlens): q, k l2-normalised (l2norm_fwd: new tensors, one fp32 rstd per
      row), g the fp32 chunk-local cumsum of the per-channel gate (chunk_local_cumsum output_dtype
      float), Aqk fp32 and Akk in k's dtype, (b, t, heads, 64) each (chunk_kda_fwd_intra,
      solve_tril(output_dtype=k.dtype))
    LayerNormGatedFunction (fla/modules/fused_norm_gate.py): as for Gated DeltaNet, sigmoid gate.
* GptOssAttention: GptOssAttention.forward with eager_attention_forward (transformers
  models/gpt_oss/modeling_gpt_oss.py @6edf5b311854175ff83c59179b3360beca1ceffc): q/k/v/o with biases,
  rotary on halves, repeat_kv, one learnt sink logit per head concatenated to the scores, max
  subtracted, softmax in the scores' dtype, the sink column dropped; a sliding window is only the
  additive mask create_sliding_window_causal_mask builds (no grad).
* Qwen3NextAttentionBlock: a Qwen3-Next full-attention layer's input norm and attention,
  Qwen3NextRMSNorm then Qwen3NextAttention.forward with eager_attention_forward (transformers
  models/qwen3_next/modeling_qwen3_next.py @01cdc6081c7500f9e50c98b1b943c90ecb665db3): the (1 + w)
  RMSNorm computed in fp32 and cast back after the scale (input, q_norm, k_norm); q_proj twice as
  wide, torch.chunk'ed into query and gate; partial rotary (partial_rotary_factor of head_dim);
  repeat_kv, fp32 softmax cast back; attn_output * torch.sigmoid(gate) before o_proj.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


# ----------------------------------------------------------------------------- Gated DeltaNet

class Qwen3NextRMSNormGated(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = self.weight * hidden_states.to(input_dtype)
        hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        return hidden_states.to(input_dtype)


def l2norm(x, dim=-1, eps=1e-6):
    inv_norm = torch.rsqrt((x * x).sum(dim=dim, keepdim=True) + eps)
    return x * inv_norm


def torch_chunk_gated_delta_rule(query, key, value, g, beta, chunk_size=64, initial_state=None,
                                 output_final_state=False, use_qk_l2norm_in_kernel=False):
    """transformers' torch_chunk_gated_delta_rule, line for line."""
    initial_dtype = query.dtype
    if use_qk_l2norm_in_kernel:
        query = l2norm(query, dim=-1, eps=1e-6)
        key = l2norm(key, dim=-1, eps=1e-6)
    query, key, value, beta, g = [x.transpose(1, 2).contiguous().to(torch.float32) for x in (query, key, value, beta, g)]
    batch_size, num_heads, sequence_length, k_head_dim = key.shape
    v_head_dim = value.shape[-1]
    pad_size = (chunk_size - sequence_length % chunk_size) % chunk_size
    query = F.pad(query, (0, 0, 0, pad_size))
    key = F.pad(key, (0, 0, 0, pad_size))
    value = F.pad(value, (0, 0, 0, pad_size))
    beta = F.pad(beta, (0, pad_size))
    g = F.pad(g, (0, pad_size))
    total_sequence_length = sequence_length + pad_size
    scale = 1 / (query.shape[-1] ** 0.5)
    query = query * scale
    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    query, key, value, k_beta, v_beta = [x.reshape(x.shape[0], x.shape[1], -1, chunk_size, x.shape[-1])
                                         for x in (query, key, value, k_beta, v_beta)]
    g = g.reshape(g.shape[0], g.shape[1], -1, chunk_size)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device), diagonal=0)
    g = g.cumsum(dim=-1)
    decay_mask = ((g.unsqueeze(-1) - g.unsqueeze(-2)).tril().exp().float()).tril()
    attn = -((k_beta @ key.transpose(-1, -2)) * decay_mask).masked_fill(mask, 0)
    for i in range(1, chunk_size):
        row = attn[..., i, :i].clone()
        sub = attn[..., :i, :i].clone()
        attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
    attn = attn + torch.eye(chunk_size, dtype=attn.dtype, device=attn.device)
    value = attn @ v_beta
    k_cumdecay = attn @ (k_beta * g.exp().unsqueeze(-1))
    last_recurrent_state = (torch.zeros(batch_size, num_heads, k_head_dim, v_head_dim).to(value)
                            if initial_state is None else initial_state.to(value))
    core_attn_out = torch.zeros_like(value)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device), diagonal=1)
    for i in range(0, total_sequence_length // chunk_size):
        q_i, k_i, v_i = query[:, :, i], key[:, :, i], value[:, :, i]
        attn = (q_i @ k_i.transpose(-1, -2) * decay_mask[:, :, i]).masked_fill_(mask, 0)
        v_prime = (k_cumdecay[:, :, i]) @ last_recurrent_state
        v_new = v_i - v_prime
        attn_inter = (q_i * g[:, :, i, :, None].exp()) @ last_recurrent_state
        core_attn_out[:, :, i] = attn_inter + attn @ v_new
        last_recurrent_state = (last_recurrent_state * g[:, :, i, -1, None, None].exp()
                                + (k_i * (g[:, :, i, -1, None] - g[:, :, i]).exp()[..., None]).transpose(-1, -2) @ v_new)
    if not output_final_state:
        last_recurrent_state = None
    core_attn_out = core_attn_out.reshape(core_attn_out.shape[0], core_attn_out.shape[1], -1, core_attn_out.shape[-1])
    core_attn_out = core_attn_out[:, :, :sequence_length]
    core_attn_out = core_attn_out.transpose(1, 2).contiguous().to(initial_dtype)
    return core_attn_out, last_recurrent_state


def channel_last_like(x, values):
    """causal_conv1d_fwd allocates its output with torch::empty_like(x): x's (channel-last) strides."""
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    out.copy_(values)
    return out


class CausalConv1dFn(torch.autograd.Function):
    """What causal_conv1d_fn saves: x (made contiguous only when neither dim 1 nor 2 is), weight, bias."""

    @staticmethod
    def forward(ctx, x, weight, bias, activation):
        if x.stride(2) != 1 and x.stride(1) != 1:
            x = x.contiguous()
        width = weight.shape[1]
        out = F.conv1d(x, weight.unsqueeze(1), bias, padding=width - 1, groups=x.shape[1])[..., :x.shape[-1]]
        if activation in ("silu", "swish"):
            out = F.silu(out)
        ctx.save_for_backward(x, weight, bias)
        return channel_last_like(x, out)

    @staticmethod
    def backward(ctx, dout):
        raise NotImplementedError("measured for its saved tensors only")


def chunk_local_cumsum(g, chunk_size=64):
    """fla.ops.utils.chunk_local_cumsum: cumsum within each chunk of 64 tokens, fp32 output."""
    b, t, h = g.shape
    pad = (chunk_size - t % chunk_size) % chunk_size
    gp = F.pad(g.float(), (0, 0, 0, pad)).reshape(b, -1, chunk_size, h).cumsum(2)
    return gp.reshape(b, -1, h)[:, :t].contiguous()


class ChunkGatedDeltaRuleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, g, beta, scale, use_qk_l2norm_in_kernel):
        q, k, v, g, beta = (x.contiguous() for x in (q, k, v, g, beta))  # @input_guard
        o, _ = torch_chunk_gated_delta_rule(q, k, v, g, beta, use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel)
        o = o.to(v.dtype)  # chunk_fwd_o: o = torch.empty_like(v)
        q_rstd = k_rstd = None
        if use_qk_l2norm_in_kernel:  # l2norm_fwd: y in x's dtype, rstd one fp32 per row
            q_rstd = torch.rsqrt((q.float() * q.float()).sum(-1) + 1e-6)
            k_rstd = torch.rsqrt((k.float() * k.float()).sum(-1) + 1e-6)
            q = (q.float() * q_rstd[..., None]).to(q.dtype)
            k = (k.float() * k_rstd[..., None]).to(k.dtype)
        g = chunk_local_cumsum(g)
        b, t, h, _ = k.shape
        A = torch.empty(b, t, h, 64, dtype=k.dtype)  # solve_tril(..., output_dtype=k.dtype)
        ctx.save_for_backward(q, q_rstd, k, k_rstd, v, g, beta, A)
        return o.to(q.dtype)

    @staticmethod
    def backward(ctx, do):
        raise NotImplementedError("measured for its saved tensors only")


class LayerNormGatedFunction(torch.autograd.Function):
    """fla rms_norm_gated (is_rms_norm=True, no residual): y = x * rstd * weight * act(g), act silu
    (Gated DeltaNet) or sigmoid (KDA's o_norm); the same save_for_backward list at v0.4.0."""

    @staticmethod
    def forward(ctx, x, g, weight, eps, activation="silu"):
        x_shape = x.shape
        x = x.contiguous().reshape(-1, x.shape[-1])
        g = g.contiguous().reshape(-1, g.shape[-1])
        rstd = torch.rsqrt(x.float().pow(2).mean(-1) + eps)
        act = F.silu(g.float()) if activation in ("silu", "swish") else torch.sigmoid(g.float())
        y = (x.float() * rstd[:, None] * weight.float() * act).to(x.dtype)
        ctx.save_for_backward(x, g, weight, rstd)
        return y.reshape(x_shape)

    @staticmethod
    def backward(ctx, dy):
        raise NotImplementedError("measured for its saved tensors only")


class FusedRMSNormGated(nn.Module):
    def __init__(self, hidden_size, eps=1e-6, activation="silu"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps, self.activation = eps, activation

    def forward(self, x, g):
        return LayerNormGatedFunction.apply(x, g, self.weight, self.eps, self.activation)


class GatedDeltaNet(nn.Module):
    def __init__(self, hidden, k_heads, v_heads, k_dim, v_dim, conv, kernels, eps=1e-6):
        super().__init__()
        self.hidden_size, self.num_k_heads, self.num_v_heads = hidden, k_heads, v_heads
        self.head_k_dim, self.head_v_dim = k_dim, v_dim
        self.key_dim, self.value_dim = k_dim * k_heads, v_dim * v_heads
        self.conv_kernel_size, self.kernels, self.activation = conv, kernels, "silu"
        self.conv_dim = self.key_dim * 2 + self.value_dim
        self.conv1d = nn.Conv1d(self.conv_dim, self.conv_dim, bias=False, kernel_size=conv, groups=self.conv_dim,
                                padding=conv - 1)
        self.in_proj_qkvz = nn.Linear(hidden, self.key_dim * 2 + self.value_dim * 2, bias=False)
        self.in_proj_ba = nn.Linear(hidden, v_heads * 2, bias=False)
        self.dt_bias = nn.Parameter(torch.ones(v_heads))
        self.A_log = nn.Parameter(torch.log(torch.empty(v_heads).uniform_(1, 16)))
        self.norm = FusedRMSNormGated(v_dim, eps) if kernels else Qwen3NextRMSNormGated(v_dim, eps)
        self.out_proj = nn.Linear(self.value_dim, hidden, bias=False)

    def fix_query_key_value_ordering(self, mixed_qkvz, mixed_ba):
        r = self.num_v_heads // self.num_k_heads
        mixed_qkvz = mixed_qkvz.view(*mixed_qkvz.size()[:-1], self.num_k_heads,
                                     2 * self.head_k_dim + 2 * self.head_v_dim * r)
        mixed_ba = mixed_ba.view(*mixed_ba.size()[:-1], self.num_k_heads, 2 * r)
        query, key, value, z = torch.split(mixed_qkvz, [self.head_k_dim, self.head_k_dim, r * self.head_v_dim,
                                                        r * self.head_v_dim], dim=3)
        b, a = torch.split(mixed_ba, [r, r], dim=3)
        value = value.reshape(value.size(0), value.size(1), -1, self.head_v_dim)
        z = z.reshape(z.size(0), z.size(1), -1, self.head_v_dim)
        b = b.reshape(b.size(0), b.size(1), self.num_v_heads)
        a = a.reshape(a.size(0), a.size(1), self.num_v_heads)
        return query, key, value, z, b, a

    def forward(self, hidden_states):
        batch_size, seq_len, _ = hidden_states.shape
        query, key, value, z, b, a = self.fix_query_key_value_ordering(self.in_proj_qkvz(hidden_states),
                                                                       self.in_proj_ba(hidden_states))
        query, key, value = (x.reshape(x.shape[0], x.shape[1], -1) for x in (query, key, value))
        mixed_qkv = torch.cat((query, key, value), dim=-1).transpose(1, 2)
        if self.kernels:
            mixed_qkv = CausalConv1dFn.apply(mixed_qkv, self.conv1d.weight.squeeze(1), self.conv1d.bias,
                                             self.activation)
        else:
            mixed_qkv = F.silu(self.conv1d(mixed_qkv)[:, :, :seq_len])
        mixed_qkv = mixed_qkv.transpose(1, 2)
        query, key, value = torch.split(mixed_qkv, [self.key_dim, self.key_dim, self.value_dim], dim=-1)
        query = query.reshape(query.shape[0], query.shape[1], -1, self.head_k_dim)
        key = key.reshape(key.shape[0], key.shape[1], -1, self.head_k_dim)
        value = value.reshape(value.shape[0], value.shape[1], -1, self.head_v_dim)
        beta = b.sigmoid()
        g = -self.A_log.float().exp() * F.softplus(a.float() + self.dt_bias)
        if self.num_v_heads // self.num_k_heads > 1:
            query = query.repeat_interleave(self.num_v_heads // self.num_k_heads, dim=2)
            key = key.repeat_interleave(self.num_v_heads // self.num_k_heads, dim=2)
        if self.kernels:
            core_attn_out = ChunkGatedDeltaRuleFunction.apply(query, key, value, g, beta, self.head_k_dim ** -0.5,
                                                              True)
        else:
            core_attn_out, _ = torch_chunk_gated_delta_rule(query, key, value, g=g, beta=beta,
                                                            use_qk_l2norm_in_kernel=True)
        z_shape_og = z.shape
        core_attn_out = core_attn_out.reshape(-1, core_attn_out.shape[-1])
        z = z.reshape(-1, z.shape[-1])
        core_attn_out = self.norm(core_attn_out, z)
        core_attn_out = core_attn_out.reshape(z_shape_og)
        core_attn_out = core_attn_out.reshape(core_attn_out.shape[0], core_attn_out.shape[1], -1)
        return self.out_proj(core_attn_out)


# ----------------------------------------------------------------------------- Mamba-2

class Zamba2RMSNormGated(nn.Module):
    """transformers models/zamba2/modeling_zamba2.py Zamba2RMSNormGated (NemotronHMamba2Mixer's norm)."""

    def __init__(self, hidden_size, group_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.group_size = group_size

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        if gate is not None:
            hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        *prefix_dims, last_dim = hidden_states.shape
        group_count = last_dim // self.group_size
        hidden_states_group = hidden_states.view(*prefix_dims, group_count, self.group_size)
        variance = hidden_states_group.pow(2).mean(-1, keepdim=True)
        hidden_states_group = hidden_states_group * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = hidden_states_group.view(*prefix_dims, group_count * self.group_size)
        return self.weight * hidden_states.to(input_dtype)


def pad_tensor_by_size(input_tensor, pad_size):
    pad_shape = (0, 0, 0, 0, 0, pad_size, 0, 0) if len(input_tensor.shape) == 4 else (0, 0, 0, pad_size, 0, 0)
    return F.pad(input_tensor, pad_shape, mode="constant", value=0)


def reshape_into_chunks(input_tensor, pad_size, chunk_size):
    input_tensor = pad_tensor_by_size(input_tensor, pad_size)
    if len(input_tensor.shape) == 3:
        return input_tensor.reshape(input_tensor.shape[0], -1, chunk_size, input_tensor.shape[2])
    return input_tensor.reshape(input_tensor.shape[0], -1, chunk_size, input_tensor.shape[2], input_tensor.shape[3])


def segment_sum(input_tensor):
    chunk_size = input_tensor.size(-1)
    input_tensor = input_tensor[..., None].expand(*input_tensor.size(), chunk_size)
    mask = torch.tril(torch.ones(chunk_size, chunk_size, device=input_tensor.device, dtype=torch.bool), diagonal=-1)
    input_tensor = input_tensor.masked_fill(~mask, 0)
    tensor_segsum = torch.cumsum(input_tensor, dim=-2)
    mask = torch.tril(torch.ones(chunk_size, chunk_size, device=input_tensor.device, dtype=torch.bool), diagonal=0)
    return tensor_segsum.masked_fill(~mask, -torch.inf)


class MambaSplitConv1dScanCombinedFn(torch.autograd.Function):
    """Saves what the real Function saves (ctx.save_for_backward list above); computes its output with
    the torch path below under no_grad (rmsnorm after the gate, norm_before_gate=False)."""

    @staticmethod
    def forward(ctx, zxbcdt, mixer, A):
        with torch.no_grad():
            gate, xbc, dt = torch.split(zxbcdt, [mixer.intermediate_size, mixer.conv_dim, mixer.num_heads], dim=-1)
            y = mixer.scan(xbc, dt, A)  # (b, s, d_inner) in x's dtype: out_x
            out_x = torch.empty(y.shape, dtype=zxbcdt.dtype)  # the kernel's own (b, s, heads, head_dim) output
            out_x.copy_(y)
            normed = mixer.norm(out_x, gate)
            b, s, _ = out_x.shape
            grouped = (out_x.float() * F.silu(gate.float())).view(b * s, mixer.n_groups, -1)
            rstd = torch.rsqrt(grouped.pow(2).mean(-1) + mixer.norm.variance_epsilon).t().contiguous()  # (G, b*s)
            out = F.linear(normed, mixer.out_proj.weight, mixer.out_proj.bias)
        ctx.save_for_backward(zxbcdt, mixer.conv1d.weight, mixer.conv1d.bias, out_x, A, mixer.D, mixer.dt_bias,
                              mixer.norm.weight, rstd, mixer.out_proj.weight, mixer.out_proj.bias)
        return out

    @staticmethod
    def backward(ctx, dout):
        raise NotImplementedError("measured for its saved tensors only")


class Mamba2Mixer(nn.Module):
    def __init__(self, hidden, heads, head_dim, n_groups, d_state, conv, chunk_size, kernels, conv_bias=True,
                 proj_bias=False, eps=1e-5):
        super().__init__()
        self.hidden_size, self.num_heads, self.head_dim = hidden, heads, head_dim
        self.n_groups, self.ssm_state_size, self.conv_kernel_size = n_groups, d_state, conv
        self.chunk_size, self.kernels = chunk_size, kernels
        self.intermediate_size = heads * head_dim
        self.conv_dim = self.intermediate_size + 2 * n_groups * d_state
        self.time_step_min = 0.001
        self.conv1d = nn.Conv1d(self.conv_dim, self.conv_dim, bias=conv_bias, kernel_size=conv, groups=self.conv_dim,
                                padding=conv - 1)
        self.in_proj = nn.Linear(hidden, self.intermediate_size + self.conv_dim + heads, bias=proj_bias)
        self.dt_bias = nn.Parameter(torch.ones(heads))
        self.A_log = nn.Parameter(torch.log(torch.arange(1, heads + 1).float()))
        self.norm = Zamba2RMSNormGated(self.intermediate_size, self.intermediate_size // n_groups, eps)
        self.D = nn.Parameter(torch.ones(heads))
        self.out_proj = nn.Linear(self.intermediate_size, hidden, bias=proj_bias)

    def scan(self, hidden_states, dt, A):
        """torch_forward from the convolution to y (no cache), transformers' naive SSD."""
        batch_size, seq_len, _ = hidden_states.shape
        hidden_states = F.silu(self.conv1d(hidden_states.transpose(1, 2))[..., :seq_len].transpose(1, 2))
        hidden_states, B, C = torch.split(hidden_states, [self.intermediate_size, self.n_groups * self.ssm_state_size,
                                                          self.n_groups * self.ssm_state_size], dim=-1)
        dt = F.softplus(dt + self.dt_bias)
        dt = torch.clamp(dt, self.time_step_min)
        hidden_states = hidden_states.reshape(batch_size, seq_len, -1, self.head_dim).float()
        B = B.reshape(batch_size, seq_len, -1, self.ssm_state_size).float()
        C = C.reshape(batch_size, seq_len, -1, self.ssm_state_size).float()
        B = B.repeat_interleave(self.num_heads // self.n_groups, dim=2)
        C = C.repeat_interleave(self.num_heads // self.n_groups, dim=2)
        pad_size = (self.chunk_size - seq_len % self.chunk_size) % self.chunk_size
        D_residual = self.D[..., None] * pad_tensor_by_size(hidden_states, pad_size)
        hidden_states = hidden_states * dt[..., None]
        A = A.to(hidden_states.dtype) * dt
        hidden_states, A, B, C = [reshape_into_chunks(t, pad_size, self.chunk_size) for t in (hidden_states, A, B, C)]
        A = A.permute(0, 3, 1, 2)
        A_cumsum = torch.cumsum(A, dim=-1)
        L = torch.exp(segment_sum(A))
        G_intermediate = C[:, :, :, None, :, :] * B[:, :, None, :, :, :]
        G = G_intermediate.sum(dim=-1)
        M_intermediate = G[..., None] * L.permute(0, 2, 3, 4, 1)[..., None]
        M = M_intermediate.sum(dim=-1)
        Y_diag = (M[..., None] * hidden_states[:, :, None]).sum(3)
        decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
        B_decay_contraction = B * decay_states.permute(0, 2, 3, 1)[..., None]
        states = (B_decay_contraction.permute(0, 1, 3, 2, 4)[..., None]
                  * hidden_states.permute(0, 1, 3, 2, 4)[..., None, :]).sum(dim=3).permute(0, 1, 2, 4, 3)
        previous_states = torch.zeros_like(states[:, :1])
        states = torch.cat([previous_states, states], dim=1)
        decay_chunk = torch.exp(segment_sum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
        states_permuted = states.permute(0, 2, 1, 3, 4)
        result = (decay_chunk[..., None, None] * states_permuted[:, :, None, ...]).sum(dim=2)
        new_states = result.permute(0, 2, 1, 3, 4)
        states = new_states[:, :-1]
        state_decay_out = torch.exp(A_cumsum)
        C_times_states = (C[..., None, :] * states[:, :, None, ...])
        state_decay_out_permuted = state_decay_out.permute(0, 2, 3, 1)
        Y_off = (C_times_states.sum(-1) * state_decay_out_permuted[..., None])
        y = Y_diag + Y_off
        y = y.reshape(batch_size, -1, self.num_heads, self.head_dim)
        y = y + D_residual
        if pad_size > 0:
            y = y[:, :seq_len, :, :]
        return y.reshape(batch_size, seq_len, -1)

    def forward(self, input_states):
        dtype = input_states.dtype
        projected_states = self.in_proj(input_states)
        A = -torch.exp(self.A_log.float())
        if self.kernels:  # cuda_kernels_forward, training without cache: the fused Function
            return MambaSplitConv1dScanCombinedFn.apply(projected_states, self, A)
        gate, hidden_states, dt = projected_states.split([self.intermediate_size, self.conv_dim, self.num_heads], dim=-1)
        y = self.scan(hidden_states, dt, A)
        scan_output = self.norm(y, gate)
        return self.out_proj(scan_output.to(dtype))


# ----------------------------------------------------------------------------- gpt-oss attention

def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def _apply_rotary_emb(x, cos, sin):
    first_half, second_half = torch.chunk(x, 2, dim=-1)
    first_ = first_half * cos - second_half * sin
    second_ = second_half * cos + first_half * sin
    return torch.cat((first_, second_), dim=-1)


def gpt_oss_rotary(head_dim, s, dtype, base=150000.0):
    """GptOssRotaryEmbedding.forward (default rope, scaling 1): cos and sin of the half dimension."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    freqs = torch.arange(s, dtype=torch.float32)[:, None] * inv_freq[None, :]
    return freqs.cos()[None].to(dtype), freqs.sin()[None].to(dtype)


def sliding_window_mask(s, window, dtype):
    """create_sliding_window_causal_mask as an additive float mask: key j visible from query i when
    i - window < j <= i (window=None: causal only)."""
    i = torch.arange(s)[:, None]
    j = torch.arange(s)[None, :]
    keep = j <= i
    if window:
        keep &= j > i - window
    return torch.zeros(1, 1, s, s, dtype=dtype).masked_fill(~keep, torch.finfo(dtype).min)


class GptOssAttention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, window=None):
        super().__init__()
        self.head_dim, self.num_key_value_groups = head_dim, heads // kv_heads
        self.scaling = head_dim ** -0.5
        self.q_proj = nn.Linear(hidden, heads * head_dim, bias=True)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=True)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=True)
        self.o_proj = nn.Linear(heads * head_dim, hidden, bias=True)
        self.sinks = nn.Parameter(torch.randn(heads) * 0.02)
        self.window = window

    def forward(self, hidden_states, cos, sin, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        query, key = _apply_rotary_emb(query, cos, sin), _apply_rotary_emb(key, cos, sin)
        # eager_attention_forward
        key_states = repeat_kv(key, self.num_key_value_groups)
        value_states = repeat_kv(value, self.num_key_value_groups)
        attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights + attention_mask[:, :, :, : key_states.shape[-2]]
        sinks = self.sinks.reshape(1, -1, 1, 1).expand(query.shape[0], -1, query.shape[-2], -1)
        combined_logits = torch.cat([attn_weights, sinks.to(attn_weights.dtype)], dim=-1)
        combined_logits = combined_logits - combined_logits.max(dim=-1, keepdim=True).values
        probs = F.softmax(combined_logits, dim=-1, dtype=combined_logits.dtype)
        scores = probs[..., :-1]
        attn_output = torch.matmul(scores, value_states)  # dropout p=0.0 (attention_dropout): its input
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


# ----------------------------------------------------------------------------- Qwen3-Next attention

class Qwen3NextRMSNorm(nn.Module):
    """Qwen3NextRMSNorm: weight initialised to zeros, output = norm(x.float()) * (1 + weight.float()), then
    type_as(x) (the scale in fp32, unlike Llama's x.to(dtype) * w)."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float())
        output = output * (1.0 + self.weight.float())
        return output.type_as(x)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def qwen3_next_rotary(head_dim, partial, s, dtype, base=10000000.0):
    """Qwen3NextRotaryEmbedding (default rope): cos and sin over int(head_dim * partial) dimensions."""
    dim = int(head_dim * partial)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    freqs = torch.arange(s, dtype=torch.float32)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[None].to(dtype), emb.sin()[None].to(dtype)


def qwen3_next_apply_rotary(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    rotary_dim = cos.shape[-1]
    q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
    k_rot, k_pass = k[..., :rotary_dim], k[..., rotary_dim:]
    q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
    k_embed = (k_rot * cos) + (rotate_half(k_rot) * sin)
    return torch.cat([q_embed, q_pass], dim=-1), torch.cat([k_embed, k_pass], dim=-1)


class Qwen3NextAttentionBlock(nn.Module):
    """input_layernorm then Qwen3NextAttention (eager, no dropout: attention_dropout 0.0)."""

    def __init__(self, hidden, heads, kv_heads, head_dim, partial_rotary, eps=1e-6):
        super().__init__()
        self.head_dim, self.num_key_value_groups = head_dim, heads // kv_heads
        self.scaling = head_dim ** -0.5
        self.input_layernorm = Qwen3NextRMSNorm(hidden, eps)
        self.q_proj = nn.Linear(hidden, heads * head_dim * 2, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)
        self.q_norm = Qwen3NextRMSNorm(head_dim, eps)
        self.k_norm = Qwen3NextRMSNorm(head_dim, eps)

    def forward(self, residual, cos, sin, attention_mask):
        hidden_states = self.input_layernorm(residual)
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states, gate = torch.chunk(self.q_proj(hidden_states).view(*input_shape, -1, self.head_dim * 2), 2,
                                         dim=-1)
        gate = gate.reshape(*input_shape, -1)
        query_states = self.q_norm(query_states.view(hidden_shape)).transpose(1, 2)
        key_states = self.k_norm(self.k_proj(hidden_states).view(hidden_shape)).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        query_states, key_states = qwen3_next_apply_rotary(query_states, key_states, cos, sin)
        # eager_attention_forward
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights + attention_mask
        attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = attn_output * torch.sigmoid(gate)
        return self.o_proj(attn_output)


# ----------------------------------------------------------------------------- Kimi Delta Attention

class FlaCausalConv1dFunction(torch.autograd.Function):
    """fla CausalConv1dFunction (triton backend): saves its (b, t, d) input x, weight, bias."""

    @staticmethod
    def forward(ctx, x, weight, bias, activation):
        x = x.contiguous()  # @input_guard
        ctx.save_for_backward(x, weight, bias)
        t, width = x.shape[1], weight.shape[-1]
        y = F.conv1d(x.transpose(1, 2), weight, bias, padding=width - 1, groups=x.shape[-1])[..., :t]
        if activation in ("silu", "swish"):
            y = F.silu(y)
        return y.transpose(1, 2).contiguous()  # causal_conv1d_fwd: a new (b, t, d) tensor

    @staticmethod
    def backward(ctx, dy):
        raise NotImplementedError("measured for its saved tensors only")


class ShortConvolution(nn.Module):
    def __init__(self, hidden_size, kernel_size, activation="silu"):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, 1, kernel_size) * 0.1)  # nn.Conv1d's (d, 1, w)
        self.activation = activation

    def forward(self, x):
        return FlaCausalConv1dFunction.apply(x, self.weight, None, self.activation)


class KDAGateFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, g, A, head_k_dim, g_bias):
        g = g.contiguous()  # @input_guard
        ctx.save_for_backward(g, A)
        heads = A.numel()
        x = g.float().view(*g.shape[:-1], heads, head_k_dim) + g_bias.float().view(heads, head_k_dim)
        return -A.float().view(heads, 1).exp() * F.softplus(x)  # kda_gate_fwd: y fp32, (..., H, D)

    @staticmethod
    def backward(ctx, dy):
        raise NotImplementedError("measured for its saved tensors only")


def chunk_local_cumsum_vector(g, chunk_size=64):
    """fla chunk_local_cumsum on a (b, t, h, d) gate: cumsum within each chunk, fp32 output."""
    b, t, h, d = g.shape
    pad = (chunk_size - t % chunk_size) % chunk_size
    gp = F.pad(g.float(), (0, 0, 0, 0, 0, pad)).reshape(b, -1, chunk_size, h, d).cumsum(2)
    return gp.reshape(b, -1, h, d)[:, :t].contiguous()


def l2norm_fwd(x, eps=1e-6):
    """fla l2norm_fwd: y = x * rstd in x's dtype (a new tensor), rstd one fp32 per row."""
    rows = x.reshape(-1, x.shape[-1]).float()
    rstd = torch.rsqrt((rows * rows).sum(-1) + eps)
    return (rows * rstd[:, None]).to(x.dtype).view(x.shape), rstd


class ChunkKDAFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, g, beta, scale):
        q, k, v, g, beta = (x.contiguous() for x in (q, k, v, g, beta))  # @input_guard
        q, q_rstd = l2norm_fwd(q)
        k, k_rstd = l2norm_fwd(k)
        # The output by the recurrence (fla/ops/kda/naive.py's order), fp32: S <- S * exp(g_t) per key
        # channel, then the delta rule with beta_t, o_t = S^T (q_t * scale).
        b, t, h, dk = k.shape
        state = torch.zeros(b, h, dk, v.shape[-1])
        out = torch.empty(b, t, h, v.shape[-1])
        for i in range(t):
            state = state * g[:, i].float().exp()[..., None]
            k_i, v_i = k[:, i].float(), v[:, i].float()
            delta = (v_i - (state * k_i[..., None]).sum(-2)) * beta[:, i].float()[..., None]
            state = state + k_i[..., None] * delta[..., None, :]
            out[:, i] = (state * (q[:, i].float() * scale)[..., None]).sum(-2)
        g = chunk_local_cumsum_vector(g)
        Aqk = torch.empty(b, t, h, 64, dtype=torch.float32)  # chunk_kda_fwd_intra(output_dtype=torch.float32)
        Akk = torch.empty(b, t, h, 64, dtype=k.dtype)  # solve_tril(A=Akk, output_dtype=k.dtype)
        ctx.save_for_backward(q, q_rstd, k, k_rstd, v, g, beta, Aqk, Akk)
        return out.to(q.dtype)

    @staticmethod
    def backward(ctx, do):
        raise NotImplementedError("measured for its saved tensors only")


class KimiDeltaAttention(nn.Module):
    def __init__(self, hidden, heads, head_dim, conv, eps=1e-6):
        super().__init__()
        self.num_heads, self.head_dim = heads, head_dim
        size = heads * head_dim
        self.q_proj = nn.Linear(hidden, size, bias=False)
        self.k_proj = nn.Linear(hidden, size, bias=False)
        self.v_proj = nn.Linear(hidden, size, bias=False)
        self.q_conv1d = ShortConvolution(size, conv)
        self.k_conv1d = ShortConvolution(size, conv)
        self.v_conv1d = ShortConvolution(size, conv)
        self.A_log = nn.Parameter(torch.log(torch.empty(heads).uniform_(1, 16)).view(1, 1, -1, 1))
        self.f_a_proj = nn.Linear(hidden, head_dim, bias=False)
        self.f_b_proj = nn.Linear(head_dim, size, bias=False)
        self.dt_bias = nn.Parameter(torch.zeros(size))
        self.b_proj = nn.Linear(hidden, heads, bias=False)
        self.g_a_proj = nn.Linear(hidden, head_dim, bias=False)
        self.g_b_proj = nn.Linear(head_dim, size, bias=False)
        self.o_norm = FusedRMSNormGated(head_dim, eps, activation="sigmoid")
        self.o_proj = nn.Linear(size, hidden, bias=False)

    def forward(self, hidden_states):
        b, t, _ = hidden_states.shape
        q = self.q_conv1d(self.q_proj(hidden_states))
        k = self.k_conv1d(self.k_proj(hidden_states))
        v = self.v_conv1d(self.v_proj(hidden_states))
        g = self.f_b_proj(self.f_a_proj(hidden_states))
        g = KDAGateFunction.apply(g, self.A_log, self.head_dim, self.dt_bias)
        beta = self.b_proj(hidden_states).float().sigmoid()
        q, k, v = (x.view(b, t, -1, self.head_dim) for x in (q, k, v))  # rearrange "... (h d) -> ... h d"
        o = ChunkKDAFunction.apply(q, k, v, g, beta, self.head_dim ** -0.5)
        g = self.g_b_proj(self.g_a_proj(hidden_states)).view(b, t, -1, self.head_dim)
        o = self.o_norm(o, g)
        return self.o_proj(o.reshape(b, t, -1))


__all__ = ["KimiDeltaAttention", "GatedDeltaNet", "Mamba2Mixer", "GptOssAttention", "gpt_oss_rotary", "sliding_window_mask",
           "Qwen3NextAttentionBlock", "qwen3_next_rotary", "math"]
