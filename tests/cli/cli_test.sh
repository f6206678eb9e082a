#!/usr/bin/env bash
# The CLI as a user runs it: exit codes, messages that name the flag, valid JSON.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build/native/llmmem
# Scratch files in a private directory: two runs at once must not read each other's output.
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; export T
passed=0; failed=0
ok() { passed=$((passed+1)); echo "ok   $1"; }
bad() { failed=$((failed+1)); echo "FAIL $1"; }
expect_exit() {  # name, expected code, args...
  local name=$1 want=$2; shift 2
  "$bin" "$@" >$T/llmmem_cli_out 2>$T/llmmem_cli_err; local got=$?
  [ "$got" = "$want" ] && ok "$name (exit $got)" || { bad "$name: exit $got, wanted $want"; cat $T/llmmem_cli_err; }
}
expect_exit "help" 0 --help
grep -q -- "--lora-targets" $T/llmmem_cli_out && ok "help documents --lora-targets" || bad "help lacks --lora-targets"
expect_exit "list models" 0 --list-models
[ "$(wc -l <$T/llmmem_cli_out)" -gt 40 ] && ok "40+ presets listed" || bad "too few presets"
expect_exit "inference fits" 0 --model llama-3.1-8b --mode infer --batch 1 --seq 4096
expect_exit "full training of 70B does not fit" 1 --model llama-3.3-70b --mode train
expect_exit "unknown flag" 2 --bogus 3
grep -q "unknown flag --bogus" $T/llmmem_cli_err && ok "unknown flag named" || bad "unknown flag not named"
expect_exit "absurd sequence" 2 --seq 1000000000
grep -q -- "--seq" $T/llmmem_cli_err && grep -q "allowed" $T/llmmem_cli_err && ok "range error names --seq and the range" || bad "range message"
expect_exit "not a number" 2 --batch abc
expect_exit "NaN" 2 --cuda-context-gb nan
expect_exit "unknown preset" 2 --model not-a-model
expect_exit "missing file" 2 --hf-config /nonexistent/config.json
printf '{"model_type": "llama", "vocab_size": 32000' > $T/llmmem_broken.json
expect_exit "broken config.json" 2 --hf-config $T/llmmem_broken.json
grep -q "line 1, column" $T/llmmem_cli_err && ok "parse error has a position" || bad "parse error position"
expect_exit "json output" 0 --model qwen2.5-7b --mode qlora --json
python3 -c "import json,sys; d=json.load(open('$T/llmmem_cli_out')); assert d['parameters']['total']>0 and d['per_gpu']['total_bytes']>0 and d['breakdown']['children']" \
  && ok "--json has parameters.total, per_gpu.total_bytes, breakdown" || bad "--json shape"
expect_exit "fit" 0 fit --model llama-3.1-8b --gpu H100-SXM-80GB
grep -q "ZeRO-3: k >" $T/llmmem_cli_out && ok "fit lists the fewest GPUs per ZeRO stage" || bad "fit output"
expect_exit "fit json" 0 fit --model qwen2.5-7b --mode qlora --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert len(d['fewest_gpus'])==4 and d['max_sequence']>0" \
  && ok "fit --json shape" || bad "fit --json shape"
expect_exit "--gpus resolves dp" 1 --model llama-3.3-70b --gpus 16 --tp 8 --zero 3 --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert d['config']['dp']==2" && ok "--gpus 16 --tp 8 gives dp 2" || bad "--gpus"
expect_exit "--gpus not a multiple" 2 --gpus 12 --tp 8
expect_exit "list gpus" 0 --list-gpus
# Issue 31: a unified-memory card's budget beside the verdict, and the raised limit that moves it.
expect_exit "unified budget" 0 --model llama-3.1-8b --mode infer --gpu M4-MAX-128GB
grep -q "^GPU budget: Apple M4 Max.*macOS lets the GPU wire about 96 GiB (103.08 GB) of its 128 GiB.*sudo sysctl iogpu.wired_limit_mb=N raises it" $T/llmmem_cli_out \
  && ok "M4 Max: 96 GiB of 128 by default, and how to raise it" || bad "unified budget line"
expect_exit "raised wired limit" 0 --model llama-3.1-8b --mode infer --gpu M4-MAX-128GB --wired-limit-mb 114688 --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); g=d['per_gpu']; assert g['capacity_bytes']==112*2**30 and 'iogpu.wired_limit_mb=114688' in g['budget_note']" \
  && ok "--wired-limit-mb 114688: 112 GiB, said in per_gpu.budget_note" || bad "--wired-limit-mb"
# (fits: hf-trainer trains a bf16 model pure bf16, its FSDP1 shards 8 bytes a parameter)
expect_exit "fsdp hybrid shard" 0 --model gpt-neox-20b --fsdp hybrid_shard --gpus-per-node 4 --dp 16 --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert d['config']['zero']==3 and d['config']['zero_group']==4" \
  && ok "--fsdp hybrid_shard shards within a node" || bad "--fsdp"
