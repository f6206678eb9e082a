"""Faithful replicas of Hugging Face transformers' decoder models, for measuring what
eager PyTorch saves for backward.

Same ops, in the same order, with the same dtype casts as the transformers source that
was read (huggingface/transformers, versions stored in the public code index; the whole
repository could not be fetched: its snapshot is 1.33 GB, over the 500 MiB limit):

  src/transformers/models/llama/modeling_llama.py      @ 5dd4a63548857797727ae73eeb6a6e886ea02a3e
  src/transformers/models/qwen2/modeling_qwen2.py      @ 63bb723747035466e5339aea864b133f709b067d
        (the newest layout read: GradientCheckpointingLayer, layer_types, Unpack kwargs;
         its RMSNorm / rotary / repeat_kv / eager_attention_forward / MLP / decoder layer are
         line-for-line those of Llama)
  src/transformers/integrations/sdpa_attention.py      @ e2feb59b62124ad52a51616968f1465613bf8644
  src/transformers/loss/loss_utils.py                  @ d0fed636753eeb35d790126c4496d06847983d60
        (ForCausalLMLoss; newer versions add `shift_labels=` and move num_items_in_batch to the
         loss device: same ops when labels are given and num_items_in_batch is None)
  src/transformers/modeling_layers.py                  @ 9f84789d9a6a13ce7ddf2e57a940db5bb1ea4c50
        (GradientCheckpointingLayer.__call__: partial(super().__call__, **kwargs), *args)
  src/transformers/models/gpt2/modeling_gpt2.py        @ c44b2d9976e8eafbdcb89cb2710141b2bc9b138f
        plus the module-level eager_attention_forward(module, query, key, value,
        attention_mask, **kwargs) of the current (v5-era) GPT-2 file (where() with the
        causal `bias` buffer, then the additive mask from create_causal_mask)
  activations.py NewGELUActivation: 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*pow(x,3.0))));
        ACT2FN["silu"] is nn.SiLU (F.silu).

Assumptions (stated, because they change what is saved):
  * Dropout is done as on CUDA: F.dropout on a CUDA tensor with 0<p<1 calls
    at::native_dropout, which saves a bool mask (1 byte/element) and no input. On the CPU,
    1.13's F.dropout uses `input * bernoulli_noise` instead (saves the noise in the input's
    dtype), so every dropout here calls torch.native_dropout explicitly.
  * SDPA: torch 1.13 has no public F.scaled_dot_product_attention. HF's sdpa path calls
    repeat_kv (no enable_gqa: torch < 2.5, or an explicit mask) and then F.sdpa; here the
    math backend (aten _scaled_dot_product_attention_math, as in pytorch/pytorch
    attention.cpp) is written out: [upcast bf16/fp16 q,k,v to fp32 unless
    allow_fp16_bf16_reduction_math_sdp: torch >= 2.5, `math_upcast`], q*sqrt(scale),
    (k^T*sqrt(scale)), matmul, causal mask (built inside when is_causal) added in place,
    softmax (_safe_softmax in 2.5+: same saved result), dropout, @v, cast back.
    The fused flash / memory-efficient kernels save different things (see README).
  * Rotary cos/sin are computed under no_grad (as HF's @torch.no_grad forward).
  * The causal mask for eager attention is the float (b,1,q,kv) mask with dtype-min that
    create_causal_mask builds (no grad); for SDPA with no padding it is None (is_causal).
"""

import functools
import math
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn

TRANSFORMERS_FILES = {
    "src/transformers/models/llama/modeling_llama.py": "5dd4a63548857797727ae73eeb6a6e886ea02a3e",
    "src/transformers/models/qwen2/modeling_qwen2.py": "63bb723747035466e5339aea864b133f709b067d",
    "src/transformers/integrations/sdpa_attention.py": "e2feb59b62124ad52a51616968f1465613bf8644",
    "src/transformers/loss/loss_utils.py": "d0fed636753eeb35d790126c4496d06847983d60",
    "src/transformers/modeling_layers.py": "9f84789d9a6a13ce7ddf2e57a940db5bb1ea4c50",
    "src/transformers/models/gpt2/modeling_gpt2.py": "c44b2d9976e8eafbdcb89cb2710141b2bc9b138f",
}
# The one commit to cite when only one fits: the newest layout that was read.
TRANSFORMERS_COMMIT = "63bb723747035466e5339aea864b133f709b067d"


