"""How gpu_measure.py builds what it measures: a transformers model from a config dict
(random weights, built on the device) or, where transformers is missing or fails, the
op-for-op replicas of replicas.py; gradient checkpointing and LoRA as transformers and
peft apply them."""

import contextlib

import torch
import torch.nn.functional as F

import replicas as R

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def replica_config(cfg, attn):
    fam = cfg["model_type"]
    heads = cfg["num_attention_heads"]
    return R.Config(
        family=fam if fam in ("llama", "qwen2", "mistral") else "llama",
        hidden_size=cfg["hidden_size"], intermediate_size=cfg["intermediate_size"],
        num_attention_heads=heads, num_key_value_heads=cfg.get("num_key_value_heads", heads),
        head_dim=cfg.get("head_dim") or cfg["hidden_size"] // heads, vocab_size=cfg["vocab_size"],
        num_hidden_layers=cfg["num_hidden_layers"], rms_norm_eps=cfg.get("rms_norm_eps", 1e-6),
        rope_theta=cfg.get("rope_theta", 10000.0), attention_dropout=cfg.get("attention_dropout", 0.0),
        attention_bias=cfg.get("attention_bias", False), mlp_bias=cfg.get("mlp_bias", False),
        sliding_window=cfg.get("sliding_window") if fam == "mistral" else None,
        max_position_embeddings=cfg.get("max_position_embeddings", 4096),
        attn_implementation=attn, tie_word_embeddings=cfg.get("tie_word_embeddings", False),
    )


def install_real_sdpa():
    """For the replicas on torch >= 2: 'sdpa' calls F.scaled_dot_product_attention (the fused
    kernels where they apply) after repeat_kv, as transformers' sdpa_attention_forward does."""
    if not hasattr(F, "scaled_dot_product_attention"):
        return False

    def sdpa(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kw):
        key = R.repeat_kv(key, module.num_key_value_groups)
        value = R.repeat_kv(value, module.num_key_value_groups)
        if attention_mask is not None and attention_mask.ndim == 4:
            attention_mask = attention_mask[:, :, :, : key.shape[-2]]
        if is_causal is None:
            is_causal = query.shape[2] > 1 and attention_mask is None
        out = F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask, dropout_p=dropout,
                                             scale=scaling, is_causal=is_causal)
        return out.transpose(1, 2).contiguous(), None
    R.ATTENTION_FUNCTIONS["sdpa"] = sdpa
    return True


def build(name, cfg, device, dtype, attn, tf):
    """Returns (model, backend). Random weights, built on the device."""
    if tf is not None:
        from transformers import AutoConfig, AutoModelForCausalLM
        hf_cfg = AutoConfig.for_model(**cfg)
        kwargs = {"attn_implementation": attn}
        # build on the device (torch >= 2: torch.device is a context manager) in the dtype
        ctx = torch.device(device) if hasattr(torch.device, "__enter__") else contextlib.nullcontext()
        old_default = torch.get_default_dtype()
        try:
            torch.set_default_dtype(dtype)  # no fp32 copy first where torch allows a 16-bit default
        except (TypeError, RuntimeError):
            pass
        try:
            with ctx:
                try:
                    model = AutoModelForCausalLM.from_config(hf_cfg, dtype=dtype, **kwargs)
                except TypeError:
                    model = AutoModelForCausalLM.from_config(hf_cfg, torch_dtype=dtype, **kwargs)
        finally:
            torch.set_default_dtype(old_default)
        model = model.to(device=device, dtype=dtype)
        model.config.use_cache = False
        return model, "transformers"
    rattn = attn
    if attn == "sdpa":
        rattn = "sdpa" if "sdpa" in R.ATTENTION_FUNCTIONS else "sdpa_math"
    model = R.build_model(replica_config(cfg, rattn), dtype).to(device)
    return model, "replicas"


def forward_loss(model, backend, ids):
    if backend == "transformers":
        return model(input_ids=ids, labels=ids).loss
    loss, _ = model(ids, labels=ids)
    return loss


def enable_gc(model, backend, mode):
    """mode: 'default' (transformers' own default kwargs), 'reentrant' or 'non_reentrant'."""
    if backend == "transformers":
        kw = None if mode == "default" else {"use_reentrant": mode == "reentrant"}
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)
        used = None
        for m in model.modules():
            f = getattr(m, "_gradient_checkpointing_func", None)
            if f is not None:
                used = dict(getattr(f, "keywords", {}) or {})
                break
        return {"gradient_checkpointing_kwargs": used}
    R.set_gradient_checkpointing(model, "reentrant" if mode in ("default", "reentrant") else "non_reentrant")
    return {"gradient_checkpointing_kwargs": {"use_reentrant": mode in ("default", "reentrant")},
            "note": "replicas: 'default' taken as use_reentrant=True (transformers 4.x default)"}


def add_lora(model, backend, peft, gc_on, r=16, alpha=32):
    if backend == "transformers" and peft is not None:
        from peft import LoraConfig, get_peft_model
        if gc_on:
            model.enable_input_require_grads()
        lcfg = LoraConfig(r=r, lora_alpha=alpha, lora_dropout=0.0, target_modules=LORA_TARGETS, bias="none",
                          task_type="CAUSAL_LM")
        return get_peft_model(model, lcfg), "peft"
    R.apply_lora(model, r=r, alpha=alpha, dropout=0.0, targets=tuple(LORA_TARGETS))
    if gc_on:
        if backend == "transformers":
            model.enable_input_require_grads()
        else:  # PreTrainedModel.enable_input_require_grads: the embedding output requires grad
            model.model.embed_tokens.register_forward_hook(lambda m, i, o: o.requires_grad_(True))
    return model, "replica LoraLinear"
