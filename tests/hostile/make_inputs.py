#!/usr/bin/env python3
"""Writes the hostile input files of issue 14 into a folder (argument 1): weight files with
hostile counts, lengths and offsets (some of them 100+ MiB, so they are generated here, not
committed), JSON with odd encodings and types, names carrying terminal escapes. Each file's
name says what it is; tests/hostile/cases.txt says what llmmem must answer for it.
Deterministic: the same bytes every run. Skips files that already exist."""
import json
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, data):
    path = os.path.join(out, name)
    if os.path.exists(path) and os.path.getsize(path) == len(data):
        return
    with open(path, 'wb') as f:
        f.write(data)


def write_stream(name, size, chunks):
    """Large files: written from a generator of byte chunks."""
    path = os.path.join(out, name)
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    with open(path, 'wb') as f:
        for c in chunks:
            f.write(c)


def gstr(b):
    return struct.pack('<Q', len(b)) + b


def gguf(kvs=b'', tensors=b'', n_kv=0, n_tensors=0, version=3):
    return b'GGUF' + struct.pack('<IQQ', version, n_tensors, n_kv) + kvs + tensors


def kv(key, typ, payload):
    return gstr(key) + struct.pack('<I', typ) + payload


def tinfo(name, dims, typ, offset):
    return gstr(name) + struct.pack('<I', len(dims)) + b''.join(struct.pack('<Q', d) for d in dims) + struct.pack('<IQ', typ, offset)


def safetensors(header, data=b'', length=None):
    h = header if isinstance(header, bytes) else header.encode()
    return struct.pack('<Q', len(h) if length is None else length) + h + data


ESC_NAME = b'\x1b]0;pwned\x07\x1b[2J\rnot what it seems\xc2\x9b31m\xe2\x80\xaeevil'

# ---- GGUF: cost out of proportion, hostile counts, lengths, offsets, values --------------
N_KV = 9_000_000  # 128+ MiB of minimal key/values (the 128 MiB file: 16 s, 1.1 GB)


def kv_flood(n):
    yield b'GGUF' + struct.pack('<IQQ', 3, 0, n)
    batch = []
    for i in range(n):
        batch.append(gstr(b'k%d' % i) + struct.pack('<I', 0) + b'\x01')
        if len(batch) == 65536:
            yield b''.join(batch)
            batch = []
    yield b''.join(batch)


size = 24 + sum(8 + len(b'k%d' % i) + 5 for i in range(N_KV))
write_stream('kv_flood_128m.gguf', size, kv_flood(N_KV))
# Within the key/value cap, but each key long: 65,536 keys of 2 KiB (the name cap is 64 KiB).
write_stream('kv_long_keys.gguf', 24 + 65536 * (8 + 1024 + 5),
             (b'GGUF' + struct.pack('<IQQ', 3, 0, 65536) if i < 0 else gstr(b'%06d' % i + b'k' * 1018) + struct.pack('<I', 0) + b'\x01'
              for i in range(-1, 65536)))
# A tokenizer array of 16 million empty strings (skipped, never held).
write_stream('string_array_16m.gguf', 24 + 8 + 21 + 4 + 4 + 8 + 8 * 16_000_000,
             [gguf(n_kv=1) + gstr(b'tokenizer.ggml.tokens') + struct.pack('<IIQ', 9, 8, 16_000_000)] +
             [b'\0' * (8 * 1_000_000)] * 16)
# A million tensor infos of F32 [0] (the tensor cap), and one more.
for n, name in ((1 << 20, 'tensors_1m.gguf'), ((1 << 20) + 1, 'tensors_over_cap.gguf')):
    body = b''.join(tinfo(b't%d' % i, [0], 0, 0) for i in range(n)) if n <= (1 << 20) else b''
    head = gguf(tensors=body, n_tensors=n)
    write(name, head + b'\0' * (-len(head) % 32))  # the data section starts at the next 32 bytes