def cuda_like_dropout(x, p, training):
    """nn.functional.dropout as it runs on CUDA (at::dropout -> at::native_dropout)."""
    if not training or p == 0.0 or x.numel() == 0:
        return x  # at::dropout returns the input itself
    return torch.native_dropout(x, p, True)[0]


class CudaLikeDropout(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return cuda_like_dropout(x, self.p, self.training)


@dataclass
class Config:
    family: str = "llama"               # llama | qwen2 | mistral | gpt2
    hidden_size: int = 128
    intermediate_size: int = 344
    num_attention_heads: int = 8
    num_key_value_heads: int = 2
    head_dim: Optional[int] = None      # None: hidden_size // heads
    vocab_size: int = 1000
    num_hidden_layers: int = 2
    rms_norm_eps: float = 1e-6
    layer_norm_epsilon: float = 1e-5
    rope_theta: float = 10000.0
    attention_dropout: float = 0.0      # llama-style attention_dropout
    attention_bias: bool = False
    mlp_bias: bool = False
    sliding_window: Optional[int] = None
    max_position_embeddings: int = 256
    attn_implementation: str = "eager"  # eager | sdpa_math
    math_upcast: bool = True            # torch >= 2.5 math SDPA upcasts bf16/fp16 to fp32
    # gpt2
    resid_pdrop: float = 0.0
    embd_pdrop: float = 0.0
    attn_pdrop: float = 0.0
    tie_word_embeddings: bool = False
    gradient_checkpointing: str = "none"  # none | reentrant | non_reentrant

    def __post_init__(self):
        if self.head_dim is None:
            self.head_dim = self.hidden_size // self.num_attention_heads


# ----------------------------------------------------------------------------- Llama family

class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        dim = config.head_dim
        # ROPE_INIT_FUNCTIONS["default"]
        inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype=torch.float) / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1).to(x.device)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    key_states = repeat_kv(key, module.num_key_value_groups)
    value_states = repeat_kv(value, module.num_key_value_groups)

    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask

    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_weights = cuda_like_dropout(attn_weights, dropout, module.training)  # nn.functional.dropout
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights


def math_sdpa(query_, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, upcast=True):
    """aten::_scaled_dot_product_attention_math written out (pytorch attention.cpp)."""
    origin_dtype = query_.dtype
    low = (torch.float16, torch.bfloat16)
    query_acc = query_.to(torch.float) if upcast and query_.dtype in low else query_
    key_acc = key.to(torch.float) if upcast and key.dtype in low else key
    value_acc = value.to(torch.float) if upcast and value.dtype in low else value
    if scale is None:
        scale = 1.0 / math.sqrt(query_acc.size(-1))
    scaling_factor = math.sqrt(scale)
    query = query_acc * scaling_factor
    if is_causal:
        assert attn_mask is None
        L, S = query.size(-2), key_acc.size(-2)
        attn_mask = torch.ones(L, S, dtype=torch.bool, device=query.device).tril()
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        # convert_boolean_attn_mask: new float tensor, 0 where attended, -inf elsewhere
        new_mask = torch.zeros(attn_mask.shape, dtype=query.dtype, device=query.device)
        attn_mask = new_mask.masked_fill(attn_mask.logical_not(), float("-inf"))
    # enable_gqa=False: key/value already carry all heads (HF called repeat_kv)
    attn = torch.matmul(query, key_acc.transpose(-2, -1) * scaling_factor)
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = torch.softmax(attn, -1)  # at::_safe_softmax (2.5+) / at::_softmax: saves its result
    if dropout_p > 0.0:
        attn = cuda_like_dropout(attn, dropout_p, True)  # at::dropout(attn, p, true)
    out = torch.matmul(attn, value_acc)
    return out.to(origin_dtype), attn.to(origin_dtype)


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kwargs):
    # use_gqa_in_sdpa() is False (torch < 2.5 or a mask): repeat_kv, as HF does
    if hasattr(module, "num_key_value_groups"):
        key = repeat_kv(key, module.num_key_value_groups)
        value = repeat_kv(value, module.num_key_value_groups)
    if attention_mask is not None and attention_mask.ndim == 4:
        attention_mask = attention_mask[:, :, :, : key.shape[-2]]
    if is_causal is None:
        is_causal = query.shape[2] > 1 and attention_mask is None and getattr(module, "is_causal", True)
    attn_output, _ = math_sdpa(query, key, value, attn_mask=attention_mask, dropout_p=dropout,
                               scale=scaling, is_causal=is_causal, upcast=module.config.math_upcast)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