expect_exit "safetensors header" 0 --weights-file tests/fuzz/corpus/weight_headers/model.safetensors
grep -q "10 parameters" $T/llmmem_cli_out && ok "safetensors: 10 parameters counted" || bad "safetensors count"
expect_exit "gguf header" 0 --weights-file tests/fuzz/corpus/weight_headers/model.gguf --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); f=d['files'][0]; assert f['parameters']==68 and f['ok']" \
  && ok "gguf: 68 parameters" || bad "gguf count"
head -c 100 tests/fuzz/corpus/weight_headers/model.gguf > $T/llmmem_cut.gguf
expect_exit "truncated gguf" 2 --weights-file $T/llmmem_cut.gguf
# head_dim follows --hidden / --heads unless --head-dim is given (the default model's is 128).
expect_exit "custom dimensions" 0 --model custom --hidden 1024 --heads 16 --kv-heads 16 --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); m=d['config']['model']; assert m['head_dim']==64 and d['parameters']['attention']==4*1024*1024*m['layers']" \
  && ok "--hidden 1024 --heads 16 derives head_dim 64" || bad "head_dim not derived from --hidden / --heads"
# The embedded presets keep only the config.json keys a source names (scripts/embed.py
# --keep-config-named-in): each preset counts and starts as its whole file does.
/usr/bin/python3 - "$bin" <<'PY' && ok "every embedded preset counts as its whole config.json" || bad "an embedded preset differs from its file"
import glob, json, os, subprocess, sys, tempfile
bin, bad = sys.argv[1], []
for path in sorted(glob.glob("presets/models/*.json")):
    key = os.path.basename(path)[:-5]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(json.load(open(path))["config"], f)
    out = []
    for args in (["--model", key], ["--hf-config", f.name]):
        p = subprocess.run([bin] + args + ["--mode", "infer", "--seq", "1024", "--json"], capture_output=True, text=True)
        out.append(json.loads(p.stdout) if p.stdout.strip() else {})
    os.unlink(f.name)
    a, b = out
    if a.get("ok") != b.get("ok") or a.get("parameters", {}).get("architecture_count") != b.get("parameters", {}).get("architecture_count") \
            or a.get("config", {}).get("model", {}).get("max_positions") != b.get("config", {}).get("model", {}).get("max_positions"):
        bad.append(key)
print("differ:", bad) if bad else None
sys.exit(1 if bad else 0)
PY
# Gemma 4's wrapper (issue 31): its language model and vision tower counted as the checkpoint
# stores them, the audio tower it leaves out said so.
python3 -c "import json; json.dump(json.load(open('presets/models/gemma-4-e2b.json'))['config'], open('$T/llmmem_gemma4.json','w'))"
expect_exit "--hf-config gemma4" 0 --hf-config $T/llmmem_gemma4.json --mode infer --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert d['parameters']['total']==4815994595" \
  && ok "gemma4 E2B: 4,815,994,595 (language model and vision tower)" || bad "gemma4 E2B count"
grep -q "audio_config" $T/llmmem_cli_err && ! grep -q "vision_config" $T/llmmem_cli_err \
  && ok "gemma4: the audio tower not counted, said so" || bad "gemma4: the note about the towers"

# kv_heads follows --heads unless --kv-heads is given (issue 29: it was inherited, 32 > 16).
expect_exit "derived kv heads" 0 --model custom --hidden 1024 --heads 16 --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert d['config']['model']['kv_heads']==16" \
  && ok "--model custom --heads 16 derives kv_heads 16" || bad "kv_heads inherited instead of derived"
expect_exit "explicit head dim" 0 --model custom --head-dim 128 --hidden 1024 --heads 16 --kv-heads 16 --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert d['config']['model']['head_dim']==128" \
  && ok "--head-dim given is kept" || bad "--head-dim overridden"
expect_exit "hidden not a multiple of heads" 2 --model custom --hidden 1000 --heads 16
grep -q -- "--head-dim" $T/llmmem_cli_err && ok "underivable head_dim names --head-dim" || bad "underivable head_dim message"
# A config.json or preset with a learned position table starts at its own context unless --seq is given.
for m in gpt2 bert-base-uncased; do
  python3 -c "import json,sys; json.dump(json.load(open('presets/models/$m.json'))['config'], open('$T/llmmem_$m.json','w'))"
  expect_exit "--hf-config $m" 0 --hf-config $T/llmmem_$m.json --json
  python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); assert d['config']['seq']=={'gpt2':1024,'bert-base-uncased':512}['$m']" \
    && ok "$m starts at its own context" || bad "$m sequence"
  grep -q "seq starts at" $T/llmmem_cli_err && ok "$m: the shorter sequence is said" || bad "$m: no note about seq"