write('counts_2p63.gguf', gguf(n_kv=1 << 63, n_tensors=1 << 63))
write('counts_2p64m1.gguf', gguf(n_kv=(1 << 64) - 1, n_tensors=0))
write('kv_count_over_cap.gguf', gguf(n_kv=(1 << 16) + 1))
write('key_len_2p64m1.gguf', gguf(n_kv=1) + struct.pack('<Q', (1 << 64) - 1) + b'k')
write('key_len_over_cap.gguf', gguf(n_kv=1) + struct.pack('<Q', (1 << 16) + 1) + b'k' * ((1 << 16) + 1) + struct.pack('<I', 0) + b'\x01')
write('string_len_2p63.gguf', gguf(kv(b'general.name', 8, struct.pack('<Q', 1 << 63)), n_kv=1))
write('array_bytes_overflow.gguf', gguf(kv(b'a', 9, struct.pack('<IQ', 10, 1 << 62)), n_kv=1))
write('array_of_arrays.gguf', gguf(kv(b'a', 9, struct.pack('<IQ', 9, 1)), n_kv=1))
write('value_type_13.gguf', gguf(kv(b'a', 13, b''), n_kv=1))
write('negative_layers.gguf', gguf(kv(b'general.architecture', 8, gstr(b'llama')) + kv(b'llama.block_count', 5, struct.pack('<i', -5)), n_kv=2))
write('negative_hidden_i64.gguf', gguf(kv(b'general.architecture', 8, gstr(b'llama')) + kv(b'llama.embedding_length', 11, struct.pack('<q', -4096)), n_kv=2))
write('huge_u64_heads.gguf', gguf(kv(b'general.architecture', 8, gstr(b'llama')) + kv(b'llama.attention.head_count', 10, struct.pack('<Q', (1 << 64) - 1)), n_kv=2))
write('negative_param_count.gguf', gguf(kv(b'general.parameter_count', 11, struct.pack('<q', -8400000000000000000)), n_kv=1))
write('float_layers.gguf', gguf(kv(b'general.architecture', 8, gstr(b'llama')) + kv(b'llama.block_count', 6, struct.pack('<f', 32.5)), n_kv=2))
# Tensors whose parameter total passes 2^63: two I8 tensors of 2^62 elements each.
write('params_over_2p63.gguf', gguf(tensors=tinfo(b'a', [1 << 31, 1 << 31], 24, 0) + tinfo(b'b', [1 << 31, 1 << 31], 24, 1 << 62), n_tensors=2))
write('dims_negative.gguf', gguf(tensors=tinfo(b'w', [(1 << 64) - 1], 0, 0), n_tensors=1))
write('dims_overflow.gguf', gguf(tensors=tinfo(b'w', [1 << 32, 1 << 32], 0, 0), n_tensors=1))
write('dims_5.gguf', gguf(tensors=tinfo(b'w', [1, 1, 1, 1, 1], 0, 0), n_tensors=1))
write('type_99.gguf', gguf(tensors=tinfo(b'w', [32], 99, 0), n_tensors=1))
write('offset_gap.gguf', gguf(tensors=tinfo(b'a', [8], 0, 0) + tinfo(b'b', [8], 0, 64), n_tensors=2) + b'\0' * 200)
write('offset_2p64m1.gguf', gguf(tensors=tinfo(b'a', [8], 0, (1 << 64) - 1), n_tensors=1))
write('data_past_end.gguf', gguf(tensors=tinfo(b'a', [1 << 20], 0, 0), n_tensors=1))
write('dup_tensor.gguf', gguf(tensors=tinfo(b'w', [8], 0, 0) + tinfo(b'w', [8], 0, 32), n_tensors=2) + b'\0' * 128)
write('alignment_48.gguf', gguf(kv(b'general.alignment', 4, struct.pack('<I', 48)), n_kv=1))
write('version_1.gguf', gguf(version=1))
write('big_endian.gguf', b'GGUF' + struct.pack('>IQQ', 3, 0, 0))
write('escape_names.gguf', gguf(kv(b'general.architecture', 8, gstr(ESC_NAME)) + kv(b'general.name', 8, gstr(ESC_NAME)) +
                                kv(ESC_NAME, 4, struct.pack('<I', 1)),
                                tinfo(ESC_NAME, [32], 99, 0), n_kv=3, n_tensors=1))
write('escape_arch_ok.gguf', gguf(kv(b'general.architecture', 8, gstr(ESC_NAME)) + kv(b'general.name', 8, gstr(b'\xe2\x80\xae' + b'x' * 5000 + b'\xc3\xa9')), n_kv=2))
write('truncated_magic.gguf', b'GGU')
write('empty.gguf', b'')

