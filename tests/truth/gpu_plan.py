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
  mixer   (kind "mixer") one token mixer on its normalised input, layer `layer` of the model:
          forward and backward, saved bytes by hooks; which path ran (fused kernels or torch
          fallback) is recorded by gpu_mixers.py
"""
import json
import os

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

# One token mixer of a 2025 model (kind "mixer", plan linear-layers): the config.json contents of
# the catalogue's presets (presets/models/<key>.json "config"), read here so that the GPU measures
# exactly the shapes the estimate is given.
_PRESETS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "presets",
                        "models")


def preset_config(key):
    with open(os.path.join(_PRESETS, key + ".json")) as fh:
        return json.load(fh)["config"]


MIXER_PRESETS = {"qwen3-next-gdn": "qwen3-next-80b-a3b", "nemotron-h-mamba2": "nemotron-nano-9b-v2",
                 "gpt-oss-attn": "gpt-oss-20b"}
for _name, _key in MIXER_PRESETS.items():
    CONFIGS[_name] = preset_config(_key)

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
TINY["qwen3-next-gdn-tiny"] = {**CONFIGS["qwen3-next-gdn"], "hidden_size": 64, "linear_num_key_heads": 2,
                               "linear_num_value_heads": 4, "linear_key_head_dim": 16, "linear_value_head_dim": 16}
TINY["nemotron-h-mamba2-tiny"] = {**CONFIGS["nemotron-h-mamba2"], "hidden_size": 64, "mamba_num_heads": 4,
                                  "mamba_head_dim": 16, "n_groups": 2, "ssm_state_size": 16, "chunk_size": 32,
                                  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16}
TINY["gpt-oss-attn-tiny"] = {**CONFIGS["gpt-oss-attn"], "hidden_size": 64, "num_attention_heads": 4,
                             "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 16}
TINY_NAME = {"qwen3-next-gdn": "qwen3-next-gdn-tiny", "nemotron-h-mamba2": "nemotron-h-mamba2-tiny",
             "gpt-oss-attn": "gpt-oss-attn-tiny",
             "llama-1.2b": "llama-tiny", "qwen2-0.5b": "qwen2-tiny", "mistral-1.6b": "mistral-tiny",
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


def mixer(model, batch=1, seq=4096, layer=0):
    return {"model": model, "kind": "mixer", "batch": batch, "seq": seq, "layer": layer}


def linear_layers_plan():
    """Issue 31: the layers tests/truth/measure_linear_layers.py measures on the CPU, at the presets'
    own widths: a Gated DeltaNet layer of Qwen3-Next-80B (layer 0 is linear attention), a Mamba-2
    mixer of Nemotron-Nano-9B-v2 (block 0 is "M"), gpt-oss-20b's attention in a sliding layer (0)
    and a full one (1), eager. Only when asked (--plan linear-layers): not part of the H200 plans."""
    return [mixer("qwen3-next-gdn"), mixer("nemotron-h-mamba2"), mixer("gpt-oss-attn", layer=0),
            mixer("gpt-oss-attn", layer=1), mixer("qwen3-next-gdn", seq=8192), mixer("nemotron-h-mamba2", seq=8192),
            mixer("qwen3-next-gdn", batch=2, seq=4096)]


PLANS = {"h200": h200_plan, "h200-2": h200_plan_2, "linear-layers": linear_layers_plan}


def tiny_plan(name="h200"):
    """The same runs on the tiny configs with small shapes (the CPU smoke test)."""
    out = []
    for r in PLANS[name]():
        t = dict(r, model=TINY_NAME[r["model"]])
        if r["kind"] == "infer":
            t.update(batch=2, prompt=16, new_tokens=8)
        elif r["kind"] == "mixer":
            t.update(batch=min(r["batch"], 2), seq=48)
        else:
            t.update(batch=min(r["batch"], 2), seq=max(32, min(512, r["seq"] // 32)))
        out.append(t)
    return out


def run_id(r):
    if r["kind"] == "mixer":
        return f"{r['model']}_mixer_layer{r['layer']}_b{r['batch']}_s{r['seq']}"
    if r["kind"] == "infer":
        return f"{r['model']}_infer_b{r['batch']}_p{r['prompt']}_n{r['new_tokens']}_{r['attn']}"
    gc = {"none": "", "default": "+gc", "reentrant": "+gc-reentrant", "non_reentrant": "+gc-nonreentrant"}[r["gc"]]
    return (f"{r['model']}_{r['kind']}{gc}_{r['optim']}_b{r['batch']}_s{r['seq']}_{r['attn']}"
            + ("_amp" if r.get("amp") else ""))