done
expect_exit "--model gpt2" 0 --model gpt2
expect_exit "--seq beyond GPT-2's table" 2 --hf-config $T/llmmem_gpt2.json --seq 2048
# --params-override: a dense model runs all of them; every byte figure in the JSON is whole.
# Issue 30 part 4: beside the figure, the spread of the program's published runs, or that none is on record.
"$bin" --stack torchtune --mode lora --gpu A100-SXM-80GB >$T/llmmem_cli_out 2>/dev/null
grep -q "^Published runs of torchtune (" $T/llmmem_cli_out && ok "the table says torchtune's published runs" || bad "no published band in the table"
"$bin" --stack verl --mode rlhf --json >$T/llmmem_cli_out 2>/dev/null
python3 -c "import json; b=json.load(open('$T/llmmem_cli_out'))['published_runs']; assert b['runs']==0 and 'no published' in b['text']" \
  && ok "the JSON says no published run of verl is on record" || bad "published_runs for verl"
expect_exit "params override" 0 --model llama-3.1-8b --params-override 7000000001 --json
python3 -c "import json; p=json.load(open('$T/llmmem_cli_out'))['parameters']; assert p['active']==p['total']==7000000001" \
  && ok "dense --params-override: active == total" || bad "dense --params-override active"
whole_bytes='
import json, os, sys
def walk(x, path):
    if isinstance(x, dict):
        for k, v in x.items(): walk(v, path + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x): walk(v, path + "[%d]" % i)
    elif isinstance(x, float) and "bytes" in path.rsplit(".", 1)[-1] and x != int(x):
        sys.exit("fractional bytes at %s: %r" % (path, x))
walk(json.load(open(os.environ["T"] + "/llmmem_cli_out")), "")'
for args in "--mode train --params-override 7000000001" "--mode lora" "--mode qlora" "--mode infer --dtype int4" \
            "--mode infer --dtype nf4" "--mode infer --dtype q4_k_m --kv-dtype fp8" "--mode rlhf --dp 3 --zero 3" \
            "--mode train --optimizer adam8bit --dp 3 --zero 3 --gpu-memory-gb 79.123456789" \
            "--mode infer --runtime vllm --tp 2" "--mode infer --runtime llama.cpp --dtype q4_k_m --gpu-layers 20 --pp 2"; do
  "$bin" --model llama-3.1-8b $args --json >$T/llmmem_cli_out 2>/dev/null
  python3 -c "$whole_bytes" && ok "whole bytes: $args" || bad "fractional bytes: $args"
done
# Offloaded rows say where they live and are not in the GPU figures of the rows above them.
expect_exit "offload" 0 --model llama-3.1-8b --dp 8 --zero 3 --offload-optimizer cpu --offload-params nvme --json
python3 -c "
import json
def check(n):
    assert n['device'] in ('gpu', 'cpu', 'nvme'), n['id']
    kids = n.get('children', [])
    if kids and n['device'] == 'gpu':
        assert n['bytes'] == sum(c['bytes'] for c in kids if c['device'] == 'gpu'), n['id']
        assert n.get('cpu_bytes', 0) == sum(c.get('cpu_bytes', 0) for c in kids), n['id']
    for c in kids: check(c)
tree = json.load(open('$T/llmmem_cli_out'))['breakdown']
check(tree)
states = tree['children'][0]
assert [c['device'] for c in states['children'] if c['id'].endswith('optimizer')] == ['cpu']
assert states['cpu_bytes'] > 0 and states['nvme_bytes'] > 0" \
  && ok "JSON: each node's device; GPU nodes sum their GPU children" || bad "JSON offload devices"
"$bin" --model llama-3.1-8b --dp 8 --zero 3 --offload-optimizer cpu >$T/llmmem_cli_out 2>/dev/null
grep -Eq "First moment m +\([0-9.]+\) +\([0-9.]+\) +on CPU" $T/llmmem_cli_out && grep -q "GB on CPU" $T/llmmem_cli_out \
  && ok "table: offloaded figures in parentheses, on CPU" || bad "table offload marking"
# With pipeline stages, the table and the JSON name the stage the figures are for.
expect_exit "pipeline" 0 --model llama-3.1-70b --tp 8 --pp 4 --grad-accum 8 --dp 2 --zero 1
grep -q "Per GPU on pipeline stage 1 of 4 (the first" $T/llmmem_cli_out && grep -q "Pipeline: the figures are for stage 1 of 4" $T/llmmem_cli_out \
  && ok "table names pipeline stage 1 of 4 and why" || bad "table pipeline stage"
expect_exit "pipeline json" 0 --model llama-3.1-70b --tp 8 --pp 4 --grad-accum 8 --dp 2 --zero 1 --json
python3 -c "import json; g=json.load(open('$T/llmmem_cli_out'))['per_gpu']; assert g['pipeline_stage']==1 and g['pipeline_stages']==4 and g['first_stage_bytes']==g['total_bytes']>=g['last_stage_bytes']" \
  && ok "JSON per_gpu.pipeline_stage 1 of 4, with both ends' bytes" || bad "JSON pipeline stage"
