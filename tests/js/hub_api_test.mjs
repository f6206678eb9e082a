// web/hub.js with the JS API (build/wasm/llmmem_api.js) against the local Hub stand-in
// (tests/hub/standin.py, fixture repos from tests/hub/fixtures.py): the page's loading code
// under node's fetch, no internet. Node's fetch does not enforce CORS; the browser test does.
// usage: node tests/js/hub_api_test.mjs   (node's fetch on: llmmem_api.js is a single file)
import { createRequire } from 'node:module';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url).pathname;
const api = await require(root + 'build/wasm/llmmem_api.js')();
const LlmmemHub = require(root + 'web/hub.js');

const tmp = mkdtempSync(tmpdir() + '/llmmem-hub-');
execFileSync('/usr/bin/python3', [root + 'tests/hub/fixtures.py', tmp + '/root', tmp + '/cache']);
const log = tmp + '/log';
const server = spawn('/usr/bin/python3', [root + 'tests/hub/standin.py', tmp + '/root', '--log', log]);
const ready = await new Promise((resolve, reject) => {
  server.stdout.on('data', (d) => { const m = /READY hub=(\d+) cdn=(\d+)/.exec(String(d)); if (m) resolve(m); });
  server.on('exit', () => reject(new Error('the stand-in stopped')));
});
const endpoint = `http://127.0.0.1:${ready[1]}`;
const requests = () => { try { return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean); } catch { return []; } };
const clearLog = () => writeFileSync(log, '');

let passed = 0, failed = 0;
async function check(name, fn) {
  try { await fn(); passed++; console.log(`ok   ${name}`); }
  catch (e) { failed++; console.log(`FAIL ${name}\n     ${e.message}`); }
}

const hub = LlmmemHub.create(api, { endpoint, timeoutMs: 4000 });
await check('nothing is requested until a model is asked for', () => assert.equal(requests().length, 0));