ATTENTION_FUNCTIONS = {"eager": eager_attention_forward, "sdpa_math": sdpa_attention_forward}


class LlamaAttention(nn.Module):
    def __init__(self, config: Config, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.head_dim = config.head_dim
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        self.attention_dropout = config.attention_dropout
        self.is_causal = True
        qkv_bias = config.attention_bias or config.family == "qwen2"   # Qwen2: bias=True on q,k,v
        o_bias = config.attention_bias and config.family != "qwen2"     # Qwen2: o_proj bias=False
        self.q_proj = nn.Linear(config.hidden_size, config.num_attention_heads * self.head_dim, bias=qkv_bias)
        self.k_proj = nn.Linear(config.hidden_size, config.num_key_value_heads * self.head_dim, bias=qkv_bias)
        self.v_proj = nn.Linear(config.hidden_size, config.num_key_value_heads * self.head_dim, bias=qkv_bias)
        self.o_proj = nn.Linear(config.num_attention_heads * self.head_dim, config.hidden_size, bias=o_bias)
        self.sliding_window = config.sliding_window if config.family == "mistral" else None

    def forward(self, hidden_states, position_embeddings, attention_mask, **kwargs):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)

        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)

        past_key_values = kwargs.pop("past_key_values", None)
        if past_key_values is not None:
            key_states, value_states = past_key_values.update(key_states, value_states, self.layer_idx)

        attention_interface = ATTENTION_FUNCTIONS[self.config.attn_implementation]
        attn_output, attn_weights = attention_interface(
            self, query_states, key_states, value_states, attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout,
            scaling=self.scaling, sliding_window=self.sliding_window,
        )
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class LlamaMLP(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=config.mlp_bias)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=config.mlp_bias)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=config.mlp_bias)
        self.act_fn = nn.SiLU()  # ACT2FN["silu"]

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class GradientCheckpointingLayer(nn.Module):
    """transformers.modeling_layers.GradientCheckpointingLayer.__call__"""
    gradient_checkpointing = False
    _gradient_checkpointing_func = None
    _scope_hook = None   # set by the measuring harness: a context manager factory (name)

    def __call__(self, *args, **kwargs):
        if self.gradient_checkpointing and self.training:
            for k in ("past_key_value", "past_key_values", "layer_past"):
                if kwargs.get(k) is not None:
                    kwargs[k] = None
            scope = self._scope_hook(self) if self._scope_hook is not None else _nullscope()
            with scope:
                return self._gradient_checkpointing_func(functools.partial(super().__call__, **kwargs), *args)
        return super().__call__(*args, **kwargs)


class _nullscope:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class LlamaDecoderLayer(GradientCheckpointingLayer):
    def __init__(self, config: Config, layer_idx: int):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.self_attn = LlamaAttention(config=config, layer_idx=layer_idx)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_values=None,
                use_cache=False, cache_position=None, position_embeddings=None, **kwargs):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        if past_key_values is not None:
            kwargs["past_key_values"] = past_key_values
        hidden_states, _ = self.self_attn(
            hidden_states=hidden_states, attention_mask=attention_mask, position_ids=position_ids,
            position_embeddings=position_embeddings, **kwargs,
        )
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + hidden_states
        return hidden_states


