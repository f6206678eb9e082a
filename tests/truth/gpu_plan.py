"""What tests/truth/gpu_measure.py runs: the model configs (Hugging Face config.json contents,
random weights, nothing downloaded) and the plan of runs, ordered by what each one decides
(the most informative first, so a run stopped at its time limit still brings those back).

Every run is one dict:
  model   a key of CONFIGS (TINY for --tiny)
  kind    "train" (full fine-tuning, bf16 weights, AdamW), "lora" (peft LoRA r=16 on every
          linear of the blocks) or "infer" (greedy generate with the dynamic KV cache)
  gc      "none" or "default" (gradient_checkpointing_enable() with transformers' own kwargs)
  optim   AdamW's implementation: "foreach" (torch's default on CUDA), "fused", "forloop"
  batch, seq; prompt, new_tokens for "infer"; attn "sdpa" (default) or "eager"
"""

# Hugging Face config.json contents (random weights; sizes chosen to fit one GPU in bf16 with
# AdamW and to make every term visible). Parameter counts are printed by the run.
CONFIGS = {
    # Llama-3.2-1B shape: ~1.24 B parameters (tied embeddings)
    "llama-1.2b": {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 128256,
        "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "hidden_act": "silu",
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16",
    },
    # Qwen2.5-0.5B shape: ~0.49 B parameters (q/k/v biases, tied embeddings)
    "qwen2-0.5b": {
        "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 151936,
        "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
        "num_attention_heads": 14, "num_key_value_heads": 2, "hidden_act": "silu",
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": 32768,
        "max_window_layers": 24, "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": 151643, "torch_dtype": "bfloat16",
    },
    # Mistral-style, ~1.56 B parameters, untied head, sliding window larger than the runs' seq
    "mistral-1.6b": {
        "model_type": "mistral", "architectures": ["MistralForCausalLM"], "vocab_size": 32768,
        "hidden_size": 2560, "intermediate_size": 6912, "num_hidden_layers": 20,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 80, "hidden_act": "silu",
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
        "sliding_window": 4096, "tie_word_embeddings": False, "attention_dropout": 0.0,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16",
    },
}

# Llama-3.1-8B shape (meta-llama/Llama-3.1-8B config.json): ~8.03 B parameters, untied head
CONFIGS["llama-8b"] = {
    **CONFIGS["llama-1.2b"], "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "tie_word_embeddings": False,
}

