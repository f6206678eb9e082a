// The layer-stack JS API (issue 17) against the native CLI: estimateNetwork gives the same
// JSON as `llmmem --model ... --json` (same request keys), the presets list, a pasted
// print(model), and bad requests as error values.
// usage: node --no-experimental-fetch tests/js/network_api_test.mjs
import { root, loadApi, cli, check, finish } from './harness.mjs';
import assert from 'node:assert/strict';

const api = await loadApi();

const requests = [
  { model: 'resnet50', image_size: 224, batch: 64 },
  { model: 'vit_b_16', batch: 16, dtype: 'bf16', optimizer: 'adamw' },
  { model: 'swin_t', mode: 'infer', batch: 128 },
  { model: 'densenet121', image_size: '160x192', batch: 32, profile: 'torch1.13-cpu' },
  { model: 'lraspp_mobilenet_v3_large', image_size: 512, batch: 8, gpu: 'A100-SXM-40GB' },
];
for (const req of requests) {
  check(`estimateNetwork equals the CLI for ${JSON.stringify(req)}`, () => {
    const js = JSON.parse(api.estimateNetwork(JSON.stringify(req)));
    assert.equal(js.ok, true, JSON.stringify(js.diagnostics));
    const args = Object.entries(req).flatMap(([k, v]) => ['--' + k.replace(/_/g, '-'), String(v)]);
    const native = cli(args);
    assert.equal(js.total_bytes, native.total_bytes);
    assert.equal(js.per_sample_bytes, native.per_sample_bytes);
    assert.equal(js.max_batch, native.max_batch);
    assert.equal(js.network.params, native.network.params);
    assert.equal(js.layers.length, native.layers.length);
  });
}

check('networks() lists the presets with their exact counts', () => {
  const nets = JSON.parse(api.networks());
  assert.ok(nets.length >= 16);
  assert.equal(nets.find(n => n.key === 'resnet50').params, 25557032);
  assert.deepEqual(nets.find(n => n.key === 'vit_b_16').input, [3, 224, 224]);
});

check('a pasted print(model) becomes a stack the estimate takes', () => {
  const repr = 'Sequential(\n  (0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1))\n  (1): ReLU(inplace=True)\n' +
               '  (2): Flatten(start_dim=1, end_dim=-1)\n  (3): Linear(in_features=5408, out_features=10, bias=True)\n)';
  const parsed = JSON.parse(api.torchReprToNetwork(repr));
  assert.equal(parsed.ok, true);
  assert.equal(parsed.graph_exact, true);
  const r = JSON.parse(api.estimateNetwork(JSON.stringify({ network: parsed.network, input: [1, 28, 28] })));
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  assert.equal(r.network.params, 80 + 54090);
  const direct = JSON.parse(api.estimateNetwork(JSON.stringify({ torch_repr: repr, image_size: 28 })));
  assert.equal(direct.total_bytes, r.total_bytes);
});

check('bad requests are error values naming the field', () => {
  const r = JSON.parse(api.estimateNetwork('{"model": "resnet50", "batch": 0}'));
  assert.equal(r.ok, false);
  assert.ok(r.diagnostics.some(d => d.field === 'batch'));
  const none = JSON.parse(api.estimateNetwork('{}'));
  assert.equal(none.ok, false);
  const broken = JSON.parse(api.estimateNetwork('{"model": '));
  assert.equal(broken.ok, false);
  const layer = JSON.parse(api.estimateNetwork(JSON.stringify({ network: { input: [3, 8, 8],
    layers: [{ type: 'conv2d', name: 'c', in: 4, out: 8, kernel: 3 }] } })));
  assert.equal(layer.ok, false);
  assert.match(layer.diagnostics.map(d => d.message).join(' '), /c: expects 4 input channels/);
});

finish();