def make_causal_mask(config: Config, batch, q_len, kv_len, dtype, device, for_sdpa, past=0):
    """masking_utils.create_causal_mask / create_sliding_window_causal_mask, no padding.
    eager: float (b,1,q,kv) mask, 0 where attended and finfo(dtype).min elsewhere.
    sdpa: None when the plain causal mask can be skipped (is_causal=True), else a bool mask."""
    window = config.sliding_window if config.family == "mistral" else None
    if for_sdpa and (window is None or window >= kv_len):
        return None
    q_idx = torch.arange(past, past + q_len, device=device)[:, None]
    kv_idx = torch.arange(kv_len, device=device)[None, :]
    allowed = kv_idx <= q_idx
    if window is not None:
        allowed = allowed & (kv_idx > q_idx - window)
    allowed = allowed[None, None, :, :].expand(batch, 1, q_len, kv_len)
    if for_sdpa:
        return allowed
    min_dtype = torch.finfo(dtype).min
    return torch.where(allowed, torch.tensor(0.0, device=device, dtype=dtype), min_dtype)


def for_causal_lm_loss(logits, labels, vocab_size, num_items_in_batch=None, ignore_index=-100, shift_labels=None, **kwargs):
    """transformers.loss.loss_utils.ForCausalLMLoss + fixed_cross_entropy"""
    logits = logits.float()
    if shift_labels is None:
        labels = labels.to(logits.device)
        labels = nn.functional.pad(labels, (0, 1), value=ignore_index)
        shift_labels = labels[..., 1:].contiguous()
    logits = logits.view(-1, vocab_size)
    shift_labels = shift_labels.view(-1)
    shift_labels = shift_labels.to(logits.device)
    reduction = "sum" if num_items_in_batch is not None else "mean"
    loss = nn.functional.cross_entropy(logits, shift_labels, ignore_index=ignore_index, reduction=reduction)
    if reduction == "sum":
        loss = loss / num_items_in_batch
    return loss


class LossScope(nn.Module):
    """A module around the loss so that forward hooks can tag what it saves ("loss")."""

    def __init__(self, vocab_size):
        super().__init__()
        self.vocab_size = vocab_size

    def forward(self, logits, labels):
        return for_causal_lm_loss(logits=logits, labels=labels, vocab_size=self.vocab_size)


