// The page's own build measured in headless Chromium (Debian's, software WebGL), served by
// scripts/serve.py as a user gets it (Brotli-encoded). Prints one JSON object:
//  estimate_us      core::EstimateTotals in the page's WASM (Module._llmmem_bench_estimate), once
//                   tiered up, the median of five timed calls (estimate_runs_us; estimate_warmup_us:
//                   the warm-up calls before them)
//  fitmap_ms        the UI's fit-map grid as the page computes it (test hook fitmap_ms),
//                   median over training and inference configurations
//  first_frame_ms   navigation start to the end of the page's first frame, median of runs
//                   (and when the wasm had arrived, the module was ready, and main_web.cpp's
//                   start-up marks, medians)
//  blank_frame_ms   the same for bench/blank (a WebGL2 context cleared once), median
//  idle_busy_pct    main-thread busy time over an idle spell (CDP TaskDuration)
//  idle_frames      frames drawn in that spell
//  latency_ms       median input-to-frame latency over a few interactions
//  wire_bytes       what the English page transferred (Content-Length, as served)
//  plan_405b_ms     the training planner's whole search for Llama 3.1 405B over 1,024 H100s (the
//                   bench_plan.cpp request) in the page's Web Worker (web/plan_worker.js), the
//                   worker's own timing, median of the runs after the first (plan_405b_runs)
// usage: node bench/browser_bench.mjs [--quick]
import { chromium } from '../tests/browser/node_modules/playwright-core/index.mjs';
import { spawn } from 'node:child_process';

const root = new URL('../', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const runs = quick ? 2 : 7;
const idleSeconds = quick ? 2 : 10;

function serve(dir) {
  const port = 20000 + Math.floor(Math.random() * 5000);
  const p = spawn('/usr/bin/python3', [root + 'scripts/serve.py', '--port', String(port), '--dir', dir],
                  { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    p.stdout.on('data', d => { if (String(d).includes('Serving')) resolve({ p, origin: `http://127.0.0.1:${port}` }); });
    p.on('exit', code => reject(new Error(`server exited ${code}`)));
  });
}
const median = a => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : NaN; };

async function ready(page) {
  const deadline = Date.now() + 60000;
  while (!(await page.evaluate(() => window.llmmemReady === true && typeof window.llmmemBusy === 'function'))) {
    if (Date.now() > deadline) throw new Error('page not ready');
    await page.waitForTimeout(50);
  }
  let quiet = 0;
  for (let i = 0; i < 400 && quiet < 2; i++) {
    await page.waitForTimeout(50);
    quiet = (await page.evaluate(() => window.llmmemBusy())) ? 0 : quiet + 1;
  }
}

