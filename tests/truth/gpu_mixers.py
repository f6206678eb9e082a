"""One token mixer of a 2025 hybrid or sink model for gpu_measure.py's "mixer" runs (plan
linear-layers): transformers' own module built from the preset's config.json contents (random
weights) where transformers has it, else the replica of replicas_linear.py. Which path ran is
recorded, never assumed: transformers takes the fused kernels only when flash-linear-attention /
mamba_ssm and causal-conv1d import (is_fast_path_available in modeling_qwen3_next.py and
modeling_nemotron_h.py), its torch fallback otherwise; the replicas run the torch fallback (their
kernel Functions have no backward, so they are measured on the CPU only, measure_linear_layers.py).

    build_mixer(cfg, device, dtype, layer_idx, tf) -> (module, call, info)
      call(x) runs the mixer on x, the layer's normalised input (batch, seq, hidden)
"""
import importlib

import torch

import replicas_linear as RL

MIXER_CLASSES = {  # model_type: (module path, class, what its forward needs)
    "qwen3_next": ("transformers.models.qwen3_next.modeling_qwen3_next", "Qwen3NextGatedDeltaNet"),
    "nemotron_h": ("transformers.models.nemotron_h.modeling_nemotron_h", "NemotronHMamba2Mixer"),
    "gpt_oss": ("transformers.models.gpt_oss.modeling_gpt_oss", "GptOssAttention"),
}


def _replica(cfg, layer_idx):
    t = cfg["model_type"]
    if t == "qwen3_next":
        return RL.GatedDeltaNet(cfg["hidden_size"], cfg["linear_num_key_heads"], cfg["linear_num_value_heads"],
                                cfg["linear_key_head_dim"], cfg["linear_value_head_dim"], cfg["linear_conv_kernel_dim"],
                                kernels=False, eps=cfg.get("rms_norm_eps", 1e-6)), "gated_deltanet"
    if t == "nemotron_h":
        return RL.Mamba2Mixer(cfg["hidden_size"], cfg["mamba_num_heads"], cfg["mamba_head_dim"], cfg["n_groups"],
                              cfg["ssm_state_size"], cfg["conv_kernel"], cfg.get("chunk_size", 128), kernels=False,
                              conv_bias=cfg.get("use_conv_bias", True), proj_bias=cfg.get("use_bias", False)), "mamba2"
    window = cfg.get("sliding_window") if layer_idx % 2 == 0 else None  # gpt-oss: even layers slide
    return RL.GptOssAttention(cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
                              cfg["head_dim"], window=window), "gpt_oss_attention"


def _attention_inputs(cfg, module, x, layer_idx, tf_rotary):
    """cos/sin and the additive mask gpt-oss's attention takes (sliding layers: the window's)."""
    s = x.shape[1]
    window = cfg.get("sliding_window") if layer_idx % 2 == 0 else None
    mask = RL.sliding_window_mask(s, window, x.dtype).to(x.device)
    if tf_rotary is not None:
        pos = torch.arange(s, device=x.device)[None]
        cos, sin = tf_rotary(x, pos)
    else:
        cos, sin = RL.gpt_oss_rotary(cfg["head_dim"], s, x.dtype, cfg.get("rope_theta", 150000.0))
        cos, sin = cos.to(x.device), sin.to(x.device)
    return cos, sin, mask, window


def build_mixer(cfg, device, dtype, layer_idx, tf):
    t = cfg["model_type"]
    info = {"layer_idx": layer_idx}
    if tf is not None and t in MIXER_CLASSES:
        try:
            from transformers import AutoConfig
            mod = importlib.import_module(MIXER_CLASSES[t][0])
            cls = getattr(mod, MIXER_CLASSES[t][1])
            hf_cfg = AutoConfig.for_model(**cfg)
            if t == "gpt_oss":
                hf_cfg._attn_implementation = "eager"
            module = cls(hf_cfg, layer_idx=layer_idx).to(device=device, dtype=dtype)
            module.train()
            info["backend"] = f"transformers {MIXER_CLASSES[t][1]}"
            fast = getattr(mod, "is_fast_path_available", None)  # set by the mixers' __init__ (nemotron_h)
            info["is_fast_path_available"] = bool(fast) if fast is not None else None
            if t == "gpt_oss":
                rotary = getattr(mod, "GptOssRotaryEmbedding")(hf_cfg).to(device)

                def call(x):
                    cos, sin, mask, window = _attention_inputs(cfg, module, x, layer_idx, rotary)
                    info["sliding_window"] = window
                    out, _ = module(x, position_embeddings=(cos, sin), attention_mask=mask)
                    return out
                info["path"] = "eager attention with sinks"
            else:
                if t == "nemotron_h":
                    info["path"] = ("fused kernels (mamba_split_conv1d_scan_combined)" if info["is_fast_path_available"]
                                    and device.type == "cuda" else "torch_forward (no mamba_ssm / causal-conv1d)")
                else:
                    info["path"] = ("fused kernels (fla chunk_gated_delta_rule, causal_conv1d_fn)"
                                    if info["is_fast_path_available"] else "torch fallback (no fla / causal-conv1d)")
                    info["norm"] = type(module.norm).__name__

                def call(x):
                    return module(x)
            return module, call, info
        except Exception as e:  # noqa: BLE001 - a transformers without the class: the replica, the error kept
            info["transformers_error"] = f"{type(e).__name__}: {e}"[:500]
    module, kind = _replica(cfg, layer_idx)
    module = module.to(device=device, dtype=dtype).train()
    info["backend"] = f"replicas_linear ({kind})"
    info["path"] = "torch fallback (replica)" if kind != "gpt_oss_attention" else "eager attention with sinks (replica)"

    def call(x):
        if kind != "gpt_oss_attention":
            return module(x)
        cos, sin, mask, window = _attention_inputs(cfg, module, x, layer_idx, None)
        info["sliding_window"] = window
        return module(x, cos, sin, mask)
    return module, call, info
