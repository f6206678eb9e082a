// Runs every bench side by side in one go and writes the results with their budgets:
//   native          build/native/llmmem_bench --json
//   WASM in node    build/wasm/llmmem_bench.js --json (built -Os, as the page)
//   WASM in Chromium, the page itself   bench/browser_bench.mjs
//   page bytes      build/web's files, raw, gzipped and as served (their precompressed .br)
// Full mode writes bench/RESULTS.md; --quick (CI: scripts/test) runs a few iterations,
// writes build/bench/RESULTS.quick.md and only checks that everything still runs.
// usage: node bench/run.mjs [--quick]      (after scripts/build all)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const root = new URL('../', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const flags = quick ? ['--json', '--quick'] : ['--json'];
const run = (cmd, args) => JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 }).trim().split('\n').pop());

const native = run(root + 'build/native/llmmem_bench', flags);
const node = run('node', ['--no-experimental-fetch', root + 'build/wasm/llmmem_bench.js', ...flags]);
const page = run('node', [root + 'bench/browser_bench.mjs', ...(quick ? ['--quick'] : [])]);

// What the first screen loads (hub.js comes on the first Hugging Face request).
const files = ['index.html', 'boot.js', 'app.css', 'llmmem.js', 'llmmem.wasm'];
const size = f => (existsSync(root + 'build/web/' + f) ? statSync(root + 'build/web/' + f).size : 0);
const gz = f => size(f + '.gz') || size(f);
const br = f => size(f + '.br') || size(f);
const raw = files.reduce((a, f) => a + size(f), 0);
const packed = files.reduce((a, f) => a + br(f), 0);
const gzipped = files.reduce((a, f) => a + gz(f), 0);

const kb = b => (b / 1000).toFixed(1) + ' KB';
const ok = c => (c ? 'yes' : '**no**');
const budgets = [
  ['WASM estimate (Chromium) <= 1 us', `${page.estimate_us.toFixed(3)} us`, page.estimate_us <= 1],
  ['WASM estimate <= 2x native', `${(page.estimate_us / native.estimate_us).toFixed(2)}x (node ${(node.estimate_us / native.estimate_us).toFixed(2)}x)`,
   page.estimate_us <= 2 * native.estimate_us],
  ['full fit map in the browser <= 50 ms', `${page.fitmap_ms.toFixed(2)} ms`, page.fitmap_ms <= 50],
  ['first frame <= 1.5x a blank WebGL2 page', `${(page.first_frame_ms / page.blank_frame_ms).toFixed(2)}x`,
   page.first_frame_ms <= 1.5 * page.blank_frame_ms],
  ['planner: 405B over 1,024 GPUs in the page\'s Web Worker <= 1 s', `${(page.plan_405b_ms / 1000).toFixed(2)} s (runs ${(page.plan_405b_runs || []).map(x => (x / 1000).toFixed(2)).join(', ')} s)`,
   page.plan_405b_ms <= 1000],
  ['page <= 450 KB as served (English, Brotli)', `${kb(packed)} (gzip ${kb(gzipped)})`, packed <= 450e3],
  ['idle main thread <= 2%', `${page.idle_busy_pct.toFixed(2)}% (${page.idle_frames} frames in ${page.idle_seconds} s)`,
   page.idle_busy_pct <= 2 && page.idle_frames === 0],
];

