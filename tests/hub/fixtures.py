#!/usr/bin/python3
"""Writes the stand-in Hub's fixture repos (tests/hub/standin.py serves them) and a local
Hugging Face cache, stdlib only. A tiny Qwen2 (vocab 64, hidden 16, 2 layers, 2 heads, 1 KV
head, intermediate 32, tied embeddings) whose tensors are exactly what transformers'
Qwen2 registers, so the header's count equals the importer's: 5,776 parameters.
usage: fixtures.py ROOT CACHE
  ROOT/tiny/qwen-single     config.json + model.safetensors (BF16)
  ROOT/tiny/qwen-sharded    two shards + model.safetensors.index.json
  ROOT/tiny/gguf            GGUF files (no config.json): tiny-Q4_K_M.gguf, tiny-Q8_0.gguf and
                            tiny-F16 split in two parts (llama.cpp's -00001-of-00002 names)
  ROOT/tiny/gated           as qwen-single, 401 without the token
  ROOT/tiny/malformed       config.json that is not JSON
  ROOT/tiny/slow            answers after 30 s
  ROOT/tiny/ratelimited     429 to everything
  ROOT/tiny/newarch         model_type "brand_new" (unknown to the importer), text_config
  ROOT/tiny/truncated       a safetensors file cut inside its header
  ROOT/tiny/hugeheader      a safetensors header declared 200 MB long (over the 100 MB cap)
  ROOT/tiny/denied          gated, and the token's account was not granted access (403)
  ROOT/tiny/traversal       an index whose shard name climbs out of the repo
                            ("../../../qwen-single/resolve/main/model.safetensors")
  ROOT/tiny/splitbig        a GGUF split in 99,999 parts (listed; each served as one tiny part)
  ROOT/tiny/trickle         two shards with 3 KB headers, the CDN answering 1 byte per request
  ROOT/tiny/slowshards      12 tiny shards, every answer 1 s late
  CACHE/models--tiny--cached  a cached snapshot (refs/main, snapshots/<sha>, blobs) of a
                            repo the stand-in does not serve
  CACHE/models--tiny--escape  a cached snapshot whose index names a shard outside the cache
                            (CACHE/../outside/model.safetensors, which exists)
"""
import json
import os
import struct
import sys

ROOT, CACHE = sys.argv[1], sys.argv[2]
V, H, L, NH, KV, FF = 64, 16, 2, 2, 1, 32
HD = H // NH


def qwen_tensors():
    t = [("model.embed_tokens.weight", [V, H]), ("model.norm.weight", [H])]
    for i in range(L):
        p = "model.layers.%d." % i
        t += [(p + "self_attn.q_proj.weight", [H, H]), (p + "self_attn.q_proj.bias", [H]),
              (p + "self_attn.k_proj.weight", [KV * HD, H]), (p + "self_attn.k_proj.bias", [KV * HD]),
              (p + "self_attn.v_proj.weight", [KV * HD, H]), (p + "self_attn.v_proj.bias", [KV * HD]),
              (p + "self_attn.o_proj.weight", [H, H]), (p + "mlp.gate_proj.weight", [FF, H]),
              (p + "mlp.up_proj.weight", [FF, H]), (p + "mlp.down_proj.weight", [H, FF]),
              (p + "input_layernorm.weight", [H]), (p + "post_attention_layernorm.weight", [H])]
    return t


def count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def safetensors(tensors, dtype="BF16", width=2):
    header, at = {}, 0
    for name, shape in tensors:
        n = count(shape) * width
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}
        at += n
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"\0" * at


def gguf(tensor_elems):
    def s(x):
        x = x.encode()
        return struct.pack("<Q", len(x)) + x
    kv = [("general.architecture", 8, s("llama")), ("general.name", 8, s("tiny")),
          ("llama.block_count", 4, struct.pack("<I", L)), ("llama.embedding_length", 4, struct.pack("<I", H)),
          ("llama.attention.head_count", 4, struct.pack("<I", NH)),
          ("llama.attention.head_count_kv", 4, struct.pack("<I", KV)),
          ("llama.feed_forward_length", 4, struct.pack("<I", FF)), ("llama.context_length", 4, struct.pack("<I", 4096))]
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensor_elems), len(kv))
    for k, t, v in kv:
        out += s(k) + struct.pack("<I", t) + v
    at = 0
    for i, n in enumerate(tensor_elems):
        out += s("t%d" % i) + struct.pack("<I", 1) + struct.pack("<Q", n) + struct.pack("<I", 0) + struct.pack("<Q", at)
        at += n * 4
        at += -at % 32
    out += b"\0" * (-len(out) % 32)
    return out + b"\0" * at


CONFIG = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": V, "hidden_size": H,
          "num_hidden_layers": L, "num_attention_heads": NH, "num_key_value_heads": KV, "intermediate_size": FF,
          "tie_word_embeddings": True, "max_position_embeddings": 2048, "hidden_act": "silu", "torch_dtype": "bfloat16"}


def repo(name, files, meta=None):
    d = os.path.join(ROOT, "tiny", name)
    os.makedirs(d, exist_ok=True)
    for f, data in files.items():
        with open(os.path.join(d, f), "wb") as out:
            out.write(data if isinstance(data, bytes) else data.encode())
    if meta:
        with open(os.path.join(d, "_meta.json"), "w") as out:
            json.dump(meta, out)


cfg = json.dumps(CONFIG)
single = safetensors(qwen_tensors())
repo("qwen-single", {"config.json": cfg, "model.safetensors": single}, {"downloads": 500})
t = qwen_tensors()
half = len(t) // 2
shards = {"model-00001-of-00002.safetensors": t[:half], "model-00002-of-00002.safetensors": t[half:]}
index = {"metadata": {"total_size": sum(count(s) * 2 for _, s in t)},
         "weight_map": {n: f for f, ts in shards.items() for n, _ in ts}}