# ---- safetensors ---------------------------------------------------------------------------
ok_t = '"w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}'
write('len_2p64m1.safetensors', safetensors('{}', length=(1 << 64) - 1))
write('len_2p63.safetensors', safetensors('{}', length=1 << 63))
write('len_over_cap.safetensors', safetensors('{}', length=100_000_001))
write('len_past_end.safetensors', safetensors('{}', length=1000))
write('len_0.safetensors', struct.pack('<Q', 0))
write('short_7.safetensors', b'\x02\0\0\0\0\0\0')
write('header_not_object.safetensors', safetensors('[1, 2]  '))
write('trailing_comma.safetensors', safetensors('{' + ok_t + ',}', b'\0' * 12))
write('text_after.safetensors', safetensors('{' + ok_t + '} x', b'\0' * 12))
write('dup_name_escaped.safetensors', safetensors('{' + ok_t + ',"\\u0077":{"dtype":"BF16","shape":[0],"data_offsets":[12,12]}}', b'\0' * 12))
write('shape_overflow.safetensors', safetensors('{"w":{"dtype":"F32","shape":[4294967296,4294967296,2],"data_offsets":[0,0]}}'))
write('shape_negative.safetensors', safetensors('{"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}'))
write('shape_hex.safetensors', safetensors('{"w":{"dtype":"F32","shape":[0x10],"data_offsets":[0,64]}}', b'\0' * 64))
write('offsets_backwards.safetensors', safetensors('{"w":{"dtype":"BF16","shape":[2,3],"data_offsets":[12,0]}}', b'\0' * 12))
write('offsets_gap.safetensors', safetensors('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}}', b'\0' * 12))
write('offsets_huge.safetensors', safetensors('{"w":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,18446744073709551615]}}'))
write('deep_nesting.safetensors', safetensors('{"__metadata__":{"x":' + '[' * 100000 + ']' * 100000 + '}}'))
write('unknown_dtype.safetensors', safetensors('{"w":{"dtype":"Q4","shape":[2,3],"data_offsets":[0,12]}}', b'\0' * 12))
write('escape_name.safetensors', safetensors(json.dumps({ESC_NAME.decode('utf-8', 'replace'): {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]}}), b'\0'))
write('invalid_utf8_name.safetensors', safetensors(b'{"\xff\xfe":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b'\0'))
write('cut_short.safetensors', safetensors('{' + ok_t + '}', b'\0' * 11))
# A million small tensors (58 MB of header: linear, about a second) and one past the cap.
for n, name in ((1_000_000, 'tensors_1m.safetensors'), ((1 << 20) + 1, 'tensors_over_cap.safetensors')):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        h = ('{' + ','.join('"t%d":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}' % i for i in range(n)) + '}').encode()
        write(name, safetensors(h))
# A metadata value of 90 MB (kept to 4 KiB) within the 100 MB cap.
path = os.path.join(out, 'metadata_90mb.safetensors')
if not os.path.exists(path):
    write('metadata_90mb.safetensors', safetensors('{"__metadata__":{"x":"' + 'a' * 90_000_000 + '"}}'))

# ---- safetensors index and JSON ------------------------------------------------------------
write('bom.index.json', b'\xef\xbb\xbf{"weight_map": {"a": "x.safetensors"}}')
write('no_weight_map.index.json', b'{"metadata": {}}')
write('total_size_negative.index.json', b'{"metadata": {"total_size": -1}, "weight_map": {}}')
write('config_bom.json', b'\xef\xbb\xbf{"batch": 2}')
write('config_invalid_utf8.json', b'{"name": "\xff\xfe"}')
write('config_true_batch.json', b'{"batch": true}')
write('config_string_batch.json', b'{"batch": "8"}')
write('config_hex_batch.json', b'{"batch": "0x10"}')
write('config_number_bool.json', b'{"flash_attn": 1}')
write('config_null.json', b'{"batch": null}')
write('config_unknown_keys.json', b'{"batch": 2, "bogus": 1, "model": {"preset": "llama-3.1-8b", "nope": 3}}')
write('config_100kb_key.json', b'{"' + b'k' * 100_000 + b'": 1}')
write('config_100kb_value.json', b'{"mode": "' + b'x' * 100_000 + b'"}')
write('config_escape_name.json', json.dumps({"model": {"preset": "llama-3.1-8b", "name": ESC_NAME.decode('utf-8', 'replace')}}).encode())
write('config_html_name.json', json.dumps({"model": {"preset": "llama-3.1-8b", "name": "<img src=x onerror=alert(1)>|[x](javascript:alert(1))"}}).encode())
write('config_formula_name.json', json.dumps({"model": {"preset": "llama-3.1-8b", "name": "=HYPERLINK(\"http://x\",\"y\")"}}).encode())
write('config_deep.json', b'[' * 100000 + b']' * 100000)
write('config_not_object.json', b'[1, 2, 3]')
write('config_9mb.json', b'{"name": "' + b'x' * (9 << 20) + b'"}')
write('config_offload_infer.json', b'{"model": "llama-3.1-405b", "mode": "infer", "offload_params": "cpu", "gpu": "T4-16GB"}')
write('config_gpu_conflict.json', b'{"gpu": "H100-SXM-80GB", "gpu_memory_gb": 24}')
write('hf_bom.json', b'\xef\xbb\xbf{"model_type": "llama"}')
write('hf_negative_layers.json', b'{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": -32, "num_attention_heads": 32, "intermediate_size": 11008}')
write('hf_huge_type.json', b'{"model_type": "' + b'x' * 100_000 + b'"}')
write('hf_escape_type.json', json.dumps({"model_type": ESC_NAME.decode('utf-8', 'replace')}).encode())
write('hf_float_layers.json', b'{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 32.5, "num_attention_heads": 32, "intermediate_size": 11008}')
write('hf_string_hidden.json', b'{"model_type": "llama", "vocab_size": 32000, "hidden_size": "4096", "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008}')