class LlamaModel(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size, None)
        self.layers = nn.ModuleList([LlamaDecoderLayer(config, i) for i in range(config.num_hidden_layers)])
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(config=config)

    def forward(self, input_ids, past_key_values=None):
        inputs_embeds = self.embed_tokens(input_ids)
        past = past_key_values.get_seq_length() if past_key_values is not None else 0
        cache_position = torch.arange(past, past + inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        causal_mask = make_causal_mask(self.config, inputs_embeds.shape[0], inputs_embeds.shape[1],
                                       past + inputs_embeds.shape[1], inputs_embeds.dtype, inputs_embeds.device,
                                       for_sdpa=self.config.attn_implementation != "eager", past=past)
        hidden_states = inputs_embeds
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        for decoder_layer in self.layers[: self.config.num_hidden_layers]:
            hidden_states = decoder_layer(
                hidden_states, attention_mask=causal_mask, position_ids=position_ids,
                past_key_values=past_key_values, use_cache=past_key_values is not None,
                cache_position=cache_position, position_embeddings=position_embeddings,
            )
        hidden_states = self.norm(hidden_states)
        return hidden_states


class LlamaForCausalLM(nn.Module):
    """Also Qwen2ForCausalLM and MistralForCausalLM (same forward)."""

    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.vocab_size = config.vocab_size
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        self.loss_function = LossScope(config.vocab_size)

    def forward(self, input_ids, labels=None, logits_to_keep=0, past_key_values=None):
        hidden_states = self.model(input_ids, past_key_values=past_key_values)
        slice_indices = slice(-logits_to_keep, None) if isinstance(logits_to_keep, int) else logits_to_keep
        logits = self.lm_head(hidden_states[:, slice_indices, :])
        loss = None
        if labels is not None:
            loss = self.loss_function(logits, labels)
        return loss, logits


class ReplicaCache:
    """A minimal DynamicCache: per layer, keys and values concatenated along the sequence."""

    def __init__(self):
        self.keys, self.values = {}, {}

    def update(self, k, v, layer_idx):
        if layer_idx in self.keys:
            k = torch.cat([self.keys[layer_idx], k], dim=-2)
            v = torch.cat([self.values[layer_idx], v], dim=-2)
        self.keys[layer_idx], self.values[layer_idx] = k, v
        return k, v

    def get_seq_length(self):
        return next(iter(self.keys.values())).shape[-2] if self.keys else 0

    def nbytes(self):
        return sum(t.numel() * t.element_size() for d in (self.keys, self.values) for t in d.values())


@torch.no_grad()
def greedy_decode(model, input_ids, max_new_tokens):
    """A manual decode loop with a KV cache (what generate() does with greedy search; the
    last position's logits only, as generate() asks with logits_to_keep=1)."""
    cache = ReplicaCache()
    _, logits = model(input_ids, past_key_values=cache, logits_to_keep=1)
    out = [input_ids]
    for i in range(max_new_tokens):
        nxt = logits[:, -1, :].argmax(-1, keepdim=True)
        out.append(nxt)
        if i + 1 < max_new_tokens:  # generate() runs prefill + (max_new_tokens - 1) decode steps
            _, logits = model(nxt, past_key_values=cache, logits_to_keep=1)
    return torch.cat(out, dim=1), cache


class LoraLinear(nn.Module):
    """peft.tuners.lora.layer.Linear.forward (huggingface/peft src/peft/tuners/lora/layer.py):
    result = base_layer(x); x = self._cast_input_dtype(x, lora_A.weight.dtype);
    result = result + lora_B(lora_A(dropout(x))) * scaling; result = result.to(torch_result_dtype).
    Base frozen, lora_B initialised to zero. The adapters' dtype: get_peft_model's default
    autocast_adapter_dtype=True makes bf16/fp16 adapters fp32 (peft tuners_utils
    _cast_adapter_dtype); adapter_dtype=None keeps the base's dtype."""

    def __init__(self, base: nn.Linear, r=16, alpha=32, dropout=0.0, adapter_dtype=torch.float32):
        super().__init__()
        self.base_layer = base
        base.weight.requires_grad_(False)
        if base.bias is not None:
            base.bias.requires_grad_(False)
        dev, dt = base.weight.device, adapter_dtype or base.weight.dtype
        self.lora_A = nn.Linear(base.in_features, r, bias=False, device=dev, dtype=dt)
        self.lora_B = nn.Linear(r, base.out_features, bias=False, device=dev, dtype=dt)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.lora_dropout = CudaLikeDropout(dropout) if dropout > 0 else nn.Identity()
        self.scaling = alpha / r

    def forward(self, x):
        result = self.base_layer(x)
        torch_result_dtype = result.dtype
        if x.dtype != self.lora_A.weight.dtype:  # _cast_input_dtype
            x = x.to(self.lora_A.weight.dtype)
        result = result + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling
        return result.to(torch_result_dtype)


LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def apply_lora(model: nn.Module, r=16, alpha=32, dropout=0.0, targets=LORA_TARGETS, adapter_dtype=torch.float32):
    """Freeze every parameter, then wrap the target linears (peft get_peft_model, bias='none')."""
    for p in model.parameters():
        p.requires_grad_(False)
    for name, mod in list(model.named_modules()):
        for child_name, child in list(mod.named_children()):
            if child_name in targets and isinstance(child, nn.Linear):
                setattr(mod, child_name, LoraLinear(child, r, alpha, dropout, adapter_dtype))
    return model


# ----------------------------------------------------------------------------- GPT-2

class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D"""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.nx = nx
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        x = x.view(size_out)
        return x


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


def gpt2_eager_attention_forward(module, query, key, value, attention_mask, **kwargs):
    attn_weights = torch.matmul(query, key.transpose(-1, -2))
    if module.scale_attn_weights:
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device)
    if module.scale_attn_by_inverse_layer_idx:
        attn_weights = attn_weights / float(module.layer_idx + 1)
    if not module.is_cross_attention:
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = module.bias[:, :, key_length - query_length: key_length, :key_length]
        mask_value = torch.finfo(attn_weights.dtype).min
        mask_value = torch.full([], mask_value, dtype=attn_weights.dtype, device=attn_weights.device)
        attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key.shape[-2]]
        attn_weights = attn_weights + causal_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1)
    attn_weights = attn_weights.type(value.dtype)
    attn_weights = module.attn_dropout(attn_weights)
    attn_output = torch.matmul(attn_weights, value)
    attn_output = attn_output.transpose(1, 2)
    return attn_output, attn_weights


class GPT2Attention(nn.Module):
    def __init__(self, config: Config, layer_idx=None):
        super().__init__()
        self.config = config
        max_positions = config.max_position_embeddings
        self.register_buffer("bias", torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
            1, 1, max_positions, max_positions), persistent=False)
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.scale_attn_weights = True
        self.is_cross_attention = False
        self.scale_attn_by_inverse_layer_idx = False
        self.layer_idx = layer_idx
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = CudaLikeDropout(config.attn_pdrop)
        self.resid_dropout = CudaLikeDropout(config.resid_pdrop)
        self.is_causal = True

    def forward(self, hidden_states, attention_mask=None, **kwargs):
        query_states, key_states, value_states = self.c_attn(hidden_states).split(self.split_size, dim=2)
        shape_kv = (*key_states.shape[:-1], -1, self.head_dim)
        key_states = key_states.view(shape_kv).transpose(1, 2)
        value_states = value_states.view(shape_kv).transpose(1, 2)
        shape_q = (*query_states.shape[:-1], -1, self.head_dim)
        query_states = query_states.view(shape_q).transpose(1, 2)
        attn_output, attn_weights = gpt2_eager_attention_forward(
            self, query_states, key_states, value_states, attention_mask,
            dropout=self.attn_dropout.p if self.training else 0.0)
        attn_output = attn_output.reshape(*attn_output.shape[:-2], -1).contiguous()
        attn_output = self.c_proj(attn_output)
        attn_output = self.resid_dropout(attn_output)
        return attn_output, attn_weights


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config: Config):
        super().__init__()
        embed_dim = config.hidden_size
        self.c_fc = Conv1D(intermediate_size, embed_dim)
        self.c_proj = Conv1D(embed_dim, intermediate_size)
        self.act = NewGELUActivation()  # ACT2FN["gelu_new"]
        self.dropout = CudaLikeDropout(config.resid_pdrop)

    def forward(self, hidden_states):
        hidden_states = self.c_fc(hidden_states)
        hidden_states = self.act(hidden_states)
        hidden_states = self.c_proj(hidden_states)
        hidden_states = self.dropout(hidden_states)
        return hidden_states


class GPT2Block(GradientCheckpointingLayer):
    def __init__(self, config: Config, layer_idx=None):
        super().__init__()
        hidden_size = config.hidden_size
        inner_dim = config.intermediate_size
        self.ln_1 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config=config, layer_idx=layer_idx)
        self.ln_2 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.mlp = GPT2MLP(inner_dim, config)

    def forward(self, hidden_states, attention_mask=None, **kwargs):
        residual = hidden_states
        hidden_states = self.ln_1(hidden_states)
        attn_output, _ = self.attn(hidden_states, attention_mask=attention_mask)
        hidden_states = attn_output + residual
        residual = hidden_states
        hidden_states = self.ln_2(hidden_states)
        feed_forward_hidden_states = self.mlp(hidden_states)
        hidden_states = residual + feed_forward_hidden_states
        return hidden_states


class GPT2Model(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.embed_dim = config.hidden_size
        self.wte = nn.Embedding(config.vocab_size, self.embed_dim)
        self.wpe = nn.Embedding(config.max_position_embeddings, self.embed_dim)
        self.drop = CudaLikeDropout(config.embd_pdrop)
        self.h = nn.ModuleList([GPT2Block(config, layer_idx=i) for i in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(self.embed_dim, eps=config.layer_norm_epsilon)

    def forward(self, input_ids):
        inputs_embeds = self.wte(input_ids)
        cache_position = torch.arange(0, inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        position_embeds = self.wpe(position_ids)
        hidden_states = inputs_embeds + position_embeds.to(inputs_embeds.device)
        causal_mask = make_causal_mask(self.config, inputs_embeds.shape[0], inputs_embeds.shape[1],
                                       inputs_embeds.shape[1], inputs_embeds.dtype, inputs_embeds.device,
                                       for_sdpa=False)
        hidden_states = self.drop(hidden_states)
        for block in self.h:
            hidden_states = block(hidden_states, attention_mask=causal_mask)
        hidden_states = self.ln_f(hidden_states)
        return hidden_states


class GPT2LMHeadModel(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.transformer = GPT2Model(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied (tie_word_embeddings=True)
        self.loss_function = LossScope(config.vocab_size)

    def forward(self, input_ids, labels=None, logits_to_keep=0):
        hidden_states = self.transformer(input_ids)
        slice_indices = slice(-logits_to_keep, None) if isinstance(logits_to_keep, int) else logits_to_keep
        logits = self.lm_head(hidden_states[:, slice_indices, :])
        loss = None
        if labels is not None:
            loss = self.loss_function(logits, labels)
        return loss, logits


# ----------------------------------------------------------------------------- builders

def init_weights_(module, std=0.02):
    """Random weights (no download), like _init_weights: normal(0, 0.02), norms at 1."""
    for name, p in module.named_parameters():
        if p.dim() >= 2:
            nn.init.normal_(p, std=std)
        elif name.endswith("bias"):
            nn.init.zeros_(p)
        else:
            nn.init.ones_(p)


def build_block(config: Config, dtype):
    if config.family == "gpt2":
        block = GPT2Block(config, layer_idx=0)
    else:
        block = LlamaDecoderLayer(config, 0)
    init_weights_(block)
    return block.to(dtype)


def build_model(config: Config, dtype):
    if config.family == "gpt2":
        model = GPT2LMHeadModel(config)
    else:
        model = LlamaForCausalLM(config)
    init_weights_(model)
    model = model.to(dtype)
    return model


def set_gradient_checkpointing(model: nn.Module, mode: str):
    """PreTrainedModel.gradient_checkpointing_enable: partial(checkpoint, **kwargs) on each
    GradientCheckpointingLayer. transformers 4.x default kwargs: {"use_reentrant": True}."""
    if mode == "none":
        return
    from torch.utils.checkpoint import checkpoint
    func = functools.partial(checkpoint, use_reentrant=(mode == "reentrant"))
    for m in model.modules():
        if isinstance(m, GradientCheckpointingLayer):
            m.gradient_checkpointing = True
            m._gradient_checkpointing_func = func


def block_inputs(config: Config, block, b, s, dtype, seed=0):
    """The block's input as a leaf with requires_grad, plus its keyword inputs."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(b, s, config.hidden_size, generator=g).to(dtype).requires_grad_(True)
    kwargs = {}
    if config.family == "gpt2":
        kwargs["attention_mask"] = make_causal_mask(config, b, s, s, dtype, x.device, for_sdpa=False)
    else:
        rotary = LlamaRotaryEmbedding(config)
        position_ids = torch.arange(s).unsqueeze(0)
        kwargs["position_embeddings"] = rotary(x, position_ids)
        kwargs["attention_mask"] = make_causal_mask(config, b, s, s, dtype, x.device,
                                                    for_sdpa=config.attn_implementation != "eager")
        kwargs["position_ids"] = position_ids
    return x, kwargs