repo("qwen-sharded", dict({f: safetensors(ts) for f, ts in shards.items()},
                          **{"config.json": cfg, "model.safetensors.index.json": json.dumps(index)}), {"downloads": 300})
repo("gguf", {"tiny-Q4_K_M.gguf": gguf([1024, 512]), "tiny-Q8_0.gguf": gguf([1024, 512, 64]),
              "tiny-F16-00001-of-00002.gguf": gguf([1024]), "tiny-F16-00002-of-00002.gguf": gguf([512, 64])},
     {"downloads": 200, "gguf_total": 1536})
repo("gated", {"config.json": cfg, "model.safetensors": single}, {"gated": True, "downloads": 100})
repo("malformed", {"config.json": '{"model_type": "qwen2", "hidden_size": ', "model.safetensors": single})
repo("slow", {"config.json": cfg, "model.safetensors": single}, {"slow": 30})
repo("ratelimited", {"config.json": cfg}, {"status": 429})
new_cfg = {"model_type": "brand_new", "text_config": {"hidden_size": H, "num_hidden_layers": L, "num_attention_heads": NH,
                                                      "num_key_value_heads": KV, "intermediate_size": FF, "vocab_size": V}}
repo("newarch", {"config.json": json.dumps(new_cfg), "model.safetensors": safetensors(qwen_tensors() + [("vision.patch", [8, 8])])})
repo("noarch", {"config.json": json.dumps({"model_type": "mystery"}), "model.safetensors": single})  # issue 28
repo("truncated", {"config.json": cfg, "model.safetensors": single[:40]})
# A header that says it is 200 MB, in a 300 MB file (sparse: no disk used): refused from its
# first 8 bytes, nothing more fetched.
repo("hugeheader", {"config.json": cfg, "model.safetensors": struct.pack("<Q", 200_000_000) + b"{"})
with open(os.path.join(ROOT, "tiny", "hugeheader", "model.safetensors"), "r+b") as f:
    f.truncate(300_000_000)

repo("denied", {"config.json": cfg, "model.safetensors": single}, {"gated_denied": True})
repo("traversal", {"config.json": cfg, "model.safetensors.index.json": json.dumps(
    {"weight_map": {"model.embed_tokens.weight": "../../../qwen-single/resolve/main/model.safetensors"}})})
repo("splitbig", {"part.gguf": gguf([1024])}, {"split_parts": 99999})


def sharded(tensors, n, pad=0):
    """n shards of the tensors, each header padded with `pad` bytes of __metadata__, and their index."""
    out, weight_map = {}, {}
    for i in range(n):
        name = "model-%05d-of-%05d.safetensors" % (i + 1, n)
        part = tensors[i::n]
        data = safetensors(part)
        if pad:
            size = struct.unpack("<Q", data[:8])[0]
            header = json.loads(data[8:8 + size])
            header["__metadata__"] = {"pad": "x" * pad}
            h = json.dumps(header).encode()
            h += b" " * (-len(h) % 8)
            data = struct.pack("<Q", len(h)) + h + data[8 + size:]
        out[name] = data
        weight_map.update({t: name for t, _ in part})
    out["model.safetensors.index.json"] = json.dumps({"weight_map": weight_map})
    return out


repo("trickle", dict(sharded(qwen_tensors(), 2, 3000), **{"config.json": cfg}), {"trickle": 1})
repo("slowshards", dict(sharded(qwen_tensors(), 12), **{"config.json": cfg}), {"slow": 1})

# The cache: huggingface_hub's layout (file_download.py): blobs by hash, snapshots/<commit>
# files as relative symlinks to them, refs/main holding the commit.
SHA = "fedcba9876543210fedcba9876543210fedcba98"
c = os.path.join(CACHE, "models--tiny--cached")
os.makedirs(os.path.join(c, "blobs"), exist_ok=True)
os.makedirs(os.path.join(c, "refs"), exist_ok=True)
os.makedirs(os.path.join(c, "snapshots", SHA), exist_ok=True)
with open(os.path.join(c, "refs", "main"), "w") as f:
    f.write(SHA)
for name, data in (("config.json", cfg.encode()), ("model.safetensors", single)):
    blob = os.path.join(c, "blobs", "blob-" + name.replace(".", "-"))
    with open(blob, "wb") as f:
        f.write(data)
    link = os.path.join(c, "snapshots", SHA, name)
    if not os.path.islink(link):
        os.symlink(os.path.join("..", "..", "blobs", os.path.basename(blob)), link)
# A cached snapshot whose index climbs out of the cache to a real safetensors file.
e = os.path.join(CACHE, "models--tiny--escape")
os.makedirs(os.path.join(e, "refs"), exist_ok=True)
os.makedirs(os.path.join(e, "snapshots", SHA), exist_ok=True)
with open(os.path.join(e, "refs", "main"), "w") as f:
    f.write(SHA)
outside = os.path.join(os.path.dirname(os.path.abspath(CACHE)), "outside")
os.makedirs(outside, exist_ok=True)
with open(os.path.join(outside, "model.safetensors"), "wb") as f:
    f.write(single)
for name, data in (("config.json", cfg), ("model.safetensors.index.json", json.dumps(
        {"weight_map": {"model.embed_tokens.weight": "../../../../outside/model.safetensors"}}))):
    with open(os.path.join(e, "snapshots", SHA, name), "w") as f:
        f.write(data)
print(sum(count(s) for _, s in qwen_tensors()))
