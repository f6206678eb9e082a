// The Embind module (build/wasm/llmmem_api.js) against the native CLI: the same
// configurations must give bit-identical per-GPU totals and parameter counts.
// usage: node --no-experimental-fetch tests/js/api_test.mjs
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url).pathname;
const createLlmmem = require(root + 'build/wasm/llmmem_api.js');
const api = await createLlmmem();

let passed = 0, failed = 0;
function check(name, fn) {
  try { fn(); passed++; console.log(`ok   ${name}`); }
  catch (e) { failed++; console.log(`FAIL ${name}\n     ${e.message}`); }
}

function cli(args) {
  try {
    return JSON.parse(execFileSync(root + 'build/native/llmmem', [...args, '--json'], { encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout);  // 1: does not fit, still a result
    throw e;
  }
}

const queries = [
  'v=1&model=llama-3.1-8b',
  'v=1&model=llama-3.1-8b&mode=infer&batch=16&seq=8192&kv_dtype=fp8',
  'v=1&model=qwen2.5-7b&mode=lora&lora_rank=64&recompute=full',
  'v=1&model=mixtral-8x7b&mode=qlora&seq=2048',
  'v=1&model=gpt2&mode=train&flash_attn=0&dropout=1&batch=8&seq=1024',
  'v=1&model=custom&hidden=5120&layers=40&heads=40&kv_heads=40&head_dim=128&ffn=13824&vocab=32000&mode=train&tp=4&sp=1',
  'v=1&model=qwen2.5-7b&framework=hf-eager&seq=2048',
  'v=1&model=llama-3.1-8b&framework=liger&recompute=full',
  'v=1&model=gpt2&framework=megatron&dropout=1&seq=1024',
  'v=1&model=llama-3.1-8b&mode=infer&runtime=vllm&seq=8192',
  'v=1&model=qwen2.5-32b&mode=infer&runtime=sglang&dtype=awq&tp=2&gpu=RTX-4090-24GB&seq=32768',
  'v=1&model=llama-3.1-70b&mode=infer&runtime=llama.cpp&dtype=q4_k_m&gpu_layers=40&kv_dtype=q8_0&gpu=RTX-4090-24GB',
  'v=1&model=llama-3.1-8b&mode=infer&runtime=ollama&dtype=q4_k_m&batch=2&gpu=RTX-3060-12GB',
];

for (const q of queries) {
  check(`JS API equals CLI for ${q}`, () => {
    const js = JSON.parse(api.estimateQuery(q));
    const args = q.split('&').filter(p => !p.startsWith('v=')).map(p => '--' + p);
    const native = cli(args);
    assert.equal(js.ok, true, JSON.stringify(js.diagnostics));
    assert.equal(js.per_gpu.total_bytes, native.per_gpu.total_bytes);
    assert.equal(js.parameters.total, native.parameters.total);
    assert.deepEqual(js.per_gpu.by_category, native.per_gpu.by_category);
  });
}

check('estimate(JSON) round-trips the default config', () => {
  const def = api.defaultConfig();
  const r = JSON.parse(api.estimate(def));
  assert.equal(r.ok, true);
  assert.equal(r.parameters.total, 8030261248);
  assert.ok(r.breakdown.children.length >= 2);
});

check('bad input is an error value, not a crash', () => {
  const r = JSON.parse(api.estimateQuery('v=1&batch=-3&seq=abc&model=nope'));
  assert.equal(r.ok, false);
  const fields = r.diagnostics.map(d => d.field);
  assert.ok(fields.includes('seq'), JSON.stringify(r.diagnostics));
  assert.ok(fields.includes('model'));
  assert.ok(fields.includes('batch'));
  const broken = JSON.parse(api.estimate('{"batch": '));
  assert.equal(broken.ok, false);
  assert.match(broken.diagnostics[0].message, /line 1, column/);
});

check('presets list and HF import', () => {
  const presets = JSON.parse(api.presets());
  assert.ok(presets.length >= 40);
  const imported = JSON.parse(api.importHfConfig('{"model_type":"llama","vocab_size":32000,"hidden_size":4096,' +
    '"num_hidden_layers":32,"num_attention_heads":32,"intermediate_size":11008}'));
  assert.equal(imported.ok, true);
  // GPT-2 cannot run past its 1024-row position table: the imported config starts there.
  const gpt2 = JSON.parse(api.importHfConfig('{"model_type":"gpt2","vocab_size":50257,"n_embd":768,"n_layer":12,' +
    '"n_head":12,"n_positions":1024}'));
  assert.equal(gpt2.ok, true);
  assert.equal(gpt2.config.seq, 1024);
  assert.ok(gpt2.diagnostics.some(d => d.field === 'seq' && d.severity === 'info'));
  assert.equal(JSON.parse(api.estimate(JSON.stringify(gpt2.config))).ok, true);
  const missing = JSON.parse(api.importHfConfig('{"model_type":"llama","vocab_size":32000}'));
  assert.equal(missing.ok, false);
  assert.ok(missing.diagnostics.some(d => d.field === 'hidden_size'));
});

check('serving (issue 16): the report, the fit answers and the launch commands equal the CLI', () => {
  const cfg = JSON.parse(api.estimateQuery('v=1&model=llama-3.1-8b&mode=infer&runtime=vllm&seq=8192')).config;
  const js = JSON.parse(api.estimate(JSON.stringify(cfg)));
  const native = cli(['--model', 'llama-3.1-8b', '--mode', 'infer', '--runtime', 'vllm', '--seq', '8192']);
  assert.equal(js.serving.blocks, native.serving.blocks);
  assert.equal(js.serving.max_concurrency, native.serving.max_concurrency);
  assert.ok(js.serving.blocks > 20000);
  const fit = JSON.parse(api.fitServing(JSON.stringify(cfg)));
  assert.equal(fit.ok, true);
  assert.ok(fit.max_concurrency >= 1);
  const cmd = api.exportLaunch(JSON.stringify(cfg), 'vllm');
  assert.match(cmd, /^vllm serve meta-llama\/Llama-3\.1-8B/);
  assert.match(cmd, /--max-model-len 8192/);
  const nativeCmd = execFileSync(root + 'build/native/llmmem',
    ['--model', 'llama-3.1-8b', '--mode', 'infer', '--runtime', 'vllm', '--seq', '8192', '--export', 'vllm'], { encoding: 'utf8' });
  assert.equal(cmd, nativeCmd);
  assert.match(api.exportLaunch(JSON.stringify(cfg), 'bogus'), /unknown target/);
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