# Implementation profiles (issue 10): named, validated, and each keeps what its code keeps.
expect_exit "unknown framework" 2 --model llama-3.1-8b --framework pytorch
grep -q "hf-eager, hf-sdpa, hf-flash2, megatron, liger" $T/llmmem_cli_err && ok "unknown framework lists the profiles" || bad "framework message"
acts() { "$bin" --model llama-3.2-1b --seq 2048 --framework "$1" --json 2>/dev/null | python3 -c "
import json,sys; t=json.load(sys.stdin)['breakdown']
print(next(c for c in t['children'] if c['id']=='total.activations')['bytes_at_forward_end'])"; }
eager=$(acts hf-eager); sdpa=$(acts hf-sdpa); paper=$(acts megatron); liger=$(acts liger)
[ "$eager" -gt "$sdpa" ] && [ "$sdpa" -gt "$paper" ] && [ "$paper" -gt "$liger" ] \
  && ok "activations: hf-eager > hf-sdpa > megatron (paper) > liger" || bad "profile order $eager $sdpa $paper $liger"
# Hybrid models' linear layers (issue 31): the torch fallback keeps every chunk's intermediates.
lacts() { "$bin" --model qwen3-next-80b-a3b --mode lora --seq 4096 --linear-kernels "$1" --json 2>/dev/null | python3 -c "
import json,sys; t=json.load(sys.stdin)['breakdown']
print(next(c for c in t['children'] if c['id']=='total.activations')['bytes_at_forward_end'])"; }
fusedk=$(lacts fused); torchk=$(lacts torch)
[ "$torchk" -gt "$fusedk" ] && ok "--linear-kernels torch keeps more than the fused kernels" || bad "linear kernels $fusedk $torchk"
expect_exit "unknown linear kernels" 2 --model qwen3-next-80b-a3b --linear-kernels triton
"$bin" --model llama-3.2-1b --framework hf-eager --formulas >$T/llmmem_cli_out 2>/dev/null
grep -q "kept by SoftmaxBackward0 (result); the paper keeps a 16-bit softmax" $T/llmmem_cli_out \
  && ok "formulas name the autograd node and the departure from the paper" || bad "formula node text"
# llmmem oom (issue 18): seed 002's message read correctly, from a file or standard input.
oom=tests/fuzz/corpus/oom
expect_exit "oom: seed 002" 0 oom $oom/seed002_baichuan_a30.txt
grep -q "22.20 GiB - 51.12 MiB - 7.48 GiB = 14.67 GiB" $T/llmmem_cli_out && grep -q "Check nvidia-smi" $T/llmmem_cli_out \
  && ok "oom: 14.67 GiB held outside PyTorch, check nvidia-smi" || bad "oom seed text"
"$bin" oom - <$oom/seed002_baichuan_a30.txt >$T/llmmem_cli_out 2>/dev/null && grep -q "Memory held elsewhere" $T/llmmem_cli_out \
  && ok "oom: reads standard input" || bad "oom from stdin"
expect_exit "oom --json" 0 oom $oom/torch2_other_process.txt --json
python3 -c "
import json; d=json.load(open('$T/llmmem_cli_out'))['devices'][0]; b=d['bar']
assert all(s['bytes'] >= 0 for s in b['segments']) and abs(sum(s['bytes'] for s in b['segments']) - b['capacity_bytes']) <= b['capacity_bytes'] * 1e-3
assert d['findings'][0]['id'] == 'held_elsewhere' and d['form'] == 'torch_oom_2'" \
  && ok "oom --json: segments sum to the capacity, held elsewhere first" || bad "oom --json shape"
expect_exit "oom with a configuration" 0 oom $oom/seed002_baichuan_a30.txt --model baichuan-7b --mode infer --seq 2048
grep -q "While loading the weights" $T/llmmem_cli_out && grep -q "On an empty" $T/llmmem_cli_out \
  && ok "oom: beside the estimate, failed while loading the weights; fits an empty card" || bad "oom comparison"
expect_exit "oom: not recognised" 2 oom $oom/unknown.txt
grep -q "nvidia-smi table" $T/llmmem_cli_out && ok "oom: unknown text lists the recognised forms" || bad "oom forms list"
expect_exit "oom: missing file" 2 oom /nonexistent/oom.txt
expect_exit "oom: no file" 2 oom
# llmmem run (issue 33): a start-up log read, each figure with its line; beside the estimate by category.
runlogs=tests/fuzz/corpus/run
expect_exit "run: vLLM v0.6.5 profile" 0 run $runlogs/vllm_table.txt
grep -q "line 9 .*KV cache .*53.29 GiB" $T/llmmem_cli_out && ok "run: the KV pool 53.29 GiB read from line 9" || bad "run figures"
"$bin" run - <$runlogs/vllm_table.txt >$T/llmmem_cli_out 2>/dev/null && grep -q "14.96 GiB" $T/llmmem_cli_out \
  && ok "run: reads standard input" || bad "run from stdin"
expect_exit "run beside the estimate" 0 run $runlogs/vllm_table.txt --model llama-3-8b --mode infer --runtime vllm --seq 8192
grep -qE "^  Weights +14.96 GiB +14.96 GiB +1 " $T/llmmem_cli_out && grep -q "Estimated, not in the log" $T/llmmem_cli_out \
  && ok "run: weights 14.96 GiB measured and estimated; graphs not in the log" || bad "run comparison"
expect_exit "run --json" 0 run $runlogs/vllm_usage.txt --model gemma-3-4b --mode infer --runtime vllm --json
python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); f={x['kind']: x for x in d['log']['figures']}; \
assert f['cuda_graphs']['bytes']==round(0.65*2**30) and f['weights']['line']==1 and d['log']['source']=='vllm'; \
c=d['comparison']; assert any(r['category']=='cuda_graphs' for r in c['rows']) and all('ratio' in r for r in c['rows'])" \
  && ok "run --json: figures with lines, rows with ratios" || bad "run --json shape"
expect_exit "run --from-log" 0 run $runlogs/vllm_v1.txt --model llama-3.1-8b --gpu L40S-48GB --from-log
grep -q "seq 4096 -> 32768: the log's max_model_len (line 4)" $T/llmmem_cli_out && grep -q "KV pool (tokens) .*158,656" $T/llmmem_cli_out \
  && ok "run --from-log: max_model_len taken from the log, said so; the token pool beside the estimate's" || bad "run --from-log"
# Calibrate (issue 33 part 3): vLLM V1's smaller pool carried as its own line; the fit answers with it.
expect_exit "run --calibrate" 0 run $runlogs/vllm_v1.txt --model llama-3.1-8b --gpu L40S-48GB --from-log --calibrate
grep -q "Calibration: measured beyond the model: +5.85 GB" $T/llmmem_cli_out && grep -q "most requests of 32768 tokens at once: 4" $T/llmmem_cli_out \
  && ok "run --calibrate: +5.85 GB carried, 4 requests of 32k at once as the log's 4.84x" || bad "run --calibrate"
expect_exit "calibrated estimate" 0 --model llama-3.1-8b --gpu L40S-48GB --mode infer --runtime vllm --seq 32768 --measured-residual-gb 5.853
grep -q "158,656 tokens" $T/llmmem_cli_out && grep -q "Measured beyond the model (from your run)" $T/llmmem_cli_out \
  && ok "calibrated: the pool is the log's 158,656 tokens, the residual its own line" || bad "calibrated pool"
# A snapshot's trace (issue 33 part 2): its high-water mark and what held memory there, by stack frame.
expect_exit "run: a snapshot's trace" 0 run $runlogs/snapshot_training_step.pickle
grep -q "peaks at 450.9 MB (430 MiB)" $T/llmmem_cli_out && grep -q "torch/optim/adamw.py:_multi_tensor_adamw" $T/llmmem_cli_out \
  && ok "run: the trace's peak 430 MiB, AdamW's foreach temporaries named by their frame" || bad "run snapshot trace"
expect_exit "run: llama.cpp breakdown" 0 run $runlogs/llama_cpp_breakdown.txt --model llama-3.1-8b --mode infer --runtime llama.cpp
grep -q "the figures of CUDA0" $T/llmmem_cli_out && ok "run: llama.cpp's first GPU compared" || bad "run llama.cpp device"
expect_exit "run: not recognised" 2 run $oom/unknown.txt
grep -q "Available KV cache memory" $T/llmmem_cli_out && ok "run: unknown text lists the lines expected" || bad "run expected list"
expect_exit "run: missing file" 2 run /nonexistent/run.log
expect_exit "run: no file" 2 run
expect_exit "8B serving fits an empty A10" 0 --model llama-3.1-8b --mode infer --seq 2048 --gpu A10-24GB
expect_exit "not beside 14.45 GB held by others" 1 --model llama-3.1-8b --mode infer --seq 2048 --gpu A10-24GB --other-processes-gb 14.45
expect_exit "other processes out of range" 2 --other-processes-gb -3
# Serving runtimes (issue 16): the report, the fit answers and the launch commands.
expect_exit "vLLM report" 0 --model llama-3.1-8b --mode infer --runtime vllm --seq 8192
grep -q "maximum concurrency for 8,192 tokens per request" $T/llmmem_cli_out && ok "vLLM concurrency line" || bad "vLLM concurrency line"
expect_exit "unknown runtime" 2 --runtime tgi
grep -q "hf-generate, vllm, sglang, llama.cpp, ollama" $T/llmmem_cli_err && ok "unknown runtime lists the runtimes" || bad "runtime message"
expect_exit "quantised V without flash attention" 2 --model llama-3.1-8b --mode infer --runtime llama.cpp --dtype q4_k_m --kv-dtype q8_0 --no-flash-attn
grep -q "flash attention" $T/llmmem_cli_err && ok "llama.cpp V cache rule named" || bad "V cache rule"
"$bin" fit --model llama-3.1-70b --mode infer --runtime llama.cpp --dtype q4_k_m --gpu RTX-3060-12GB --json >$T/llmmem_cli_out 2>/dev/null
python3 -c "import json; s=json.load(open('$T/llmmem_cli_out'))['serving']; assert 0 < s['max_gpu_layers'] < 81 and s['ram_bytes_at_max_layers'] > 0" \
  && ok "fit: most layers on a 12 GB card and the RAM the rest needs" || bad "fit serving JSON"
"$bin" --model llama-3.1-8b --mode infer --runtime vllm --seq 16384 --tp 2 --export vllm >$T/llmmem_cli_out 2>/dev/null
grep -q -- "--max-model-len 16384" $T/llmmem_cli_out && grep -q -- "--tensor-parallel-size 2" $T/llmmem_cli_out \
  && ok "--export vllm" || bad "--export vllm"
"$bin" --model llama-3.1-8b --zero 3 --gpus 8 --export deepspeed 2>/dev/null | python3 -c "import json,sys; assert json.load(sys.stdin)['zero_optimization']['stage'] == 3" \
  && ok "--export deepspeed is JSON" || bad "--export deepspeed"
expect_exit "unknown export" 2 --export triton
# Issue 28: no confident answer that is wrong. A model known only by its parameter count is
# "incomplete" (exit 3), not "fits"; the RAM llama.cpp needs is part of the verdict; layouts no
# framework runs and a capacity no device has are refused.
expect_exit "weights only is incomplete" 3 --model custom --hidden 0 --layers 0 --heads 0 --kv-heads 0 \
  --params-override 6700000000 --mode infer --batch 64 --seq 131072
grep -q "^INCOMPLETE .*weights only: the KV cache and activations are unknown because" $T/llmmem_cli_out \
  && ok "the verdict names what is unknown" || { bad "incomplete verdict line"; grep -i "fits\|incomplete" $T/llmmem_cli_out; }
expect_exit "weights only, JSON" 3 --model custom --hidden 0 --layers 0 --heads 0 --kv-heads 0 \
  --params-override 6700000000 --mode infer --json
python3 -c "import json; g=json.load(open('$T/llmmem_cli_out'))['per_gpu']; assert g['verdict']=='incomplete' and not g['fits'] and g['not_counted']==['kv_cache','activations'], g" \
  && ok "JSON: verdict incomplete, not_counted listed" || bad "JSON verdict"
expect_exit "llama.cpp RAM short" 1 --model llama-3.1-405b --mode infer --runtime llama.cpp --dtype q8_0 --gpu-layers 0 \
  --ram-gb 16 --gpu T4-16GB
grep -q "^DOES NOT FIT T4-16GB.*the GPU holds it.*host RAM set (ram_gb 16 GB)" $T/llmmem_cli_out \
  && ok "the verdict names the RAM shortfall" || bad "RAM verdict line"
expect_exit "cp 7 with seq 4097" 2 --mode train --cp 7 --seq 4097
grep -q "multiple of 14" $T/llmmem_cli_err && ok "context parallelism's rule named" || bad "cp rule message"
expect_exit "tp 8 --sp with seq 4097" 2 --mode train --tp 8 --sp --seq 4097
grep -q "multiple of tp" $T/llmmem_cli_err && ok "sequence parallelism's rule named" || bad "sp rule message"
expect_exit "a 100 TB GPU" 2 --gpu-memory-gb 100000
grep -q -- "gpu_memory_gb" $T/llmmem_cli_err && ok "capacity beyond any device refused" || bad "capacity message"
# The training planner (issue 34): a real search, its JSON checked by tests/test_plan_json.cpp's schema.
expect_exit "plan" 0 plan --model llama-3.1-8b --gpu H100-SXM-80GB --gpus 8 --global-batch-tokens 1048576 --seq 8192 --top 2
grep -q "^Budget per GPU: 83.8 GB" $T/llmmem_cli_out && grep -q "^Memory versus time" $T/llmmem_cli_out \
  && ok "plan prints the budget and the front" || bad "plan output"
expect_exit "plan json" 0 plan --model llama-3.1-8b --gpu H100-SXM-80GB --gpus 8 --global-batch-tokens 1048576 --seq 8192 --json
python3 -c "import json; j=json.load(open('$T/llmmem_cli_out')); assert j['schema']=='llmmem.plan/1' and j['ok'] and len(j['candidates'])==5 and j['search']['considered']>0, j.keys()" \
  && ok "plan --json: llmmem.plan/1, five candidates" || bad "plan --json shape"
expect_exit "plan without --seq" 2 plan --model llama-3.1-8b --gpus 8 --global-batch-tokens 1048576
grep -q "plan needs --seq" $T/llmmem_cli_err && ok "plan names its missing flag" || bad "plan missing flag message"
# The serving planner from the command line (issue 34 part 2): table and llmmem.serve_plan/1.
expect_exit "plan --serve" 0 plan --serve --model llama-3.1-8b --runtime vllm --gpu RTX-4090-24GB --gpus 4 --seq 8192 --top 3
grep -q "^  1. 4 GPUs, KV fp8: 137 requests of 8192 tokens" $T/llmmem_cli_out && grep -q "vllm serve" $T/llmmem_cli_out \
  && ok "plan --serve ranks tp 4 with an fp8 cache first, with its command" || bad "plan --serve output"
expect_exit "plan --serve json" 0 plan --serve --model llama-3.1-8b --runtime llama.cpp --dtype q4_k_m --gpu RTX-3060-12GB --goal context --batch 1 --json
python3 -c "import json; j=json.load(open('$T/llmmem_cli_out')); assert j['schema']=='llmmem.serve_plan/1' and j['ok'] and j['request']['goal']=='context' and j['options'][0]['context']==131072 and j['options'][0]['kv_dtype']=='q4_0', j" \
  && ok "plan --serve --json: llmmem.serve_plan/1, q4_0 KV holds the whole 131,072 tokens" || bad "plan --serve --json shape"
expect_exit "plan --serve in training" 2 plan --serve --model llama-3.1-8b --mode train
grep -q "plan --serve plans serving" $T/llmmem_cli_err && ok "plan --serve refuses a training mode" || bad "plan --serve mode message"
expect_exit "plan --serve bad goal" 2 plan --serve --model llama-3.1-8b --runtime vllm --goal speed
grep -q -- "--goal is concurrency" $T/llmmem_cli_err && ok "plan --serve names --goal" || bad "plan --serve goal message"
expect_exit "plan --serve nothing fits" 1 plan --serve --model llama-3.1-70b --runtime vllm --gpu RTX-3060-12GB --gpus 1
grep -q "Nothing fits" $T/llmmem_cli_out && ok "plan --serve says nothing fits" || bad "plan --serve empty"
# Several jobs on one GPU (issue 34 part 3): presets/jobs/*.json, one per kind.
expect_exit "plan --jobs GRPO colocate" 0 plan --jobs presets/jobs/grpo_colocate.json
grep -q "^Peak: generation, 81.02 GB, driven by rollout" $T/llmmem_cli_out \
  && grep -q "rollout: gpu_memory_utilization from 0.2 to 0.33 fits (now 0.3)" $T/llmmem_cli_out \
  && ok "plan --jobs: the engine's wake drives the peak; 0.33 the most the trainer leaves room for" || bad "plan --jobs rl output"
expect_exit "plan --jobs three vLLM processes" 0 plan --jobs presets/jobs/llm_embedder_reranker.json --json
python3 -c "import json; j=json.load(open('$T/llmmem_cli_out')); assert j['schema']=='llmmem.jobs/1' and j['verdict']=='fits' and [x['start']['starts'] for x in j['jobs']]==[True]*3 and round(j['phases'][0]['bytes']/1e6)==47869, j['phases']" \
  && ok "plan --jobs --json: llmmem.jobs/1, three processes start and sum to 47.87 GB" || bad "plan --jobs rag json"
expect_exit "plan --jobs draft" 0 plan --jobs presets/jobs/draft.json
grep -q "^llama-server *19.31" $T/llmmem_cli_out && ok "plan --jobs: main and draft 19.31 GB" || bad "plan --jobs draft output"
expect_exit "plan --jobs display, a bare list" 1 plan --jobs presets/jobs/display.json --gpu RTX-4090-24GB
grep -q "vLLM refuses to start: 16.46 GB free at its start, 23.18 GB asked" $T/llmmem_cli_out \
  && grep -q "from 0.43 to 0.63 fits (now 0.9)" $T/llmmem_cli_out && ok "plan --jobs: the display leaves vLLM's 0.9 no room to start" || bad "plan --jobs held output"
expect_exit "plan --jobs bare list without --gpu" 2 plan --jobs presets/jobs/display.json
grep -q "gpu: the plan needs its GPU" $T/llmmem_cli_err && ok "plan --jobs names the missing gpu" || bad "plan --jobs gpu message"
echo '{"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {"bach": 2}}]}' > $T/llmmem_jobs_typo.json
expect_exit "plan --jobs unknown config key" 2 plan --jobs $T/llmmem_jobs_typo.json --json
grep -q "jobs\[0\].config.bach" $T/llmmem_cli_err && python3 -c "import json; j=json.load(open('$T/llmmem_cli_out')); assert j['ok'] is False and j['error'].startswith('jobs[0].config.bach')" \
  && ok "plan --jobs: an unknown config key is an error naming it" || bad "plan --jobs unknown key"
printf '{"gpu": "H100-SXM-80GB", "jobs": [' > $T/llmmem_jobs_cut.json
expect_exit "plan --jobs malformed" 2 plan --jobs $T/llmmem_jobs_cut.json
grep -q "line 1, column" $T/llmmem_cli_err && ok "plan --jobs: a parse error has a position" || bad "plan --jobs parse error"
expect_exit "plan --jobs stray flag" 2 plan --jobs presets/jobs/draft.json --batch 4
grep -q "is not a flag of plan --jobs" $T/llmmem_cli_err && ok "plan --jobs refuses estimate flags" || bad "plan --jobs stray flag"
# --from (issue 30 part 2): training programs' own files, each read as the settings it implies.
P=tests/data/program_files
from_check() {  # name, python assertion over d (the --json output), --from args...
  local name=$1 assertion=$2; shift 2
  "$bin" "$@" --json >$T/llmmem_cli_out 2>$T/llmmem_cli_err
  python3 -c "import json; d=json.load(open('$T/llmmem_cli_out')); c=d['config']; assert $assertion, c" 2>$T/llmmem_py_err \
    && ok "$name" || { bad "$name"; tail -3 $T/llmmem_py_err; head -5 $T/llmmem_cli_err; }
}
from_check "--from axolotl YAML" "c['stack']=='axolotl' and c['mode']=='qlora' and c['seq']==4096 and c['batch']==2 and c['lora_rank']==32 and d['from'][0]['format']=='axolotl'" --from $P/axolotl_llama3_qlora.yml
from_check "--from: a flag overrides the file" "c['batch']==1 and c['seq']==4096" --from $P/axolotl_llama3_qlora.yml --batch 1
grep -q "overrides --from" $T/llmmem_cli_err && ok "--from: the override is said" || bad "--from override note"
from_check "--from LLaMA-Factory YAML + its DeepSpeed JSON" "c['stack']=='llama-factory' and c['mode']=='lora' and c['zero']==3 and c['sharding']=='deepspeed' and c['seq']==2048" --from $P/llama_factory_lora_sft.yaml --from $P/ds_z3_config.json --gpus 8
from_check "--from torchtune recipe" "c['stack']=='torchtune' and c['mode']=='qlora' and c['model']['preset']=='llama-3.1-8b' and c['loss_kernel']=='chunked'" --from $P/torchtune_8B_qlora_single_device.yaml
from_check "--from torchtitan TOML" "c['stack']=='torchtitan' and c['seq']==8192 and c['recompute']=='op_selective'" --from $P/torchtitan_llama3_8b.toml
from_check "--from verl overrides" "c['stack']=='verl' and c['rlhf']=='grpo' and c['dp']==8 and c['seq']==1536 and c['model']['preset']=='qwen2.5-7b'" --from $P/verl_grpo.sh
from_check "--from fsdp_qlora flags" "c['mode']=='qlora' and c['dp']==2 and c['offload_params']=='cpu' and c['model']['preset']=='llama-2-70b'" --from $P/fsdp_qlora_70b.sh
from_check "--from torchrun + TrainingArguments" "c['dp']==4 and c['zero']==3 and c['sharding']=='fsdp' and c['batch']==8 and c['seq']==2048" --from $P/hf_trainer_torchrun.sh
from_check "--from accelerate FSDP2 YAML" "c['fsdp1']==False and c['dp']==8 and c['zero']==3 and c['recompute']=='full'" --from $P/accelerate_fsdp2.yaml
from_check "--from ms-swift command" "c['stack']=='ms-swift' and c['mode']=='lora' and c['seq']==2048" --from $P/swift_sft_lora.sh
from_check "--from OpenRLHF command" "c['stack']=='openrlhf' and c['rlhf']=='ppo' and c['zero']==3 and c['rollout_engine']==True" --from $P/openrlhf_ppo.sh
expect_exit "--from table lists the keys" 0 --from $P/axolotl_llama3_qlora.yml
grep -q "micro_batch_size: 2 (line 32)  ->  batch = 2" $T/llmmem_cli_out && ok "--from: each key's line and field" || bad "--from table"
printf 'base_model: x/y\nmicro_batch_size: [1\n' > $T/llmmem_bad.yml
expect_exit "--from malformed YAML" 2 --from $T/llmmem_bad.yml
grep -q "line 3" $T/llmmem_cli_err && ok "--from: a YAML error names the line" || { bad "--from YAML error line"; cat $T/llmmem_cli_err; }
expect_exit "--from missing file" 2 --from /nonexistent/axolotl.yml
expect_exit "--from not a program's file" 2 --from tests/data/program_files/../../../presets/gpus.json
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
