#!/usr/bin/env bash
# `llmmem --hf` against a local stand-in for the Hub (tests/hub/standin.py, fixture repos
# from tests/hub/fixtures.py): no internet. Checks the model read, the exit codes and
# messages of every failure, that the token reaches the Hub but never the CDN, that a cached
# model is read with no request, and that HF_HUB_OFFLINE=1 makes none.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build/native/llmmem
passed=0; failed=0
ok() { passed=$((passed+1)); echo "ok   $1"; }
bad() { failed=$((failed+1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
cleanup() { [ -n "${server:-}" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
/usr/bin/python3 tests/hub/fixtures.py "$tmp/root" "$tmp/cache" >/dev/null || { echo "FAIL fixtures"; exit 1; }
/usr/bin/python3 tests/hub/standin.py "$tmp/root" --log "$tmp/log" >"$tmp/ready" 2>"$tmp/server_err" &
server=$!
for _ in $(seq 50); do grep -q READY "$tmp/ready" 2>/dev/null && break; sleep 0.1; done
hub=$(sed -n 's/READY hub=\([0-9]*\).*/\1/p' "$tmp/ready")
[ -n "$hub" ] || { echo "FAIL the stand-in did not start"; cat "$tmp/server_err"; exit 1; }
export HF_ENDPOINT=http://127.0.0.1:$hub HF_HUB_CACHE=$tmp/cache HF_HUB_DOWNLOAD_TIMEOUT=3
unset HF_TOKEN HF_HUB_OFFLINE TRANSFORMERS_OFFLINE

run() {  # name, expected exit, args...
  local name=$1 want=$2; shift 2
  : >"$tmp/log"
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" = "$want" ] && ok "$name (exit $got)" || { bad "$name: exit $got, wanted $want"; cat "$tmp/err"; }
}
has() { grep -q -- "$2" "$tmp/$1" && ok "$3" || { bad "$3 (no \"$2\" in $1)"; head -5 "$tmp/$1"; }; }
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open('$tmp/out')); assert $1, d" 2>/dev/null && ok "$2" || bad "$2"; }

run "single safetensors" 0 --hf tiny/qwen-single --mode infer --json
json "d['parameters']['total']==5776 and d['config']['model']['name']=='tiny/qwen-single'" "5,776 parameters, named by the id"
has err "agree with the headers" "the Hub's totals cross-checked with the header"
has log "Range\|bytes=0-7" "the header read by Range: the first 8 bytes"
grep -q "/blob/.* auth " "$tmp/log" && bad "a CDN request carried the token" || ok "no token sent (none given)"
grep -qv "params-override" "$tmp/err" && ! grep -q "params_override\|--params-override" "$tmp/err" \
  && ok "header count equals the importer's: no override" || bad "an override was set for an equal count"

run "sharded safetensors" 0 --hf tiny/qwen-sharded --mode infer --json
json "d['parameters']['total']==5776" "shards summed: 5,776"
has err "headers of its 2 shards" "both shard headers read"

run "URL with a revision" 0 --hf "http://127.0.0.1:$hub/tiny/qwen-single/tree/main" --mode infer
run "id@rev" 0 --hf tiny/qwen-single@main --mode infer

run "GGUF repo, default quant" 0 --hf tiny/gguf --mode infer --json
json "d['config']['dtype']=='q4_k_m'" "the Q4_K_M file chosen, its format applied"
has err "tiny-Q8_0.gguf" "the quant list is shown"
run "GGUF repo, --hf-file" 0 --hf tiny/gguf --hf-file tiny-Q8_0.gguf --mode infer --json
json "d['config']['dtype']=='q8_0'" "--hf-file picks the Q8_0"
run "GGUF split in parts" 0 --hf tiny/gguf --hf-file tiny-F16-00001-of-00002.gguf --mode infer --json
json "d['parameters']['total']==1600" "both parts' headers summed: 1,600"

run "unknown model_type" 0 --hf tiny/newarch --mode infer --json
json "d['config']['model']['hidden']==16 and d['parameters']['total']==5840" "generic fields drive the estimate, header count used"
has err "approximate: architecture brand_new read generically" "marked approximate"

# Issue 28: a config.json the importer cannot read leaves a weights-only estimate: "incomplete" (3).
run "unreadable architecture" 3 --hf tiny/noarch --mode infer --batch 64 --seq 131072
has out "weights only: the KV cache and activations are unknown" "weights only, said in the verdict"

run "gated without a token" 2 --hf tiny/gated
has err "is gated (HTTP 401)" "401 GatedRepo says gated"
has err "HF_TOKEN" "and how to get access"
HF_TOKEN=test-token run "gated with HF_TOKEN" 0 --hf tiny/gated --mode infer
grep -q "/api/models/tiny/gated.* auth " "$tmp/log" && ok "the token reaches the Hub" || bad "the token was not sent"
grep -q "/blob/.* auth " "$tmp/log" && bad "the token reached the CDN" || ok "the token never reaches the CDN"
HF_TOKEN=test-token run "the token is never printed" 0 --hf tiny/gated --mode infer
grep -q "test-token" "$tmp/out" "$tmp/err" && bad "token printed" || ok "token not in the output"

run "missing repo" 2 --hf tiny/missing
has err "no such repo, or it is private (HTTP 401)" "401 RepoNotFound without a token: missing or private"
grep -q "is gated" "$tmp/err" && bad "a missing repo is called gated" || ok "a missing repo is not called gated"
HF_TOKEN=test-token run "missing repo with a token" 2 --hf tiny/missing
has err "no such repo, or the token given has no access to it (HTTP 404)" "404 RepoNotFound with a token"
HF_TOKEN=wrong-token run "a refused token" 2 --hf tiny/qwen-single
has err "refused the access token (HTTP 401)" "401 without a code, token sent: the token is refused"
has err "Invalid credentials" "the Hub's X-Error-Message is quoted"
grep -q "wrong-token" "$tmp/err" "$tmp/out" && bad "the refused token was printed" || ok "the refused token is not printed"
HF_TOKEN=test-token run "gated, access not granted" 2 --hf tiny/denied
has err "not been granted access (HTTP 403)" "403 GatedRepo: ask for access"
run "missing revision" 2 --hf tiny/qwen-single@no-such-branch
has err "revision is not in the repo (HTTP 404)" "404 RevisionNotFound names the revision"
has err "no-such-branch" "and which one"
run "malformed config" 2 --hf tiny/malformed
has err "config.json of tiny/malformed is malformed" "malformed JSON named"
run "rate limit" 2 --hf tiny/ratelimited
has err "rate-limiting requests (HTTP 429)" "429 explained"
run "truncated header" 2 --hf tiny/truncated
has err "could not be read" "truncated header reported"
run "a 200 MB header is refused" 2 --hf tiny/hugeheader
has err "at most 100000000 are accepted" "the 100 MB header cap is said"
grep "/blob/tiny/hugeheader" "$tmp/log" | grep -qv "bytes=0-7" && bad "more than the first 8 bytes were fetched" \
  || ok "only the first 8 bytes were fetched"
start=$(date +%s)
run "slow Hub times out" 2 --hf tiny/slow
[ $(( $(date +%s) - start )) -lt 15 ] && ok "timed out within HF_HUB_DOWNLOAD_TIMEOUT" || bad "the timeout did not hold"
has err "timed out" "the timeout is said"
run "not an id" 2 --hf "a/b/c d"
has err "is not a Hugging Face model" "a bad id is explained"
run "the model stays when --hf fails" 2 --model llama-3.1-8b --hf tiny/missing

run "cached model" 0 --hf tiny/cached --mode infer --json
json "d['parameters']['total']==5776" "read from the cache"
[ -s "$tmp/log" ] && bad "a cached model made requests" || ok "a cached model makes no request"
HF_HUB_OFFLINE=1 run "offline, cached" 0 --hf tiny/cached --mode infer
HF_HUB_OFFLINE=1 run "offline, not cached" 2 --hf tiny/qwen-single
has err "HF_HUB_OFFLINE" "offline refusal names HF_HUB_OFFLINE"
[ -s "$tmp/log" ] && bad "offline made requests" || ok "HF_HUB_OFFLINE=1 makes no request"
HF_HOME=$tmp/nowhere HF_HUB_CACHE= run "HF_HOME without the repo cached goes to the Hub" 0 --hf tiny/qwen-single --mode infer

# Names from the Hub are paths inside the repo, or refused (issue 28).
HF_TOKEN=test-token run "an index shard that climbs out of the repo" 2 --hf tiny/traversal
has err "not a path inside the repo" "the shard name is refused with a word"
grep -q "qwen-single\|\.\." "$tmp/log" && bad "another repo's file was fetched" || ok "nothing outside the repo requested"
run "a cached index that climbs out of the cache" 2 --hf tiny/escape
has err "not a path inside the repo" "the cached shard name is refused"

# A pasted URL names the endpoint's host, or is refused (issue 28).
run "a URL on another host" 2 --hf https://evil.example/tiny/qwen-single
has err "evil.example" "the refused host is named"
[ -s "$tmp/log" ] && bad "a URL on another host made requests" || ok "no request for another host's URL"
run "a huggingface.co URL with another endpoint" 2 --hf https://huggingface.co/tiny/qwen-single

# HF_TOKEN and HF_ENDPOINT are checked and never printed (issue 28).
HF_TOKEN=$'test-token\r\nX-Injected: 1' run "CR/LF in HF_TOKEN" 2 --hf tiny/qwen-single
has err "HF_TOKEN" "the bad token is named by its variable"
grep -q "INJECTED" "$tmp/log" && bad "CR/LF in HF_TOKEN injected a header" || ok "no header injected"
grep -q "X-Injected" "$tmp/err" "$tmp/out" && bad "the bad token was printed" || ok "the bad token is not printed"
HF_ENDPOINT="http://someone:s3cret-pw@127.0.0.1:$hub" run "a password in HF_ENDPOINT" 0 --hf tiny/qwen-single --mode infer
grep -q "s3cret-pw" "$tmp/err" "$tmp/out" && bad "the HF_ENDPOINT password was printed" || ok "the HF_ENDPOINT password is not printed"
has err "user name or password" "the dropped password is said"
grep -q " auth " "$tmp/log" && bad "the endpoint's password was sent" || ok "the endpoint's password is not sent"

# One budget for every Hub request sequence (issue 28, core/hub/hub_budget.h).
: >"$tmp/log"
timeout 60 "$bin" --hf tiny/splitbig >"$tmp/out" 2>"$tmp/err"; got=$?
[ "$got" = 2 ] && ok "a GGUF in 99,999 parts is refused (exit $got)" || bad "a GGUF in 99,999 parts: exit $got, wanted 2"
has err "split in 99999 parts; at most 512" "the split-parts limit is said"
[ "$(grep -c . "$tmp/log")" -le 2 ] && ok "no part was fetched" || bad "$(grep -c . "$tmp/log") requests for a refused split"
timeout 120 "$bin" --hf tiny/trickle --mode infer >"$tmp/out" 2>"$tmp/err" </dev/null; got=$?; : >"$tmp/log.keep"
[ "$got" = 2 ] && ok "a trickling CDN meets the request budget (exit $got)" || bad "a trickling CDN: exit $got, wanted 2"
has err "at most 2048 requests" "the request limit is said"
: >"$tmp/log"; start=$(date +%s)
HF_HUB_DOWNLOAD_TIMEOUT=2 timeout 60 "$bin" --hf tiny/slowshards --mode infer >"$tmp/out" 2>"$tmp/err"; got=$?
took=$(( $(date +%s) - start ))
[ "$got" = 2 ] && ok "slow answers meet the overall deadline (exit $got)" || bad "slow answers: exit $got, wanted 2"
[ "$took" -le 16 ] && ok "stopped after ${took} s (6 x HF_HUB_DOWNLOAD_TIMEOUT)" || bad "ran ${took} s"
has err "took longer than 12 s in all" "the wall-time limit is said"

run "search" 0 --hf-search qwen
has out "tiny/qwen-single  500 downloads" "search lists hits with downloads, most first"
HF_HUB_OFFLINE=1 run "search offline" 2 --hf-search qwen
run "help documents --hf" 0 --help
has out "HF_ENDPOINT" "help names HF_ENDPOINT"

echo "cli hub: $passed passed, $failed failed"
[ "$failed" = 0 ]