await check('single safetensors: the importer, exact header count, API totals agree', async () => {
  const r = await hub.load('tiny/qwen-single');
  assert.ok(r.ok, r.error);
  assert.equal(r.result.config.model.hidden, 16);
  assert.equal(r.result.dtype, 'bf16');
  assert.equal(r.result.approximate, false);
  assert.ok(r.result.provenance.some((l) => l.includes('agree with the headers')), r.result.provenance.join('\n'));
  const e = JSON.parse(api.estimate(JSON.stringify(Object.assign(r.result.config, { mode: 'infer' }))));
  assert.equal(e.parameters.total, 5776);
  assert.ok(requests().some((l) => l.includes('bytes=0-7')), 'the first 8 bytes by Range');
});
await check('sharded safetensors: both shard headers summed', async () => {
  const r = await hub.load(`${endpoint}/tiny/qwen-sharded/tree/main`);
  assert.ok(r.ok, r.error);
  assert.ok(r.result.provenance.some((l) => l.includes('5,776 parameters')), r.result.provenance.join('\n'));
});
await check('GGUF repo: the quant list with sizes, Q4_K_M by default, another by choice', async () => {
  let r = await hub.load('tiny/gguf');
  assert.ok(r.ok, r.error);
  assert.equal(r.result.dtype, 'q4_k_m');
  assert.deepEqual(r.plan.gguf_files.map((f) => f.name),
                   ['tiny-F16-00001-of-00002.gguf', 'tiny-F16-00002-of-00002.gguf', 'tiny-Q4_K_M.gguf', 'tiny-Q8_0.gguf']);
  assert.ok(r.plan.gguf_files.every((f) => f.size > 0));
  r = await hub.load('tiny/gguf', 'tiny-Q8_0.gguf');
  assert.equal(r.result.dtype, 'q8_0');
  r = await hub.load('tiny/gguf', 'tiny-F16-00001-of-00002.gguf');
  assert.ok(r.ok, r.error);
  assert.equal(r.result.config.model.params_override, 1600, 'both parts summed');
});
await check('unknown model_type: generic fields, marked approximate', async () => {
  const r = await hub.load('tiny/newarch');
  assert.ok(r.ok, r.error);
  assert.equal(r.result.approximate, true);
  assert.ok(r.result.provenance[0].includes('approximate: architecture brand_new read generically'));
  assert.equal(r.result.config.model.params_override, 5840);
});
await check('gated: 401 explained; the token opens it and never reaches the CDN', async () => {
  let r = await hub.load('tiny/gated');
  assert.equal(r.ok, false);
  assert.match(r.error, /is gated \(HTTP 401\).*HF_TOKEN/);
  clearLog();
  r = await LlmmemHub.create(api, { endpoint, token: 'test-token' }).load('tiny/gated');
  assert.ok(r.ok, r.error);
  const lines = requests();
  assert.ok(lines.some((l) => l.includes('/api/models/tiny/gated') && l.includes(' auth ')));
  assert.ok(!lines.some((l) => l.includes('/blob/') && l.includes(' auth ')), lines.join('\n'));
});
for (const [id, pattern] of [['tiny/missing', /no such repo, or it is private \(HTTP 401\)/], ['tiny/malformed', /malformed/],
                             ['tiny/ratelimited', /HTTP 429/], ['tiny/truncated', /could not be read/],
                             ['tiny/slow', /timed out/], ['a/b/c d', /not a Hugging Face model/],
                             ['tiny/hugeheader', /at most 100000000 are accepted/]]) {
  await check(`${id}: a clear error`, async () => {
    const r = await hub.load(id);
    assert.equal(r.ok, false);
    assert.match(r.error, pattern);
  });
}
await check('a 200 MB header is refused after its first bytes', async () => {
  const ranges = requests().filter((l) => l.includes('/blob/tiny/hugeheader')).map((l) => l.split(' ').pop());
  assert.ok(ranges.length > 0 && ranges.every((r) => /^bytes=(0-7|8-8)$/.test(r)), ranges.join(', '));
});
await check('offline (nothing listening): a clear error', async () => {
  const r = await LlmmemHub.create(api, { endpoint: 'http://127.0.0.1:9', timeoutMs: 2000 }).load('tiny/qwen-single');
  assert.equal(r.ok, false);
  assert.match(r.error, /no answer from the Hub/);
});
await check('search: hits with downloads and size, most downloaded first', async () => {
  const s = await hub.search('qwen', 5);
  assert.ok(s.ok, s.error);
  assert.deepEqual(s.hits.map((h) => h.id), ['tiny/qwen-single', 'tiny/qwen-sharded']);
  assert.equal(s.hits[0].downloads, 500);
  assert.equal(s.hits[0].parameters, 5776);
});
await check('mirrors and refs', () => {
  assert.ok(JSON.parse(api.hubMirrors()).some((m) => m.endpoint === 'https://hf-mirror.com'));
  assert.equal(JSON.parse(api.hubParseRef('Qwen/Qwen2.5-7B-Instruct@v1', 'https://huggingface.co')).text,
               'Qwen/Qwen2.5-7B-Instruct@v1');
});