TINY = {
    "llama-tiny": {**CONFIGS["llama-1.2b"], "vocab_size": 512, "hidden_size": 64, "intermediate_size": 176,
                   "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16},
    "qwen2-tiny": {**CONFIGS["qwen2-0.5b"], "vocab_size": 640, "hidden_size": 96, "intermediate_size": 344,
                   "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2,
                   "max_window_layers": 2, "sliding_window": 64},
    "mistral-tiny": {**CONFIGS["mistral-1.6b"], "vocab_size": 500, "hidden_size": 64, "intermediate_size": 160,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
                     "sliding_window": 16},
    "llama8-tiny": {**CONFIGS["llama-8b"], "vocab_size": 700, "hidden_size": 128, "intermediate_size": 448,
                    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32},
}
TINY_NAME = {"llama-1.2b": "llama-tiny", "qwen2-0.5b": "qwen2-tiny", "mistral-1.6b": "mistral-tiny",
             "llama-8b": "llama8-tiny"}


def run(model, kind, gc="none", optim="foreach", batch=4, seq=1024, attn="sdpa", prompt=512, new_tokens=64,
        amp=False):
    r = {"model": model, "kind": kind, "gc": gc, "optim": optim, "batch": batch, "seq": seq, "attn": attn}
    if amp:
        r["amp"] = True
    if kind == "infer":
        r = {"model": model, "kind": kind, "batch": batch, "prompt": prompt, "new_tokens": new_tokens, "attn": attn}
    return r


def h200_plan():
    p = []
    # The optimizer step as its own peak: the same model and data, three AdamW implementations.
    for optim in ("foreach", "fused", "forloop"):
        p.append(run("llama-1.2b", "train", optim=optim))
    p += [run("llama-1.2b", "train", gc="default"), run("llama-1.2b", "lora"), run("llama-1.2b", "lora", gc="default"),
          run("llama-1.2b", "infer")]
    # Per-token growth with a 128K vocabulary (the loss path) and gradient checkpointing.
    for seq in (2048, 8192, 16384):
        p.append(run("llama-1.2b", "lora", gc="default", batch=1, seq=seq))
    p.append(run("llama-1.2b", "train", gc="default", batch=1, seq=8192))
    # Other families: q/k/v biases and a 152K vocabulary (Qwen2), an untied head (Mistral).
    for m in ("qwen2-0.5b", "mistral-1.6b"):
        p += [run(m, "train"), run(m, "train", gc="default"), run(m, "lora"), run(m, "lora", gc="default"),
              run(m, "infer")]
    # Eager attention on CUDA: the s^2 terms (softmax kept in fp32 and its bf16 copy).
    p.append(run("llama-1.2b", "train", attn="eager", batch=2))
    # An 8B model as people fine-tune it: LoRA with checkpointing at two lengths; full
    # fine-tuning in pure bf16 with the default and the fused step.
    p += [run("llama-8b", "lora", gc="default", batch=1, seq=2048), run("llama-8b", "lora", gc="default", batch=1, seq=8192),
          run("llama-8b", "train", gc="default", batch=2, seq=2048),
          run("llama-8b", "train", gc="default", batch=2, seq=2048, optim="fused")]
    return p


def h200_plan_2():
    """The second lease: what the HF Trainer does with bf16=True (fp32 weights or a bf16 LoRA
    base under torch.autocast), transformers 4.x's reentrant checkpointing, eager attention
    under checkpointing, and LoRA without checkpointing at 8B."""
    p = [run("llama-1.2b", "train", amp=True), run("llama-1.2b", "train", gc="default", amp=True),
         run("llama-1.2b", "lora", amp=True), run("llama-1.2b", "lora", gc="default", amp=True),
         run("mistral-1.6b", "train", amp=True), run("qwen2-0.5b", "train", gc="default", amp=True),
         run("llama-1.2b", "train", gc="reentrant"), run("llama-1.2b", "lora", gc="reentrant"),
         run("llama-1.2b", "train", gc="default", attn="eager", batch=2),
         run("llama-1.2b", "train", batch=8), run("mistral-1.6b", "train", gc="default", optim="fused", batch=8, seq=2048),
         run("llama-8b", "lora", batch=1, seq=2048), run("llama-8b", "lora", gc="default", batch=1, seq=2048, amp=True)]
    return p


PLANS = {"h200": h200_plan, "h200-2": h200_plan_2}


def tiny_plan(name="h200"):
    """The same runs on the tiny configs with small shapes (the CPU smoke test)."""
    out = []
    for r in PLANS[name]():
        t = dict(r, model=TINY_NAME[r["model"]])
        if r["kind"] == "infer":
            t.update(batch=2, prompt=16, new_tokens=8)
        else:
            t.update(batch=min(r["batch"], 2), seq=max(32, min(512, r["seq"] // 32)))
        out.append(t)
    return out


def run_id(r):
    if r["kind"] == "infer":
        return f"{r['model']}_infer_b{r['batch']}_p{r['prompt']}_n{r['new_tokens']}_{r['attn']}"
    gc = {"none": "", "default": "+gc", "reentrant": "+gc-reentrant", "non_reentrant": "+gc-nonreentrant"}[r["gc"]]
    return (f"{r['model']}_{r['kind']}{gc}_{r['optim']}_b{r['batch']}_s{r['seq']}_{r['attn']}"
            + ("_amp" if r.get("amp") else ""))