const site = await serve(root + 'build/web');
const blank = await serve(root + 'bench/blank');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const out = {};
try {
  // First frame, page and blank, each in a fresh context (nothing cached).
  const first = [], base = [], split = [];
  for (let i = 0; i < runs; i++) {
    for (const [url, into, probe] of [[`${site.origin}/index.html`, first, () => window.llmmemStats && window.llmmemStats.firstFrame],
                                      [`${blank.origin}/index.html`, base, () => window.blankFirstFrame]]) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      await page.goto(url);
      let t;
      for (let k = 0; k < 600 && !(t = await page.evaluate(probe)); k++) await page.waitForTimeout(20);
      into.push(t);
      if (into === first) {
        split.push(await page.evaluate(() => {
          const w = performance.getEntriesByType('resource').find(e => e.name.endsWith('/llmmem.wasm'));
          return { wasm_loaded: w ? w.responseEnd : NaN, runtime_ready: window.llmmemRuntimeReady,
                   marks: window.llmmemMarks || {} };
        }));
      }
      await ctx.close();
    }
  }
  out.first_frame_ms = median(first);
  out.blank_frame_ms = median(base);
  out.first_frame_runs = first.map(x => Math.round(x));
  out.wasm_loaded_ms = median(split.map(x => x.wasm_loaded));
  out.runtime_ready_ms = median(split.map(x => x.runtime_ready));
  out.blank_frame_runs = base.map(x => Math.round(x));
  // main_web.cpp's start-up marks (main, gl_context, gl_ready, app_state, app_fonts,
  // app_estimate, app_init, font_texture, gl_linked, main_end, frame_start), medians.
  out.marks_ms = {};
  for (const k of Object.keys(split[0].marks)) out.marks_ms[k] = median(split.map(x => x.marks[k]));

  // The page: wire bytes, estimate latency, idle, latency.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  let wire = 0;
  page.on('response', async r => {
    if (!r.url().startsWith(site.origin)) return;
    const h = await r.allHeaders();
    wire += Number(h['content-length'] || 0);
  });
  await page.goto(`${site.origin}/index.html`);
  await ready(page);
  out.wire_bytes = wire;
  const n = quick ? 2000 : 100000;
  // Warm-up in several calls, as bench_estimate.cpp: V8 keeps a wasm call in progress on its
  // baseline (Liftoff) code and Chromium tiers the functions up one by one over a few hundred
  // thousand estimates (first calls 3-8 us, then under 1 us), so the timed call must find the
  // optimised code there. The warm-up calls' figures are kept (estimate_warmup_us).
  out.estimate_warmup_us = [];
  for (let w = 0; w < (quick ? 2 : 15); w++) {
    out.estimate_warmup_us.push(+(await page.evaluate(k => window.Module._llmmem_bench_estimate(k), quick ? 1000 : 20000)).toFixed(2));
  }
  // The median of five timed calls, as bench_estimate.cpp: the machine's other work lands in one or two.
  out.estimate_runs_us = [];
  for (let r = 0; r < 5; r++) out.estimate_runs_us.push(await page.evaluate(k => window.Module._llmmem_bench_estimate(k), n));
  out.estimate_us = median(out.estimate_runs_us);

  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  const task = async () => (await cdp.send('Performance.getMetrics')).metrics.find(m => m.name === 'TaskDuration').value;
  const frames = () => page.evaluate(() => window.llmmemStats.frames);
  await page.waitForTimeout(500);
  const t0 = await task(), f0 = await frames(), w0 = Date.now();
  await page.waitForTimeout(idleSeconds * 1000);
  const t1 = await task(), f1 = await frames(), w1 = Date.now();
  out.idle_busy_pct = 100 * (t1 - t0) / ((w1 - w0) / 1000);
  out.idle_frames = f1 - f0;
  out.idle_seconds = idleSeconds;

  await page.evaluate(() => { window.llmmemStats.latencies.length = 0; });
  for (let i = 0; i < (quick ? 5 : 20); i++) {
    await page.mouse.move(400 + (i % 10) * 40, 300 + (i % 7) * 30);
    await page.waitForTimeout(120);
  }
  out.latency_ms = median(await page.evaluate(() => window.llmmemStats.latencies.slice()));
  await ctx.close();

  // The fit map as the page computes it, for a training and an inference configuration.
  const maps = [];
  for (const hash of ['#v=1&model=llama-3.1-8b&view=fitmap', '#v=1&model=llama-3.1-8b&mode=infer&view=fitmap',
                      '#v=1&model=qwen2.5-72b&mode=lora&recompute=full&view=fitmap']) {
    const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await c.newPage();
    await p.goto(`${site.origin}/index.html${hash}`);
    await ready(p);
    maps.push(JSON.parse(await p.evaluate(() => window.llmmemTestState())).fitmap_ms);
    await c.close();
  }
  out.fitmap_ms = median(maps);
  out.fitmap_runs = maps;

  // The planner in the page's Web Worker (issue 34 part 5: 405B over 1,024 GPUs within 1 s).
  {
    const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await c.newPage();
    await p.goto(`${site.origin}/index.html`);
    await ready(p);
    const request = JSON.stringify({
      config: { model: 'llama-3.1-405b', gpu: 'H100-SXM-80GB', mode: 'train', framework: 'megatron', grad_dtype: 'fp32' },
      gpus: 1024, global_batch_tokens: 512 * 8192, seq: 8192, top: 5 });
    const runs = await p.evaluate(async ({ request, n }) => {
      const w = new Worker('plan_worker.js');
      const call = seq => new Promise(resolve => {
        w.onmessage = e => resolve(e.data);
        w.postMessage({ seq, fn: 'plan', request });
      });
      const times = [];
      for (let i = 0; i < n; i++) {
        const m = await call(i + 1);
        if (!m.ok || !JSON.parse(m.answer).ok) throw new Error('the worker did not plan: ' + (m.error || m.answer.slice(0, 200)));
        times.push(m.ms);
      }
      w.terminate();
      return times;
    }, { request, n: quick ? 2 : 6 });
    out.plan_405b_runs = runs;
    out.plan_405b_ms = median(runs.slice(1));
    await c.close();
  }
} finally {
  await browser.close();
  site.p.kill();
  blank.p.kill();
}
console.log(JSON.stringify(out));