// Issue 28, third hostile pass: the same budget, names, hosts, secrets and errors as the CLI
// (tests/cli/cli_hub_test.sh runs the same scenarios against the native loader).
await check('the budget is the core\'s: hub.js holds no limits of its own', () => {
  const core = new api.HubBudget(4000, 0);
  assert.deepEqual(hub.limits(), JSON.parse(core.limits()));
  core.delete();
  assert.deepEqual(hub.limits(), { max_requests: 2048, max_bytes: 512 * 1024 * 1024, max_wall_ms: 6 * 4000,
                                   max_shards: 512, max_split_parts: 512 });
  const source = readFileSync(root + 'web/hub.js', 'utf8');
  assert.ok(!/kMaxShards|512|2048/.test(source), 'a limit is written in hub.js');
});
await check('a GGUF in 99,999 parts: refused before any part, the CLI\'s sentence', async () => {
  clearLog();
  const r = await hub.load('tiny/splitbig');
  assert.equal(r.ok, false);
  assert.match(r.error, /split in 99999 parts; at most 512 are read/);
  assert.ok(requests().length <= 1, requests().join('\n'));
});
await check('a trickling CDN meets the request budget', async () => {
  // A longer timeout, so the request count (not the wall time) is what stops it.
  const r = await LlmmemHub.create(api, { endpoint, timeoutMs: 30000 }).load('tiny/trickle');
  assert.equal(r.ok, false);
  assert.match(r.error, /at most 2048 requests/);
  assert.equal(r.requests, 2048);
});
await check('slow answers meet the overall deadline', async () => {
  const start = Date.now();
  const r = await LlmmemHub.create(api, { endpoint, timeoutMs: 2000 }).load('tiny/slowshards');
  assert.equal(r.ok, false);
  assert.match(r.error, /took longer than 12 s in all/);
  assert.ok(Date.now() - start < 16000, `${Date.now() - start} ms`);
});
await check('headers are summed as they come: hubBuildModel gets a HubHeaderSum, not the bytes', async () => {
  let given = null;
  const spy = Object.create(api);
  spy.hubBuildModel = (request, sum) => { given = sum; return api.hubBuildModel(request, sum); };
  const r = await LlmmemHub.create(spy, { endpoint }).load('tiny/qwen-sharded');
  assert.ok(r.ok, r.error);
  assert.ok(given instanceof api.HubHeaderSum, 'not a HubHeaderSum');
});
await check('an index shard that climbs out of the repo is refused, nothing outside fetched', async () => {
  clearLog();
  const r = await LlmmemHub.create(api, { endpoint, token: 'test-token' }).load('tiny/traversal');
  assert.equal(r.ok, false);
  assert.match(r.error, /not a path inside the repo/);
  assert.ok(!requests().some((l) => l.includes('qwen-single') || l.includes('..')), requests().join('\n'));
});
await check('a URL on another host is refused, no request', async () => {
  clearLog();
  const r = await hub.load('https://evil.example/tiny/qwen-single');
  assert.equal(r.ok, false);
  assert.match(r.error, /evil\.example/);
  assert.equal(requests().length, 0);
  assert.ok((await hub.load(`${endpoint}/tiny/qwen-single`)).ok, 'the endpoint\'s own URL');
});
await check('a token with CR/LF is refused unsent and unprinted', async () => {
  clearLog();
  const r = await LlmmemHub.create(api, { endpoint, token: 'test-token\r\nX-Injected: 1' }).load('tiny/qwen-single');
  assert.equal(r.ok, false);
  assert.match(r.error, /access token has a line break/);
  assert.ok(!r.error.includes('test-token') && !r.error.includes('Injected'), r.error);
  assert.equal(requests().length, 0);
});
for (const [name, options, id, pattern] of [
  ['a refused token', { token: 'wrong-token' }, 'tiny/qwen-single', /refused the access token \(HTTP 401\).*Invalid credentials/],
  ['a missing repo with a token', { token: 'test-token' }, 'tiny/missing', /the token given has no access to it \(HTTP 404\)/],
  ['gated, access not granted', { token: 'test-token' }, 'tiny/denied', /not been granted access \(HTTP 403\)/],
  ['a missing revision', {}, 'tiny/qwen-single@no-such-branch', /revision is not in the repo \(HTTP 404\).*no-such-branch/]]) {
  await check(`${name}: told as the Hub tells it`, async () => {
    const r = await LlmmemHub.create(api, Object.assign({ endpoint }, options)).load(id);
    assert.equal(r.ok, false);
    assert.match(r.error, pattern);
    assert.ok(!r.error.includes('wrong-token'), r.error);
  });
}

server.kill();
rmSync(tmp, { recursive: true, force: true });
console.log(`hub api: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