const cpu = (os.cpus()[0] || {}).model || 'unknown CPU';
const md = `# Bench results${quick ? ' (quick: a check that the benches run, not a measurement)' : ''}

Written by \`node bench/run.mjs${quick ? ' --quick' : ''}\` (bench/run.mjs): native, WASM under node and the
page's own WASM in headless Chromium, side by side on one machine, one run.
Machine: ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version};
Chromium with SwiftShader (software WebGL2, as the browser test runs it). Shared machine: the
absolute figures move with its load; the ratios are the point.

## Budgets

| budget | measured | met |
|---|---:|:-:|
${budgets.map(([b, m, c]) => `| ${b} | ${m} | ${ok(c)} |`).join('\n')}

## Estimate latency (core::EstimateTotals; Llama 3.1 8B, training and inference alternating)

| where | us per estimate | ratio to native |
|---|---:|---:|
| native (g++ -O3) | ${native.estimate_us.toFixed(3)} | 1.00 |
| WASM under node (em++ -Os, the fast path -O2) | ${node.estimate_us.toFixed(3)} | ${(node.estimate_us / native.estimate_us).toFixed(2)} |
| WASM in Chromium (the page) | ${page.estimate_us.toFixed(3)} | ${(page.estimate_us / native.estimate_us).toFixed(2)} |

The page's figure is for the optimised code: Chromium runs a wasm function on its baseline
compiler (Liftoff) first and tiers the estimate's functions up over its first few hundred
thousand calls; the warm-up calls measured ${(page.estimate_warmup_us || []).join(', ')} us, then the five timed
calls ${(page.estimate_runs_us || []).map(x => x.toFixed(3)).join(', ')} us (the median is the figure; native and node likewise
take the median of five runs).

Explain (the tree with formulas): native ${native.explain_us.toFixed(1)} us, node ${node.explain_us.toFixed(1)} us
(${(native.explain_us / native.estimate_us).toFixed(0)}x the fast path).

## Fit map (${native.fitmap_cells} cells, the UI's grid)

| where | ms per map |
|---|---:|
| native | ${native.fitmap_ms.toFixed(2)} |
| WASM under node | ${node.fitmap_ms.toFixed(2)} |
| the page in Chromium (its own timing, median of ${page.fitmap_runs.length} configurations) | ${page.fitmap_ms.toFixed(2)} |

## Training planner (core/plan: Megatron-LM's Llama 3 requests, the whole search)

Candidates considered (every point of the space, those a monotone bound ruled out included)
and candidates estimated (EstimateTotals run), per second of CPU time and of wall clock,
native beside WASM under node. Budget: 1,000,000 candidates a second native.

| request | where | considered | estimated | pruned | refused | fit | s (CPU) | s (wall) | considered/s (CPU) | estimated/s (CPU) |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${[['native', native], ['WASM under node', node]].flatMap(([where, r]) => (r.plans || []).map(p =>
  `| ${p.name} | ${where} | ${p.considered} | ${p.evaluated} | ${p.pruned} | ${p.invalid} | ${p.feasible} | ${p.cpu_seconds.toFixed(3)} | ${p.seconds.toFixed(3)} | ${(p.considered / p.cpu_seconds).toFixed(0)} | ${(p.evaluated / p.cpu_seconds).toFixed(0)} |`)).join('\n')}

## First frame (navigation start to the end of the first drawn frame, 1280x800, median)

| page | ms | runs |
|---|---:|---|
| llmmem | ${page.first_frame_ms.toFixed(0)} | ${page.first_frame_runs.join(', ')} |
| blank WebGL2 page (bench/blank) | ${page.blank_frame_ms.toFixed(0)} | ${page.blank_frame_runs.join(', ')} |

Where llmmem's time goes (medians): the wasm has arrived at ${page.wasm_loaded_ms.toFixed(0)} ms, the module
is compiled and running at ${page.runtime_ready_ms.toFixed(0)} ms, the first frame ends at ${page.first_frame_ms.toFixed(0)} ms
(context, start-up estimate, font atlas and one frame in between). main_web.cpp's marks, each the
median ms since navigation start: ${Object.entries(page.marks_ms || {}).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}
(main: the module's main() begins; gl_context: the canvas sized and its WebGL2 context made
(sizing first: resizing after costs a software renderer as much again); gl_ready: the UI's
shader program sent to the GPU process to compile, input installed; app_state: the link or
saved state read, catalogues parsed; app_fonts: fonts rasterised; app_estimate: the first
estimate and its explanation; app_init; font_texture: the atlas uploaded; gl_linked: the
program's link status read, the one wait on the GPU process; main_end; frame_start: the first
animation frame begins).

## Idle and input

- Main thread busy ${page.idle_busy_pct.toFixed(2)}% over ${page.idle_seconds} s without input; ${page.idle_frames} frames drawn.
- Input-to-frame latency, median over mouse moves: ${page.latency_ms.toFixed(1)} ms (software WebGL).

## Page bytes (English; the Chinese font, llmmem-cjk.ttf, only when Chinese is shown)

| file | raw | gzip | Brotli (as served) |
|---|---:|---:|---:|
${files.map(f => `| ${f} | ${kb(size(f))} | ${kb(gz(f))} | ${kb(br(f))} |`).join('\n')}
| **total** | **${kb(raw)}** | **${kb(gzipped)}** | **${kb(packed)}** |
| llmmem-cjk.ttf | ${kb(size('llmmem-cjk.ttf'))} | ${kb(gz('llmmem-cjk.ttf'))} | ${kb(br('llmmem-cjk.ttf'))} |

On the wire (Content-Length as scripts/serve.py sent it): ${kb(page.wire_bytes)}.
`;

const outDir = quick ? root + 'build/bench' : root + 'bench';
mkdirSync(outDir, { recursive: true });
const outFile = outDir + (quick ? '/RESULTS.quick.md' : '/RESULTS.md');
writeFileSync(outFile, md);
console.log(md);
console.log(`written: ${outFile}`);
// Quick mode checks that everything ran and produced numbers; the budgets are for full runs.
const numbers = [native.estimate_us, node.estimate_us, page.estimate_us, page.fitmap_ms, page.first_frame_ms, page.blank_frame_ms];
process.exit(numbers.every(x => Number.isFinite(x) && x > 0) ? 0 : 1);
