// The Embind module (build/wasm/llmmem_api.js) against the native CLI: the same
// configurations must give bit-identical per-GPU totals and parameter counts.
// usage: node --no-experimental-fetch tests/js/api_test.mjs
import { root, loadApi, cli, check, finish } from './harness.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const api = await loadApi();

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

// Every entry point reports bad input; none answers for the defaults instead (issue 14).
const badConfigs = ['{"batch": "NaN"}', '{"batch": true}', '{"seq": "0x10"}', '{"flash_attn": 1}', '{"mode": 3}',
  '{"model": {"preset": 5}}', '{"batch": ', '\uFEFF{"batch": 2}', '[]', '"x"', '{"gpu": "nope"}'];
for (const bad of badConfigs) {
  check(`every entry point reports ${JSON.stringify(bad)}`, () => {
    const e = JSON.parse(api.estimate(bad));
    assert.equal(e.ok, false);
    assert.equal(e.per_gpu, undefined, 'no figures for the defaults');
    assert.ok(e.diagnostics.some(d => d.severity === 'error'));
    for (const [name, text] of [['configToQuery', api.configToQuery(bad)],
                                ['exportEstimate markdown', api.exportEstimate(bad, 'markdown')],
                                ['exportEstimate csv', api.exportEstimate(bad, 'csv')],
                                ['exportEstimate json', api.exportEstimate(bad, 'json')],
                                ['diagnose', api.diagnose(bad)]]) {
      const j = JSON.parse(text);
      assert.equal(j.ok, false, `${name}: ${text.slice(0, 200)}`);
      assert.ok(j.error && j.diagnostics.length, name);
    }
  });
}
check('exportEstimate refuses an unknown format; inspectWeightHeader a bad fileSize', () => {
  assert.equal(JSON.parse(api.exportEstimate(api.defaultConfig(), 'xlsx')).ok, false);
  for (const size of [NaN, -1, 0.5, 3]) {
    const r = JSON.parse(api.inspectWeightHeader(new Uint8Array(8), size));
    assert.equal(r.status, 'error', String(size));
  }
});
check('an invalid configuration is diagnosed as an error, not as no remedies', () => {
  const j = JSON.parse(api.diagnose('{"seq": 100000000}'));
  assert.equal(j.ok, false);
  assert.match(j.error, /seq/);
});
check('JSON output is valid UTF-8 with control characters escaped', () => {
  const name = '\u001b]0;t\u0007\u009b\u202e' + 'x'.repeat(188) + '\u00e9';  // the cut at 200 bytes splits the é
  const text = api.estimate(JSON.stringify({model: {preset: 'llama-3.1-8b', name}}));
  assert.ok(!/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/.test(text.replace(/\n/g, '')), 'raw control characters');
  const r = JSON.parse(text);
  assert.equal(r.ok, true);
  assert.ok(!r.config.model.name.includes('\ufffd'), 'cut on a character boundary');
});


