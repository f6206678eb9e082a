#!/usr/bin/env bash
# The layer-stack CLI (issue 17) as a user runs it: presets by torchvision name, a network
# JSON file, a pasted print(model), exit codes (0 fits, 1 does not, 2 bad input), messages
# that name the flag or the layer, JSON that the JS API shares.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build/native/llmmem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
ok() { passed=$((passed+1)); echo "ok   $1"; }
bad() { failed=$((failed+1)); echo "FAIL $1"; }
expect_exit() {  # name, expected code, args...
  local name=$1 want=$2; shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" = "$want" ] && ok "$name (exit $got)" || { bad "$name: exit $got, wanted $want"; cat "$tmp/err"; }
}
py() { /usr/bin/python3 -c "$1" "$tmp/out"; }

expect_exit "list networks" 0 --list-networks
grep -q "resnet50 .*25,557,032" "$tmp/out" && grep -q "vit_b_16 .*86,567,656" "$tmp/out" \
  && ok "presets listed with torchvision's counts" || bad "network list"
expect_exit "network help" 0 --network-help
grep -q -- "--torch-repr FILE" "$tmp/out" && ok "help documents --torch-repr" || bad "network help"
expect_exit "resnet50 at 224 fits" 0 --model resnet50 --image-size 224 --batch 64
grep -q "memory = model + batch x per-sample = " "$tmp/out" && grep -q "the largest batch that fits: " "$tmp/out" \
  && ok "the seed's view: model + batch x per-sample, and the batch that fits" || bad "seed view"
expect_exit "resnet50 json" 0 --model resnet50 --image-size 224 --batch 64 --json
py "import json,sys; d=json.load(open(sys.argv[1])); n=d['network']; assert n['params']==25557032 and d['fits'] and d['max_batch']>64
assert d['total_bytes'] > d['model_bytes'] + 64*d['per_sample_bytes']
assert len(d['layers'])>100 and d['layers'][0]['name']=='conv1' and d['layers'][0]['output']==[64,112,112]" \
  && ok "JSON: parameters, per-layer rows, max batch" || bad "resnet50 json"
# One number reader for every door (issue 29): hex ran here and was refused for an LLM.
expect_exit "hex batch refused as for an LLM" 2 --model resnet50 --batch 0x10
grep -q "batch" "$tmp/err" && grep -q "decimal" "$tmp/err" && ok "the message names batch and asks for decimal" || bad "hex batch message"
expect_exit "hex batch refused for an LLM" 2 --model llama-3.1-8b --batch 0x10
# The LLM result's form (issue 29): parameters.total, per_gpu, breakdown; whole bytes that add up.
expect_exit "resnet50 json, LLM form" 0 --model resnet50 --batch 7 --fragmentation-pct 7 --json
py "import json,sys; d=json.load(open(sys.argv[1]))
assert d['parameters']['total']==d['network']['params']==25557032
g=d['per_gpu']; assert g['total_bytes']==d['total_bytes'] and g['verdict']=='fits'
kids=d['breakdown']['children']; assert sum(k['bytes'] for k in kids)==d['breakdown']['bytes']==g['total_bytes']
for v in [d['model_bytes'],d['total_bytes'],d['per_sample_bytes']]+[k['bytes'] for k in kids]: assert v==int(v),v" \
  && ok "layer-stack JSON: parameters.total, per_gpu, breakdown in whole bytes that add up" || bad "layer-stack JSON form"
expect_exit "vgg16 too big a batch" 1 --model vgg16 --batch 4096 --gpu-memory-gb 24
expect_exit "inference" 0 --model vit-b/16 --mode infer --batch 8 --dtype fp16 --json
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['settings']['mode']=='infer' and d['per_sample']['inference_peak_bytes']>0 and d['network']['key']=='vit_b_16'" \
  && ok "inference: the live peak, fp16, ViT by its display name" || bad "inference json"
expect_exit "profile differences named" 0 --model vit_b_16 --batch 4
grep -q "fused SDPA" "$tmp/out" && ok "ViT names the attention kernel difference" || bad "profile differences"
cat >"$tmp/net.json" <<'JSON'
{"name": "tiny", "input": [3, 32, 32], "layers": [
 {"type": "conv2d", "out": 16, "kernel": 3, "padding": 1, "bias": false, "name": "conv"},
 {"type": "batchnorm", "name": "bn"}, {"type": "relu", "inplace": true, "name": "relu"},
 {"type": "add", "name": "res", "branches": [[{"type": "conv2d", "out": 16, "kernel": 3, "padding": 1, "name": "res.conv"}], []]},
 {"type": "adaptive_avgpool2d", "size": 1, "name": "pool"}, {"type": "flatten", "name": "flatten"},
 {"type": "linear", "out": 10, "name": "fc"}]}
JSON
expect_exit "network file" 0 --network "$tmp/net.json" --batch 128 --layers
grep -q "res.conv" "$tmp/out" && ok "--layers shows nested layers" || bad "--layers"
expect_exit "network file json" 0 --network "$tmp/net.json" --json
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['network']['params']==432+32+2320+170" \
  && ok "custom stack: 2,954 parameters" || bad "custom params"
sed 's/"out": 10/"in": 99, "out": 10/' "$tmp/net.json" >"$tmp/bad.json"
expect_exit "channel mismatch" 2 --network "$tmp/bad.json"
grep -q "fc: expects 99 input features" "$tmp/err" && ok "the error names the layer" || bad "layer error"
printf '{"layers": [' >"$tmp/broken.json"
expect_exit "broken network JSON" 2 --network "$tmp/broken.json"
expect_exit "missing network file" 2 --network /nonexistent.json
expect_exit "bad image size" 2 --model resnet50 --image-size abc
expect_exit "bad dtype" 2 --model resnet18 --dtype q4_k_m
grep -q "dtype must be fp32, fp16 or bf16" "$tmp/err" && ok "dtype error names the allowed values" || bad "dtype error"
expect_exit "image too small" 2 --model vgg16 --image-size 8
grep -q "too small" "$tmp/err" && ok "too small an image is named" || bad "small image message"
cat >"$tmp/repr.txt" <<'REPR'
Net(
  (features): Sequential(
    (0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1))
    (1): ReLU(inplace=True)
    (2): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
  )
  (classifier): Linear(in_features=1352, out_features=10, bias=True)
)
REPR
expect_exit "torch repr" 0 --torch-repr "$tmp/repr.txt" --image-size 28 --json
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['network']['params']==80+13530 and d['network']['input']==[1,28,28]
assert any('forward is not in the repr' in x['message'] for x in d['diagnostics'])" \
  && ok "repr: exact parameters, channels from the first conv, the unknown forward said" || bad "torch repr"
echo "not a model" >"$tmp/junk.txt"
expect_exit "junk repr" 2 --torch-repr "$tmp/junk.txt" --image-size 28
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