// Issue 18: readOom gives what `llmmem oom --json` gives, with and without a configuration.
const oomDir = root + 'tests/fuzz/corpus/oom/';
function cliOom(file, args) {
  try {
    return JSON.parse(execFileSync(root + 'build/native/llmmem', ['oom', oomDir + file, ...args, '--json'], { encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 2) return JSON.parse(e.stdout);  // 2: not recognised, still a result
    throw e;
  }
}
for (const file of ['seed002_baichuan_a30.txt', 'torch2_other_process.txt', 'nvidia_smi_a30.txt', 'memory_summary.txt',
                    'ddp_two_ranks.txt', 'contradictory.txt', 'unknown.txt']) {
  check(`readOom equals llmmem oom --json for ${file}`, () => {
    const js = JSON.parse(api.readOom(readFileSync(oomDir + file, 'utf8'), ''));
    const native = cliOom(file, []);
    assert.deepEqual(js, native);
  });
}
check('readOom beside a configuration: seed 002 failed while loading the weights', () => {
  const config = JSON.parse(api.estimateQuery('v=1&model=baichuan-7b&mode=infer&seq=2048')).config;
  const js = JSON.parse(api.readOom(readFileSync(oomDir + 'seed002_baichuan_a30.txt', 'utf8'), JSON.stringify(config)));
  const d = js.devices[0];
  assert.equal(d.findings[0].id, 'held_elsewhere');
  assert.match(d.comparison.stage, /While loading the weights/);
  assert.equal(d.suggested.fits, false);
  const native = cliOom('seed002_baichuan_a30.txt', ['--model', 'baichuan-7b', '--mode', 'infer', '--seq', '2048']);
  assert.deepEqual(d, native.devices[0]);
});
// Issue 33: readRun gives what `llmmem run --json` gives, with and without a configuration.
const runDir = root + 'tests/fuzz/corpus/run/';
function cliRun(file, args) {
  try {
    return JSON.parse(execFileSync(root + 'build/native/llmmem', ['run', runDir + file, ...args, '--json'], { encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 2) return JSON.parse(e.stdout);
    throw e;
  }
}
for (const file of ['vllm_v0_tp2.txt', 'vllm_table.txt', 'vllm_usage.txt', 'sglang.txt', 'llama_cpp_two_gpus.txt',
                    'llama_cpp_breakdown.txt', 'ollama_plan.txt', 'ollama_engine.txt', 'memory_stats.json']) {
  check(`readRun equals llmmem run --json for ${file}`, () => {
    assert.deepEqual(JSON.parse(api.readRun(readFileSync(runDir + file, 'utf8'), '', false)), cliRun(file, []));
  });
}
check('readRun beside a configuration equals llmmem run with the same settings', () => {
  const config = JSON.parse(api.estimateQuery('v=1&model=llama-3-8b&mode=infer&seq=8192&runtime=vllm')).config;
  const js = JSON.parse(api.readRun(readFileSync(runDir + 'vllm_table.txt', 'utf8'), JSON.stringify(config), false));
  const native = cliRun('vllm_table.txt', ['--model', 'llama-3-8b', '--mode', 'infer', '--seq', '8192', '--runtime', 'vllm']);
  assert.deepEqual(js.log, native.log);
  assert.deepEqual(js.comparison, native.comparison);
  assert.equal(js.comparison.rows[0].category, 'weights');
  const fromLog = JSON.parse(api.readRun(readFileSync(runDir + 'vllm_v1.txt', 'utf8'), JSON.stringify(config), true));
  assert.deepEqual(fromLog.comparison, cliRun('vllm_v1.txt', ['--model', 'llama-3-8b', '--mode', 'infer', '--seq', '8192',
                                                              '--runtime', 'vllm', '--from-log']).comparison);
});
check('readRun: unknown text names the lines it knows', () => {
  const js = JSON.parse(api.readRun('hello', '', false));
  assert.equal(js.log.recognised, false);
  assert.match(js.log.error, /Available KV cache memory/);
});
check('readOom: unknown text names the forms it knows', () => {
  const js = JSON.parse(api.readOom('hello', ''));
  assert.equal(js.recognised, false);
  assert.match(js.notes[0], /nvidia-smi table/);
  assert.ok(js.known_forms.every(f => f.source.length > 20));
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

check('fit (issue 13): the JS API prints what llmmem fit --json prints, the ZeRO rows saying what limits them', () => {
  const cfg = JSON.parse(api.estimateQuery('v=1&model=llama-3.1-8b&zero=3&offload_params=cpu')).config;
  const js = JSON.parse(api.fit(JSON.stringify(cfg)));
  const native = cli(['fit', '--model', 'llama-3.1-8b', '--zero', '3', '--offload-params', 'cpu']);
  assert.deepEqual(js, native);
  assert.equal(js.fewest_gpus.length, 4);
  assert.equal(js.fewest_gpus[1].offload_params_dropped, true);
  assert.match(js.fewest_gpus[0].why_not, /what stays whole on every GPU/);
  assert.ok(js.fewest_gpus.every(r => r.possible || r.unsharded_bytes > 0));
  assert.equal(JSON.parse(api.fit('{"batch": 0.5}')).ok, false);
});

check('doctor and compat (issue 13): the JS API prints what llmmem --doctor --json and --compat --json print', () => {
  const cfg = JSON.parse(api.estimateQuery('v=1&model=llama-3.1-70b&seq=8192')).config;  // does not fit one H100
  for (const tool of ['deepspeed', 'megatron']) {
    const native = cli(['--model', 'llama-3.1-70b', '--seq', '8192', '--doctor', '--compat', tool, '--gpus-per-node', '8']);
    const doctor = JSON.parse(api.diagnose(JSON.stringify(cfg)));
    assert.ok(doctor.length > 0 && doctor.every(r => r.query.startsWith('v=')));
    assert.deepEqual(doctor, native.doctor);
    assert.deepEqual(JSON.parse(api.compat(JSON.stringify(cfg), tool, 8)), native.compat);
  }
  assert.deepEqual(cli(['--model', 'gpt2', '--doctor']).doctor, []);  // it fits: nothing to remedy
  assert.equal(JSON.parse(api.compat(JSON.stringify(cfg), 'bogus', 8)).ok, false);
  assert.equal(JSON.parse(api.compat(JSON.stringify(cfg), 'deepspeed', 0)).ok, false);
});

check('configSchema (issue 13): one property per setting, generated from the field table, as llmmem --schema', () => {
  const schema = JSON.parse(api.configSchema());
  const native = JSON.parse(execFileSync(root + 'build/native/llmmem', ['--schema'], { encoding: 'utf8' }));
  assert.deepEqual(schema, native);
  const cfg = JSON.parse(api.defaultConfig());
  // Every key of a configuration is described, with the type its value has.
  const typeOf = v => (typeof v === 'number' ? ['integer', 'number'] : [typeof v]);
  for (const [key, value] of Object.entries(cfg)) {
    if (key === 'model') continue;
    assert.ok(schema.properties[key], key);
    assert.ok(typeOf(value).includes(schema.properties[key].type), key);
  }
  for (const key of Object.keys(cfg.model)) assert.ok(schema.properties.model.properties[key], 'model.' + key);
  assert.equal(schema.properties.seq.minimum, 1);
  assert.equal(schema.properties.batch.type, 'integer');
  assert.match(schema.properties.autocast.description, /bf16/);
});

check('model changes (issue 13): --hidden keeps the preset and names the change, as the CLI', () => {
  for (const hidden of [4096, 5120]) {
    const js = JSON.parse(api.estimate(JSON.stringify({model: {preset: 'llama-3.1-8b', hidden}})));
    const native = cli(['--model', 'llama-3.1-8b', '--hidden', String(hidden)]);
    assert.deepEqual(js.config.model, native.config.model);
    assert.equal(js.config.model.preset, 'llama-3.1-8b');
    assert.deepEqual(js.config.model.customised, hidden === 4096 ? undefined : ['hidden', 'head_dim']);
  }
});

// Several jobs on one GPU (issue 34 part 3): planJobs(request) is llmmem plan --jobs FILE --json,
// field for field, for the example request of each kind (presets/jobs); bad input names its key.
const jobsDir = root + 'presets/jobs/';
for (const [file, gpu] of [['grpo_colocate.json', ''], ['llm_embedder_reranker.json', ''], ['draft.json', ''],
                           ['display.json', 'RTX-4090-24GB']]) {
  check(`planJobs equals llmmem plan --jobs for ${file}`, () => {
    const text = readFileSync(jobsDir + file, 'utf8');
    const request = gpu ? JSON.stringify({gpu, jobs: JSON.parse(text)}) : text;
    const js = JSON.parse(api.planJobs(request));
    const native = cli(['plan', '--jobs', jobsDir + file, ...(gpu ? ['--gpu', gpu] : [])]);
    assert.equal(js.schema, 'llmmem.jobs/1');
    assert.equal(js.ok, true, js.error);
    assert.deepEqual(js, native);
  });
}
check('planJobs: bad input is an error value naming the key', () => {
  const typo = JSON.parse(api.planJobs('{"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {"bach": 2}}]}'));
  assert.equal(typo.ok, false);
  assert.match(typo.error, /^jobs\[0\]\.config\.bach/);
  const cut = JSON.parse(api.planJobs('{"gpu": "H100-SXM-80GB", "jobs": ['));
  assert.equal(cut.ok, false);
  assert.match(cut.error, /line 1, column/);
});

// Issue 30 part 2: importProgramFile reads a training program's file as `llmmem --from FILE`.
const programDir = root + 'tests/data/program_files/';
for (const file of ['axolotl_llama3_qlora.yml', 'torchtune_8B_qlora_single_device.yaml', 'torchtitan_llama3_8b.toml',
                    'verl_grpo.sh', 'fsdp_qlora_70b.sh', 'hf_trainer_torchrun.sh', 'accelerate_fsdp2.yaml',
                    'swift_sft_lora.sh', 'openrlhf_ppo.sh', 'ds_z3_config.json']) {
  check(`importProgramFile equals llmmem --from for ${file}`, () => {
    const js = JSON.parse(api.importProgramFile(readFileSync(programDir + file, 'utf8'), programDir + file));
    let out;
    try {
      out = execFileSync(root + 'build/native/llmmem', ['--from', programDir + file, '--json'],
                         { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch (e) {
      if (e.status !== 1) throw e;  // 1: does not fit, still a result
      out = e.stdout;
    }
    const native = JSON.parse(out);
    assert.deepEqual(js.config, native.config);
    assert.deepEqual(js.import, native.from[0]);
  });
}
check('importProgramFile: malformed YAML is an error naming the line', () => {
  const js = JSON.parse(api.importProgramFile('base_model: x/y\nmicro_batch_size: [1\n', 'bad.yml'));
  assert.equal(js.import.ok, false);
  assert.equal(js.config, undefined);
  assert.match(js.import.errors[0], /line 3/);
});

finish();
