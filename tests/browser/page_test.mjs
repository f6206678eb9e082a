// The web calculator as a user opens it, in headless Chromium (Debian's), served by
// scripts/serve.py under its strict Content-Security-Policy:
//  - the canvas renders a real frame (screenshots in build/screenshots/, many colours),
//  - the page logs no error and requests nothing but its own static files,
//  - the numbers the page computes equal the CLI's for the same state (URL-driven),
//  - input works as a user expects: one wheel notch scrolls about 100 px the right way
//    (pixel and line modes), typing, Ctrl+V paste (clipboard API, paste event, and the
//    fallback when the browser sends none), copy (clipboard API and execCommand), the
//    "Paste config.json" and "Open file" buttons, a drop anywhere with its hint,
//  - any screen: at 390 (a phone), 800, 1280 and 1920 px wide, each at DPR 1, 2 and 3, the
//    canvas is sharp (backing store = CSS size x DPR), every named control lies inside the
//    window and overlaps no other, and the verdict is on the first screen (screenshots
//    build/screenshots/web-w<W>-dpr<D>.png, looked at),
//  - the first screen: the questions, a verdict that fits, no doctor until asked ("N ways
//    to make it fit" opens it), Enter picks in the model search, every edit undoable
//    (Ctrl+Z, Ctrl+Shift+Z, the buttons) and Reset, tensor parallel steps through the
//    heads' divisors, formulas shown without hovering, LoRA brings checkpointing,
//  - weight: the English page travels Brotli-encoded (scripts/serve.py sends the build's
//    precompressed files) in at most 440 KB (the goal: 400 KB), without the Chinese font and strings or hub.js (loaded on
//    the first Hugging Face request),
//  - 简体中文: picked from the browser's language, switchable, kept in the URL; the CJK
//    font and the Chinese strings (llmmem-zh.json) arrive only then (screenshots of both
//    languages); the DOM mirror of the result reads in the UI's language; every tab opened
//    in Chinese draws no English sentence of the table untranslated and no character its
//    font lacks (build/screenshots/web-zh-<tab>.png),
//  - idle is idle: over 10 s without input the main thread is busy <= 2% and draws no
//    frame; no GL state is queried per frame; clicks take no pointer lock or full screen;
//    the input-to-frame latency is reported.
// Controls are found by name (the app's test hook reports where it drew them).
// usage: node tests/browser/page_test.mjs
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, readFileSync, existsSync } from 'node:fs';

const root = new URL('../../', import.meta.url).pathname;
const port = 18000 + Math.floor(Math.random() * 2000);
const origin = `http://127.0.0.1:${port}`;
const requestLog = `/tmp/llmmem_requests_${port}.log`;
const shots = root + 'build/screenshots';
mkdirSync(shots, { recursive: true });
rmSync(requestLog, { force: true });

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}${detail ? '\n     ' + detail : ''}`); }
}

function cliTotal(query) {
  const args = query.split('&').filter(p => p && !p.startsWith('v=')).map(p => '--' + decodeURIComponent(p));
  let out;
  try { out = execFileSync(root + 'build/native/llmmem', [...args, '--json'], { encoding: 'utf8' }); }
  catch (e) { if (e.status === 1) out = e.stdout; else throw e; }
  return JSON.parse(out).per_gpu.total_bytes;
}

function colours(file) {
  return Number(execFileSync('identify', ['-format', '%k', file], { encoding: 'utf8' }));
}

const server = spawn('/usr/bin/python3', [root + 'scripts/serve.py', '--port', String(port), '--dir', root + 'build/web',
                                 '--log', requestLog], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  server.stdout.on('data', d => { if (String(d).includes('Serving')) resolve(); });
  server.on('exit', code => reject(new Error(`server exited ${code}`)));
  setTimeout(() => reject(new Error('server did not start')), 10000);
});

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-quic',
         '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// ---- Helpers ---------------------------------------------------------------------------
async function waitReady(page) {
  // Poll with evaluate (waitForFunction would eval a string, which the strict CSP forbids).
  const deadline = Date.now() + 60000;
  while (!(await page.evaluate(() => window.llmmemReady === true && typeof window.llmmemTestState === 'function'))) {
    if (Date.now() > deadline) throw new Error('the page never became ready (60 s)');
    await page.waitForTimeout(200);
  }
  await settle(page);
}
// Waits until the page has drawn what its input asked for (it draws on demand: no frame
// due, twice in a row), however slow a software-rendered frame is.
async function settle(page) {
  let quiet = 0;
  for (let i = 0; i < 300 && quiet < 2; i++) {
    await page.waitForTimeout(50);
    quiet = (await page.evaluate(() => window.llmmemBusy())) ? 0 : quiet + 1;
  }
}
async function state(page) { return JSON.parse(await page.evaluate(() => window.llmmemTestState())); }
async function item(page, name) {
  const r = (await state(page)).items[name];
  if (!r) throw new Error(`no control named ${name} on screen`);
  return { x: r[0] + r[2] / 2, y: r[1] + r[3] / 2, r };
}
async function click(page, name) {
  const p = await item(page, name);
  await page.mouse.click(p.x, p.y);
  await settle(page);
}
async function typeInto(page, name, text) {
  await click(page, name);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await settle(page);
}
const hasPair = (st, pair) => st.config.split('&').includes(pair);
const kSmallConfig = JSON.stringify({
  architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 1536, intermediate_size: 4096,
  num_attention_heads: 12, num_key_value_heads: 4, num_hidden_layers: 10, vocab_size: 32000,
  max_position_embeddings: 4096, hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
});

const cases = [
  { name: 'default', hash: '' },
  { name: 'inference', hash: '#v=1&model=qwen2.5-7b&mode=infer&batch=8&seq=8192' },
  { name: 'lora', hash: '#v=1&model=llama-3.1-8b&mode=lora&lora_rank=32&recompute=full' },
  { name: 'too-big', hash: '#v=1&model=llama-3.3-70b&seq=8192' },
  { name: 'hidpi', hash: '', scale: 2 },
  { name: 'fit', hash: '#v=1&model=llama-3.1-8b&dp=4&zero=3&view=fit' },
  { name: 'charts', hash: '#v=1&model=qwen2.5-7b&mode=lora&view=charts&units=gib' },
  { name: 'doctor', hash: '#v=1&model=llama-3.3-70b&mode=train&seq=8192&view=doctor&theme=light' },
  // Issue 18: seed 002's OOM message dropped on the page (a .txt goes to "Read an OOM").
  { name: 'oom', hash: '#v=1&model=baichuan-7b&mode=infer&seq=2048',
    oom: readFileSync(root + 'tests/fuzz/corpus/oom/seed002_baichuan_a30.txt', 'utf8') },
  // Serving (issue 16): vLLM on two 4090s, llama.cpp with layers left on the CPU.
  { name: 'serving-vllm', hash: '#v=1&model=qwen2.5-32b&mode=infer&dtype=awq&runtime=vllm&tp=2&seq=32768&batch=2&gpu=RTX-4090-24GB&view=serving' },
  { name: 'serving-llamacpp', hash: '#v=1&model=llama-3.1-70b&mode=infer&dtype=q4_k_m&runtime=llama.cpp&gpu_layers=40&kv_dtype=q8_0&seq=8192&gpu=RTX-4090-24GB&view=serving' },
  { name: 'network', hash: '#v=1&model=llama-3.1-8b&view=network&net_model=swin_t&net_batch=64' },
];

try {
  for (const c of cases) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: c.scale || 1 });
    const page = await context.newPage();
    const errors = [];
    const foreign = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(String(e)));
    page.on('request', r => { if (!r.url().startsWith(origin + '/')) foreign.push(r.url()); });
    await page.goto(`${origin}/index.html${c.hash}`);
    let state = null;
    try {
      await waitReady(page);
      if (c.oom) {
        await page.evaluate(text => window.llmmemOpenText('seed002.txt', text), c.oom);
        await settle(page);
      }
      state = JSON.parse(await page.evaluate(() => window.llmmemTestState()));
    } catch (e) {
      errors.push('test hook llmmemTestState() never appeared: ' + e.message);
    }
    const file = `${shots}/web-${c.name}.png`;
    await page.screenshot({ path: file });
    check(`${c.name}: no console errors`, errors.length === 0, errors.join(' | '));
    check(`${c.name}: no requests beyond the site`, foreign.length === 0, foreign.join(', '));
    const n = colours(file);
    check(`${c.name}: canvas rendered a real frame (${n} colours)`, n > 50);
    if (state && c.oom) {
      check(`${c.name}: the dropped message is read on its tab`,
            /Memory held elsewhere: 14\.67 GiB of 22\.20 GiB/.test(state.oom_headline) && /view=oom/.test(state.url_state),
            `${state.oom_headline} / ${state.url_state}`);
    }
    if (state) {
      const expected = cliTotal(state.config);
      check(`${c.name}: page total ${state.peak_bytes} B equals the CLI's for ${state.config}`,
            state.peak_bytes === expected, `CLI says ${expected}`);
      if (c.hash) {
        // View keys (units, theme, view) belong to the page, not to the configuration.
        const wanted = c.hash.slice(1).split('&')
          .filter(p => !/^(v|view|units|theme|net_[a-z_]+)=/.test(p) && p !== 'mode=train');
        const got = new Set(state.config.split('&'));
        check(`${c.name}: the URL state was restored`, wanted.every(p => got.has(p)), `${state.config}`);
        // The network tab's keys (net_...) live in the page's URL state, beside the config.
        const net = c.hash.slice(1).split('&').filter(p => p.startsWith('net_'));
        const url = new Set(state.url_state.split('&'));
        if (net.length) check(`${c.name}: the network tab's state was restored`, net.every(p => url.has(p)), state.url_state);
      }
    }
    await context.close();
  }
  await firstScreenTests(browser);
  await weightTests(browser);
  await languageTests(browser);
  await chineseTabTests(browser);
  await inputTests(browser);
  await idleTests(browser);
  await layoutTests(browser);
  await liveLinkTests(browser);
  await planTests(browser);
  await jobsTests(browser);
  await runTests(browser);
  await programFileTests(browser);
  await gpuSourceTests(browser);
  await gpuSearchTests(browser);
  await touchTests(browser);

  // Without WebGL the page says so in a readable overlay instead of failing silently.
  const noGl = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-webgl', '--disable-3d-apis', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await noGl.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${origin}/index.html`);
    await page.waitForTimeout(1000);
    const overlay = await page.evaluate(() => {
      const e = document.getElementById('error');
      return e && !e.hidden ? e.innerText : '';
    });
    await page.screenshot({ path: `${shots}/web-no-webgl.png` });
    check('without WebGL2 the error overlay explains why', /WebGL2/.test(overlay), overlay || '(no overlay)');
  } finally {
    await noGl.close();
  }

  // Every request the server saw was for one of the site's own files.
  const paths = existsSync(requestLog) ? readFileSync(requestLog, 'utf8').trim().split('\n') : [];
  const allowed = new Set(['/index.html', '/llmmem.js', '/llmmem.wasm', '/app.css', '/boot.js', '/hub.js', '/networks.json', '/favicon.ico',
                           '/plan_worker.js', '/llmmem-plan.js', '/llmmem-plan.wasm', '/gpus.json',
                           '/llmmem-cjk.ttf', '/llmmem-zh.json']);
  const odd = paths.filter(p => !allowed.has(p.split('#')[0].split('?')[0]));
  check('server saw only the site\'s own files', odd.length === 0, odd.join(', '));
} finally {
  await browser.close();
  server.kill();
}

// ---- Input -------------------------------------------------------------------------------
async function newPage(browser, hash, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport || { width: 1280, height: 800 },
                                             deviceScaleFactor: opts.scale || 1,
                                             colorScheme: opts.colorScheme || 'light' });
  if (opts.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  if (opts.init) await context.addInitScript(opts.init);
  const page = await context.newPage();
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(`${origin}/index.html${hash}`);
  await page.bringToFront();
  await waitReady(page);
  return { context, page, errors };
}

async function inputTests(browser) {
  for (const scale of [1, 2]) {
    const { context, page, errors } = await newPage(browser, '#v=1&model=llama-3.1-8b&mode=lora', { scale, clipboard: true });
    // The Advanced sections a LoRA user opens: then the inputs overflow the window.
    for (const section of ['section_savers', 'section_parallelism', 'section_precision', 'section_optimizer', 'section_lora'])
      await click(page, section);
    const panel = await item(page, 'inputs_panel');
    const max = (await state(page)).inputs_scroll_max;
    check(`wheel (DPR ${scale}): the inputs overflow at 1280x800 in LoRA mode (${max.toFixed(0)} px more)`, max > 150);
    // What the browser delivers (CDP's wheel at DPR 2 arrives as deltaY 50): the page must
    // scroll by what the event says, in CSS pixels, the way the event says.
    await page.evaluate(() => {
      window.__wheel = 0;
      document.addEventListener('wheel', e => { if (e.deltaMode === 0) window.__wheel += e.deltaY; }, true);
    });
    await page.mouse.move(panel.x, panel.y);
    await page.mouse.wheel(0, 100);
    await settle(page);
    const down = (await state(page)).inputs_scroll_y;
    const sent = await page.evaluate(() => window.__wheel);
    check(`wheel (DPR ${scale}): one notch down (deltaY ${sent}) scrolls the inputs down by as much (${down.toFixed(1)} px)`,
          sent > 0 && down > sent * 0.8 && down < sent * 1.2);
    await page.mouse.wheel(0, -100);
    await settle(page);
    const back = (await state(page)).inputs_scroll_y;
    check(`wheel (DPR ${scale}): one notch up scrolls back (${back.toFixed(1)})`, back < 1);
    // Firefox's mouse wheel: 3 lines per notch (deltaMode 1).
    await page.evaluate(([x, y]) => {
      document.getElementById('canvas').dispatchEvent(new WheelEvent('wheel', {
        deltaY: 3, deltaMode: 1, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    }, [panel.x, panel.y]);
    await settle(page);
    const lines = (await state(page)).inputs_scroll_y;
    check(`wheel (DPR ${scale}): a 3-line notch (deltaMode 1) scrolls 3 lines (${lines.toFixed(1)} px)`, lines > 40 && lines < 80);
    check(`wheel (DPR ${scale}): no console errors`, errors.length === 0, errors.join(' | '));
    await context.close();
  }

  {
    const { context, page, errors } = await newPage(browser, '#v=1&model=llama-3.1-8b&mode=lora', { clipboard: true });
    await typeInto(page, 'seq', '8192');
    check('keys: typing 8192 into the sequence length sets it', hasPair(await state(page), 'seq=8192'), (await state(page)).config);

    await page.evaluate(() => navigator.clipboard.writeText('2048'));
    await click(page, 'seq');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+V');
    await page.keyboard.press('Enter');
    await settle(page);
    check('paste: Ctrl+V pastes the clipboard into a field', hasPair(await state(page), 'seq=2048'), (await state(page)).config);

    // The browser's paste event, as a browser without clipboard permissions sends it.
    await click(page, 'seq');
    await page.keyboard.press('Control+A');
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.setData('text/plain', '1024');
      document.getElementById('canvas').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    });
    await settle(page);
    await page.keyboard.press('Enter');
    await settle(page);
    check('paste: a paste event (no clipboard API) reaches the field', hasPair(await state(page), 'seq=1024'), (await state(page)).config);

    // No paste event at all (a browser that sends none to a canvas): the async API is asked.
    await page.evaluate(() => {
      window.addEventListener('paste', e => e.stopImmediatePropagation(), true);
      return navigator.clipboard.writeText('3072');
    });
    await click(page, 'seq');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+V');
    await page.waitForTimeout(400);
    await page.keyboard.press('Enter');
    await settle(page);
    check('paste: without a paste event, Ctrl+V falls back to navigator.clipboard.readText',
          hasPair(await state(page), 'seq=3072'), (await state(page)).config);

    await click(page, 'seq');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    await settle(page);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const via = await page.evaluate(() => window.llmmemStats.copies.slice(-1)[0]);
    check('copy: Ctrl+C in a field reaches the clipboard through the async API',
          copied === '3072' && via && via.via === 'clipboard', `${copied} ${JSON.stringify(via)}`);
    await page.evaluate(() => {
      window.__writeText = navigator.clipboard.writeText;
      navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
    });
    await page.keyboard.press('Control+C');
    await settle(page);
    const via2 = await page.evaluate(() => window.llmmemStats.copies.slice(-1)[0]);
    await page.evaluate(() => { navigator.clipboard.writeText = window.__writeText; });
    check('copy: when the clipboard API refuses, execCommand("copy") copies', via2 && via2.via === 'execCommand',
          JSON.stringify(via2));
    await page.keyboard.press('Escape');
    await settle(page);

    // "Paste config.json": the async clipboard API reads a config.json and imports it.
    await page.evaluate(t => navigator.clipboard.writeText(t), kSmallConfig);
    await click(page, 'paste_config');
    await page.waitForTimeout(300);
    await settle(page);
    check('paste button: a config.json on the clipboard is imported as the model',
          hasPair(await state(page), 'hidden=1536'), (await state(page)).config);

    // "Open file...": the browser's file chooser, then the same import.
    const chooser = page.waitForEvent('filechooser', { timeout: 5000 });
    await click(page, 'open_file');
    const fc = await chooser.catch(() => null);
    check('open file: the button opens the browser\'s file chooser', fc !== null);
    if (fc) {
      await fc.setFiles({ name: 'config.json', mimeType: 'application/json',
                          buffer: Buffer.from(kSmallConfig.replace('"num_hidden_layers":10', '"num_hidden_layers":12')) });
      await page.waitForTimeout(300);
      await settle(page);
      check('open file: the chosen config.json is imported', hasPair(await state(page), 'layers=12'), (await state(page)).config);
    }

    // Drop anywhere: the hint shows while a file is over the page, the drop imports it.
    const hint = await page.evaluate(t => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'config.json', { type: 'application/json' }));
      window.__dt = dt;
      document.body.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
      return !document.getElementById('drop').hidden;
    }, kSmallConfig.replace('"num_hidden_layers":10', '"num_hidden_layers":14'));
    await page.screenshot({ path: `${shots}/web-drop-hint.png` });
    check('drop: a file dragged over the page shows the drop hint', hint);
    const hidden = await page.evaluate(() => {
      document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: window.__dt, bubbles: true, cancelable: true }));
      return document.getElementById('drop').hidden;
    });
    await page.waitForTimeout(300);
    await settle(page);
    check('drop: the hint goes and the dropped config.json is imported', hidden && hasPair(await state(page), 'layers=14'),
          (await state(page)).config);
    check('input: no console errors', errors.length === 0, errors.join(' | '));
    await context.close();
  }

  {
    // Without clipboard permission the paste button opens the box to paste into.
    const { context, page } = await newPage(browser, '');
    await page.evaluate(() => { navigator.clipboard.readText = () => Promise.reject(new Error('denied')); });
    await click(page, 'paste_config');
    await page.waitForTimeout(300);
    await settle(page);
    check('paste button: when the browser refuses, a box to paste into opens', !!(await state(page)).items.paste_box);
    await page.screenshot({ path: `${shots}/web-paste-box.png` });
    await context.close();
  }
}

// ---- Idle ----------------------------------------------------------------------------------
// Counts the WebGL calls that read state back (each one a round trip to the GPU process).
function countGlQueries() {
  return `(() => {
  window.__glQueries = 0;
  const P = WebGL2RenderingContext.prototype;
  for (const n of ['getParameter', 'isEnabled', 'getError', 'getIntegerv', 'getVertexAttrib', 'getBufferParameter']) {
    const f = P[n];
    if (typeof f !== 'function') continue;
    P[n] = function () { window.__glQueries++; return f.apply(this, arguments); };
  }
})();`;
}

async function idleTests(browser) {
  const { context, page, errors } = await newPage(browser, '', { init: countGlQueries() });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metric = async () => (await cdp.send('Performance.getMetrics')).metrics.find(m => m.name === 'TaskDuration').value;
  const frames = () => page.evaluate(() => window.llmmemStats.frames);
  await page.waitForTimeout(1000);
  const t0 = await metric(), f0 = await frames(), w0 = Date.now();
  await page.waitForTimeout(10000);
  const t1 = await metric(), f1 = await frames(), w1 = Date.now();
  const busy = 100 * (t1 - t0) / ((w1 - w0) / 1000);
  check(`idle: main thread busy ${busy.toFixed(2)}% over 10 s without input (<= 2%)`, busy <= 2);
  check(`idle: no frame drawn in 10 s without input (${f1 - f0})`, f1 === f0);

  // Interact, then count state queries and frames, and read the latencies.
  await page.evaluate(() => { window.__glQueries = 0; window.llmmemStats.latencies.length = 0; });
  const q0 = await frames();
  for (let i = 0; i < 20; i++) {
    await page.mouse.move(300 + i * 30, 200 + i * 10);
    await page.waitForTimeout(30);
  }
  await click(page, 'seq');
  await page.mouse.click(900, 500);
  await settle(page);
  const drawn = (await frames()) - q0;
  const queries = await page.evaluate(() => window.__glQueries);
  check(`GL: ${queries} state queries in ${drawn} frames of interaction (0 per frame)`, drawn > 0 && queries === 0);
  const lat = (await page.evaluate(() => window.llmmemStats.latencies.slice())).sort((a, b) => a - b);
  const median = lat.length ? lat[Math.floor(lat.length / 2)] : NaN;
  console.log(`info input-to-frame latency: median ${median.toFixed(1)} ms, max ${lat[lat.length - 1].toFixed(1)} ms over ${lat.length} frames (swiftshader)`);
  const locks = await page.evaluate(() => ({ lock: document.pointerLockElement, full: document.fullscreenElement }));
  check('clicks take no pointer lock and no full screen', locks.lock === null && locks.full === null);
  const settled = await frames();
  await page.waitForTimeout(1500);
  check('after input the page stops drawing again', (await frames()) === settled);
  check('idle: no console errors', errors.length === 0, errors.join(' | '));
  await context.close();
}

// ---- First screen --------------------------------------------------------------------------
async function firstScreenTests(browser) {
  const { context, page, errors } = await newPage(browser, '');
  let st = await state(page);
  check('first screen: opens on a configuration that fits', st.fits === true && st.ok === true, st.config);
  check('first screen: the three questions are on it', ['model', 'purpose', 'gpu'].every(n => st.items[n]));
  check('first screen: the size per precision table is on it', !!st.items.sizes);
  await page.screenshot({ path: `${shots}/web-first-screen.png` });

  // Enter picks the highlighted model in the search.
  await click(page, 'model');
  await page.keyboard.type('qwen2.5-7b');
  await page.keyboard.press('Enter');
  await settle(page);
  st = await state(page);
  check('model search: Enter picks the match', hasPair(st, 'model=qwen2.5-7b'), st.config);

  // LoRA as PEFT runs it: gradient checkpointing comes with the choice.
  await click(page, 'purpose');
  await click(page, 'purpose_lora');
  st = await state(page);
  // The default program (hf-trainer, core/config/stacks.cpp) decides, as in the CLI and the JS
  // API: TrainingArguments.gradient_checkpointing is False for LoRA (QLoRA's
  // prepare_model_for_kbit_training turns it on; test_stacks.cpp).
  check('purpose: picking LoRA keeps the HF Trainer default (no gradient checkpointing)',
        hasPair(st, 'mode=lora') && !hasPair(st, 'recompute=full'), st.config);

  // Undo and redo every edit, from the keyboard and the buttons; Reset.
  await page.mouse.click(5, 790);  // nothing: leave any field
  await page.keyboard.press('Control+Z');
  await settle(page);
  check('undo: Ctrl+Z takes back the mode', !hasPair(await state(page), 'mode=lora'), (await state(page)).config);
  await page.keyboard.press('Control+Z');
  await settle(page);
  check('undo: and then the model', !hasPair(await state(page), 'model=qwen2.5-7b'), (await state(page)).config);
  await page.keyboard.press('Control+Shift+Z');
  await settle(page);
  check('redo: Ctrl+Shift+Z brings the model back', hasPair(await state(page), 'model=qwen2.5-7b'));
  await click(page, 'redo');
  check('redo: the button brings the mode back', hasPair(await state(page), 'mode=lora'));
  await typeInto(page, 'seq', '2048');
  await click(page, 'undo');
  check('undo: a typed value is one step', !hasPair(await state(page), 'seq=2048') && hasPair(await state(page), 'mode=lora'),
        (await state(page)).config);
  await click(page, 'reset');
  const reset = await state(page);
  check('reset: back to the first screen', !hasPair(reset, 'mode=lora') && hasPair(reset, 'model=llama-3.1-8b'), reset.config);

  // Tensor parallel's "+" steps through the divisors of the heads (32 for Llama 3.1 8B).
  await click(page, 'section_parallelism');
  for (const want of ['tp=2', 'tp=4', 'tp=8', 'tp=16']) {
    const tp = await item(page, 'tp');
    await page.mouse.click(tp.r[0] + tp.r[2] - tp.r[3] / 2, tp.r[1] + tp.r[3] / 2);  // "+"
    await settle(page);
  }
  st = await state(page);
  check('tensor parallel: "+" steps 1, 2, 4, 8, 16 (never 9, which blanks the result)', hasPair(st, 'tp=16') && st.ok, st.config);
  await context.close();

  // A configuration that does not fit: the doctor waits to be asked.
  {
    const { context: c2, page: p2 } = await newPage(browser, '#v=1&model=llama-3.3-70b&mode=train&seq=8192');
    let s2 = await state(p2);
    check('doctor: does not open by itself', !/view=doctor/.test(s2.url_state) && s2.fits === false, s2.url_state);
    check('doctor: the verdict offers a way in', !!s2.items.ways);
    await click(p2, 'ways');
    s2 = await state(p2);
    check('doctor: the button opens it', /view=doctor/.test(s2.url_state), s2.url_state);
    await c2.close();
  }
  // Formulas without hovering.
  {
    const { context: c3, page: p3 } = await newPage(browser, '#v=1&model=llama-3.1-8b&mode=rlhf');
    // The allocator's paragraph and its C++ source come with the formulas, not on the main path.
    const drawn = async () => {
      await p3.evaluate(() => window.llmmemCaptureText());
      await settle(p3);
      return (await state(p3)).drawn_text || '';
    };
    const plain = await drawn();
    await click(p3, 'formulas');
    const detailed = await drawn();
    check('formulas: the allocator\'s note and its source only with the formulas',
          plain.length > 400 && !/CUDACachingAllocator/.test(plain) && /CUDACachingAllocator/.test(detailed),
          `${plain.length} / ${detailed.length} characters`);
    await p3.screenshot({ path: `${shots}/web-formulas.png` });
    check('formulas: the toggle shows them in the table (no console errors)', (await state(p3)).ok);
    await c3.close();
  }
  check('first screen: no console errors', errors.length === 0, errors.join(' | '));
}

// ---- Weight --------------------------------------------------------------------------------
async function weightTests(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const sizes = {};
  page.on('response', async r => {
    const url = new URL(r.url());
    if (url.origin !== origin) return;
    const h = await r.allHeaders();
    sizes[url.pathname] = { bytes: Number(h['content-length'] || 0), encoding: h['content-encoding'] || '' };
  });
  await page.goto(`${origin}/index.html`);
  await waitReady(page);
  const total = Object.values(sizes).reduce((a, b) => a + b.bytes, 0);
  console.log(`info page bytes on the wire: ${Object.entries(sizes).map(([p, v]) => `${p} ${v.bytes} ${v.encoding}`).join(', ')}`);
  // Stop 38 left the page at 458 KB, over issue 32's 450 KB; stop 39 took 13 KB off the wasm and
  // the JS (one collected list of a layer's tensors, one stable sort, less GL glue) and added
  // Gemma 4, KDA and the torch fallbacks: 452 KB. The check holds it at 460 KB so it cannot grow
  // back; under 450 KB needs the readers moved to the worker (issue 32). Part 9 moved the Hub's
  // loads (hub.js and its readers) and the OOM tab's text reader into the worker: 436.2 KB, held
  // at 440 KB (issue 32's goal for the first screen: 400 KB).
  check(`weight: the English page is ${(total / 1000).toFixed(1)} KB on the wire (<= 440 KB; the goal is 400)`, total > 0 && total <= 440e3);
  // Chromium takes Brotli also over http://127.0.0.1; serve.py sends the .br twins then.
  check('weight: the wasm and the JS travel Brotli-encoded', sizes['/llmmem.wasm']?.encoding === 'br' &&
        sizes['/llmmem.js']?.encoding === 'br', JSON.stringify(sizes));
  check('weight: the Chinese font is not fetched for English', !('/llmmem-cjk.ttf' in sizes));
  check('weight: nor the Chinese strings (llmmem-zh.json)', !('/llmmem-zh.json' in sizes));
  check('weight: hub.js waits for the first Hugging Face request', !('/hub.js' in sizes));
  check('weight: the network presets wait for "Any network" (networks.json)', !('/networks.json' in sizes));
  const mirror = await page.evaluate(() => document.getElementById('mirror').innerText);
  check('mirror: the result is in the DOM as text (verdict and categories)', /GB/.test(mirror) && /Fits|fit/.test(mirror) &&
        /Weights/.test(mirror), mirror.slice(0, 200));
  await context.close();
}

// ---- Languages -----------------------------------------------------------------------------
async function languageTests(browser) {
  // A Chinese browser opens in Chinese.
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    const fonts = [], strings = [];
    page.on('response', r => {
      if (r.url().endsWith('/llmmem-cjk.ttf')) fonts.push(r.status());
      if (r.url().endsWith('/llmmem-zh.json')) strings.push(r.status());
    });
    await page.goto(`${origin}/index.html`);
    await waitReady(page);
    await page.waitForTimeout(500);
    await settle(page);
    const st = await state(page);
    check('中文: a zh-CN browser opens in Chinese', st.lang === 'zh', st.lang);
    check('中文: the CJK font was fetched once', fonts.length === 1 && fonts[0] === 200, JSON.stringify(fonts));
    check('中文: and the Chinese strings once (llmmem-zh.json)', strings.length === 1 && strings[0] === 200,
          JSON.stringify(strings));
    check('中文: lang= is not in the URL when it is the browser\'s', !/lang=/.test(st.url_state), st.url_state);
    const mirror = await page.evaluate(() => document.getElementById('mirror').innerText);
    check('中文: the DOM mirror reads in Chinese', /放得下|放不下/.test(mirror), mirror.slice(0, 120));
    check('中文: the page says it is Chinese', (await page.evaluate(() => document.documentElement.lang)) === 'zh-CN');
    await page.screenshot({ path: `${shots}/web-zh.png` });
    check('中文: no console errors', errors.length === 0, errors.join(' | '));
    await context.close();
  }
  // An English browser switches with the button; the choice is kept in the URL.
  {
    const { context, page, errors } = await newPage(browser, '');
    const fonts = [];
    page.on('response', r => { if (r.url().endsWith('/llmmem-cjk.ttf')) fonts.push(r.status()); });
    await click(page, 'language');
    await page.waitForTimeout(500);
    await settle(page);
    const st = await state(page);
    check('中文: the language button switches to Chinese', st.lang === 'zh', st.lang);
    check('中文: the switch is kept in the URL', /(^|&)lang=zh(&|$)/.test(st.url_state) &&
          (await page.evaluate(() => location.hash)).includes('lang=zh'), st.url_state);
    check('中文: the CJK font arrives on the switch', fonts.length === 1, JSON.stringify(fonts));
    await page.screenshot({ path: `${shots}/web-zh-switched.png` });
    await page.reload();
    await waitReady(page);
    check('中文: a reload keeps Chinese', (await state(page)).lang === 'zh');
    await click(page, 'language');
    check('中文: and switches back to English', (await state(page)).lang === 'en');
    check('中文 switch: no console errors', errors.length === 0, errors.join(' | '));
    await context.close();
  }
  // The phone in Chinese.
  {
    const { context, page } = await newPage(browser, '#v=1&lang=zh', { viewport: { width: 390, height: 844 }, scale: 3 });
    await page.waitForTimeout(500);
    await settle(page);
    await page.screenshot({ path: `${shots}/web-zh-w390.png` });
    await context.close();
  }
}

// ---- 简体中文 in every tab ---------------------------------------------------------------------
// Each tab opened in Chinese (issue 32 part 7): the text the main window draws (Dear ImGui's log
// of one frame, app::CaptureText) and the DOM mirror hold no English sentence of the table where
// a translation exists; every CJK character drawn is in the fetched font (no boxes). The page's
// strings file, llmmem-zh.json, is the table's Chinese column (tests/test_i18n.cpp checks it).
// (Functions, not constants: the tests above run before this part of the module is reached.)
// English kept inside a Chinese row on purpose (flags, names) is not a leftover; and these
// fragments also occur in what the core writes (its findings, formulas and sources stay in
// English, app/i18n.h), so they are not looked for.
function coreAlsoWrites() {
  return new Set([
    'the output layer',  // llama.cpp's -ngl notes in the core's serving lines
  ]);
}
function fragmentsOf(en, kCoreAlsoWrites = coreAlsoWrites()) {
  // The literal runs of a key between its conversions and line breaks, of two words or more.
  return en.split(/%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcsp]|%%|\n/)
    .map(f => f.trim().replace(/^[,.;:()\s]+|[,.;:()\s]+$/g, ''))
    .filter(f => f.length >= 10 && /[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(f) && !kCoreAlsoWrites.has(f));
}
// The table's English fragments that must not be drawn in Chinese, and the CJK characters the
// font subset holds (the Chinese column's, and the language button's).
function chineseTable() {
  const zh = JSON.parse(readFileSync(root + 'build/web/llmmem-zh.json', 'utf8'));
  const leftovers = [];
  for (const [en, text] of Object.entries(zh))
    for (const f of fragmentsOf(en)) if (!text.includes(f)) leftovers.push([f, en]);
  const drawable = new Set([...Object.values(zh).join('') + '中文'].filter(c => c.codePointAt(0) >= 0x2e80));
  return { leftovers, drawable };
}
// Whether the fragment at text[i] stands as UI text of its own: a whole phrase, not a few
// words inside a longer English run (what the core or the user wrote: a finding, a formula,
// the pasted message). A run ends at a line break, a table or widget border (| [ ] { }) or a
// CJK character; figures, units and the row's own other words in it do not count. A fragment
// of four words or more is a leftover wherever it stands.
function standsAlone(text, i, f, en) {
  const kUnits = new Set(['GB', 'GiB', 'MB', 'MiB', 'KB', 'KiB', 'TB', 'TiB', 'B']);
  const letter = c => c !== undefined && /[A-Za-z]/.test(c);
  if (letter(text[i - 1]) || letter(text[i + f.length])) return false;
  if ((f.match(/[A-Za-z]{2,}/g) || []).length >= 4) return true;
  const edge = c => c === '\n' || '|[]{}'.includes(c) || c.codePointAt(0) >= 0x2e80;
  let a = i, b = i + f.length;
  while (a > 0 && !edge(text[a - 1])) a--;
  while (b < text.length && !edge(text[b])) b++;
  const around = (text.slice(a, i) + ' ' + text.slice(i + f.length, b)).match(/[A-Za-z]{2,}/g) || [];
  const own = new Set(en.match(/[A-Za-z]{2,}/g));  // the row's other words: the same untranslated row
  return around.every(w => kUnits.has(w) || own.has(w));
}
function englishLeft(text, leftovers) {
  const found = [];
  for (const [f, en] of leftovers) {
    if (found.some(x => x[1] === en)) continue;
    for (let i = text.indexOf(f); i >= 0; i = text.indexOf(f, i + 1))
      if (standsAlone(text, i, f, en)) { found.push([f, en]); break; }
  }
  return found;
}

async function chineseTabTests(browser) {
  const { leftovers, drawable } = chineseTable();
  const seed = readFileSync(root + 'tests/fuzz/corpus/oom/seed002_baichuan_a30.txt', 'utf8');
  const tabs = [
    { view: 'breakdown', hash: 'model=llama-3.1-8b&mode=lora' },
    { view: 'charts', hash: 'model=qwen2.5-7b&mode=lora' },
    { view: 'fitmap', hash: 'model=llama-3.1-8b&mode=inference' },
    { view: 'fit', hash: 'model=llama-3.1-8b&dp=4&zero=3' },
    { view: 'fit', hash: 'model=qwen2.5-7b&mode=inference&runtime=vllm', tag: 'fit-serving' },
    { view: 'serving', hash: 'model=qwen2.5-32b&mode=infer&dtype=awq&runtime=vllm&tp=2&seq=32768&batch=2&gpu=RTX-4090-24GB' },
    { view: 'serving', hash: 'model=llama-3.1-70b&mode=infer&dtype=q4_k_m&runtime=llama.cpp&gpu_layers=40&kv_dtype=q8_0&seq=8192&gpu=RTX-4090-24GB', tag: 'serving-llamacpp' },
    { view: 'serving', hash: 'model=llama-3.1-8b&mode=train', tag: 'serving-train' },
    { view: 'doctor', hash: 'model=llama-3.3-70b&mode=train&seq=8192' },
    { view: 'oom', hash: 'model=baichuan-7b&mode=infer&seq=2048', oom: seed },
    { view: 'network', hash: 'model=llama-3.1-8b&net_model=swin_t&net_batch=64' },
    { view: 'breakdown', hash: 'model=llama-3.1-8b&pp=4&grad_accum=8', tag: 'pipeline' },
  ];
  for (const t of tabs) {
    const tag = t.tag || t.view;
    const fetched = [];
    const { context, page, errors } = await newPage(browser, `#v=1&lang=zh&view=${t.view}&${t.hash}`,
                                                    { viewport: { width: 1280, height: 2000 } });
    page.on('response', r => { const u = new URL(r.url()); if (u.pathname === '/llmmem-zh.json') fetched.push(r.status()); });
    // The strings and the font arrive after the first frames; Any network fetches its presets.
    for (let i = 0; i < 40; i++) {
      await page.waitForTimeout(250);
      const m = await page.evaluate(() => document.getElementById('mirror').innerText);
      if (/放得下|放不下|没有估算|无法估算/.test(m)) break;
    }
    if (t.oom) {
      await page.evaluate(text => window.llmmemOpenText('seed002.txt', text), t.oom);
    }
    await page.mouse.move(1, 1999);  // no tooltip: its window would end the log early
    await settle(page);
    await page.evaluate(() => window.llmmemCaptureText());
    await settle(page);
    const st = await state(page);
    const drawn = st.drawn_text || '';
    await page.screenshot({ path: `${shots}/web-zh-${tag}.png` });
    const mirror = await page.evaluate(() => document.getElementById('mirror').innerText);
    check(`中文 ${tag}: the page is in Chinese and drew its tab (${drawn.length} characters logged)`,
          st.lang === 'zh' && drawn.length > 400 && /[\u4e00-\u9fff]/.test(drawn), drawn.slice(0, 200));
    const left = englishLeft(drawn, leftovers);
    check(`中文 ${tag}: no English sentence of the table is drawn untranslated`, left.length === 0,
          left.map(([f, en]) => `"${f}" (row "${en.slice(0, 70)}")`).join('; '));
    const leftMirror = englishLeft(mirror, leftovers);
    check(`中文 ${tag}: nor in the DOM mirror`, leftMirror.length === 0, leftMirror.map(([f]) => f).join('; '));
    const boxes = [...new Set([...drawn + mirror].filter(c => c.codePointAt(0) >= 0x2e80 && !drawable.has(c)))];
    check(`中文 ${tag}: every CJK character drawn is in the Chinese font's subset`, boxes.length === 0, boxes.join(''));
    check(`中文 ${tag}: and the font atlas has a glyph for every character drawn (no boxes)`,
          st.missing_glyphs === '', JSON.stringify(st.missing_glyphs));
    check(`中文 ${tag}: no console errors`, errors.length === 0, errors.join(' | '));
    if (process.env.LLMMEM_DUMP_TEXT) console.log(`---- ${tag}\n${drawn}`);
    await context.close();
  }
}

// ---- Layout --------------------------------------------------------------------------------
function overlap(a, b) { return a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]; }

// Links are live (issue 32): a link pasted into an open tab, and Back / Forward, restore the
// configuration they name (hashchange, popstate), and the page's own writes are not reread.
// Touch (issue 32 part 1): real touch events (Playwright's touchscreen: touchstart/touchend,
// which Chromium turns into pointer events of type touch) on a phone and a touch laptop. A tap
// must press a button, a checkbox, a combo and a section header, as a click does.
async function touchTests(browser) {
  for (const [name, viewport, scale, mobile] of [['phone 390', { width: 390, height: 844 }, 3, true],
                                                 ['touch laptop 1366', { width: 1366, height: 768 }, 1, false]]) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: scale, hasTouch: true, isMobile: mobile });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(`${origin}/index.html#v=1&model=llama-3.1-8b`);
    await waitReady(page);
    const tap = async what => {
      const p = await item(page, what);
      await page.touchscreen.tap(p.x, p.y);
      await settle(page);
    };
    let st = await state(page);
    const theme = st.theme;
    await tap('theme');
    st = await state(page);
    check(`touch (${name}): a tap on the theme button switches it`, st.theme !== theme, `${theme} -> ${st.theme}`);
    await tap('purpose');
    st = await state(page);
    check(`touch (${name}): a tap opens a combo`, st.popup_open === true, JSON.stringify(st.popup_open));
    await page.touchscreen.tap(2, viewport.height - 2);  // outside: closes it
    await settle(page);
    if (mobile) {  // the phone folds the settings under one header
      const before = !!(await state(page)).items.section_parallelism;
      await tap('settings');
      st = await state(page);
      check(`touch (${name}): a tap opens or folds the settings header`, !!st.items.section_parallelism !== before,
            `sections shown ${before} -> ${!!st.items.section_parallelism}`);
    }
    const below = (await state(page)).items.section_precision;
    await tap('section_parallelism');
    st = await state(page);
    check(`touch (${name}): a tap opens a section header (the next one moves down)`,
          below && st.items.section_precision && st.items.section_precision[1] > below[1] + 10,
          `${below && below[1]} -> ${st.items.section_precision && st.items.section_precision[1]}`);
    if (!mobile) {  // the breakdown's checkbox is below the phone's first screen
      const before = (await state(page)).formulas;
      await tap('formulas');
      st = await state(page);
      check(`touch (${name}): a tap ticks a checkbox`, st.formulas !== before, `${before} -> ${st.formulas}`);
    }
    await page.screenshot({ path: `${shots}/web-touch-${viewport.width}.png` });
    check(`touch (${name}): no page errors`, errors.length === 0, errors.join('; '));
    await context.close();
  }
}

// The GPU list is searched as the model list is (issue 32: 58 cards and no search): type,
// Enter picks; nothing matching lists nothing; Escape keeps the card.
async function gpuSearchTests(browser) {
  const { context, page, errors } = await newPage(browser, '#v=1&model=llama-3.1-8b&gpu=A10-24GB');
  // Keys pressed in the open list, then the page's state once it settles.
  const keys = async (...presses) => {
    for (const k of presses) {
      if (['Enter', 'Escape', 'ArrowUp', 'ArrowDown'].includes(k)) await page.keyboard.press(k);
      else await page.keyboard.type(k);
    }
    await settle(page);
    return state(page);
  };
  const cards = st => Object.keys(st.items).filter(k => k.startsWith('gpu_') && k !== 'gpu_search');
  await click(page, 'gpu');
  let st = await keys('4090');
  check('gpu search: typing "4090" leaves only the 4090s', cards(st).length >= 1 && cards(st).every(k => k.includes('4090')),
        cards(st).join(' '));
  st = await keys('Enter');
  check('gpu search: Enter picks the match', hasPair(st, 'gpu=RTX-4090-24GB'), st.config);
  await click(page, 'gpu');
  st = await keys('no such card');
  check('gpu search: no match lists no card', cards(st).length === 0, cards(st).join(' '));
  st = await keys('Escape');
  check('gpu search: Escape keeps the card', hasPair(st, 'gpu=RTX-4090-24GB'), st.config);
  await click(page, 'gpu');
  st = await keys('A10-24', 'Enter');
  check('gpu search: and back to the A10', hasPair(st, 'gpu=A10-24GB'), st.config);
  check('gpu search: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

// The page's catalogue leaves the GPU rows' citations out (4.6 KB of its first load) and
// fetches them the first time a card's details are shown (the GPU picker's tooltip).
async function gpuSourceTests(browser) {
  const { context, page, errors } = await newPage(browser, '#v=1&model=llama-3.1-8b');
  let st = await state(page);
  check('gpu sources: not in the first load', st.gpu_sources_known === false, JSON.stringify(st.gpu_sources_known));
  const p = await item(page, 'gpu');
  await page.mouse.move(p.x, p.y);
  await settle(page);
  for (let i = 0; i < 100 && !st.gpu_sources_known; i++) {
    await page.waitForTimeout(100);
    await page.mouse.move(p.x + (i % 2), p.y);
    st = await state(page);
  }
  check('gpu sources: fetched when a card\'s details are first shown', st.gpu_sources_known === true, JSON.stringify(st.gpu_sources_known));
  check('gpu sources: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

// A runtime's start-up log read on the OOM tab (issue 33 part 4), beside the page's estimate:
// the same figures as llmmem run --json for the same configuration (PR #10511's vLLM table).
async function runTests(browser) {
  const query = 'model=llama-3-8b&mode=infer&runtime=vllm&seq=8192';
  const { context, page, errors } = await newPage(browser, `#v=1&${query}`);
  const log = readFileSync(root + 'tests/fuzz/corpus/run/vllm_table.txt', 'utf8');
  await page.evaluate(text => window.llmmemOpenText('vllm.log', text), log);
  await settle(page);
  let st = await state(page);
  for (let i = 0; i < 200 && !st.run.answered; i++) {
    await page.waitForTimeout(100);
    st = await state(page);
  }
  await settle(page);
  const cli = JSON.parse(execFileSync(root + 'build/native/llmmem',
    ['run', root + 'tests/fuzz/corpus/run/vllm_table.txt', '--model', 'llama-3-8b', '--mode', 'infer', '--runtime', 'vllm',
     '--seq', '8192', '--json'], { encoding: 'utf8' }));
  const want = cli.comparison.rows.map(r => `${r.category} ${r.measured_bytes} ${r.estimated_bytes}`).join('; ');
  const got = st.run.rows.map(r => `${r.category} ${r.measured} ${r.estimated}`).join('; ');
  check('run: the page reads a vLLM log beside its estimate, as llmmem run --json', st.run.recognised && st.run.source === 'vllm' &&
        got === want && st.run.not_modelled === cli.comparison.not_modelled.length, `${got} | ${want}`);
  await page.screenshot({ path: `${shots}/web-run-vllm.png` });
  // Calibrate (issue 33 part 3): the residual the CLI computes, carried into the estimate by a click.
  check('run: the calibration is llmmem run --json\'s', st.run.calibrated && cli.calibration.ok &&
        Math.abs(st.run.carried_gb - cli.calibration.measured_residual_gb) < 1e-9,
        `${st.run.carried_gb} | ${cli.calibration.measured_residual_gb}`);
  for (let i = 0; i < 12 && st.items.run_carry && st.items.run_carry[1] + st.items.run_carry[3] > 800; i++) {
    await page.mouse.move(900, 600);
    await page.mouse.wheel(0, 240);
    await settle(page);
    st = await state(page);
  }
  if (st.items.run_carry) await click(page, 'run_carry');
  st = await state(page);
  check('run: "Carry into the estimate" sets measured_residual_gb, and the link has it',
        Math.abs(st.run.config_residual_gb - cli.calibration.measured_residual_gb) < 1e-9 &&
        /measured_residual_gb=/.test(await page.evaluate(() => location.hash)),
        `${st.run.config_residual_gb} ${await page.evaluate(() => location.hash)}`);
  check('run: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

// A training program's own file dropped on the page (issue 30 part 2): read in the worker by
// --from's reader and applied, the same settings as llmmem --from gives.
async function programFileTests(browser) {
  const { context, page, errors } = await newPage(browser, '');
  const file = root + 'tests/data/program_files/axolotl_llama3_qlora.yml';
  await page.evaluate(text => window.llmmemOpenText('qlora.yml', text), readFileSync(file, 'utf8'));
  let st = await state(page);
  for (let i = 0; i < 200 && !/mode=qlora/.test(st.config); i++) {
    await page.waitForTimeout(100);
    st = await state(page);
  }
  await settle(page);
  st = await state(page);
  let out;
  try {
    out = execFileSync(root + 'build/native/llmmem', ['--from', file, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    out = e.stdout;
  }
  const c = JSON.parse(out).config;
  const q = new URLSearchParams(st.config);
  // The link leaves out what equals its program's default: the keys it holds must match.
  const same = ['mode', 'stack', 'seq', 'batch', 'grad_accum', 'lora_rank', 'recompute', 'optimizer']
    .filter(k => q.has(k) && String(q.get(k)) !== String(c[k]));
  check('program file: a dropped axolotl YAML is applied as llmmem --from reads it', /mode=qlora/.test(st.config) &&
        q.get('stack') === 'axolotl' && q.get('lora_rank') === '32' && q.get('batch') === '2' && same.length === 0,
        `${st.config} differs in ${same.join(', ')}`);
  await page.screenshot({ path: `${shots}/web-program-file.png` });
  // A pasted pip freeze (issue 30): the program and its version, as llmmem --from reads it.
  await page.evaluate(() => window.llmmemOpenText('clipboard', 'accelerate==1.1.1\npeft==0.13.2\ntransformers==4.46.3\ntrl==0.12.1\n'));
  for (let i = 0; i < 200 && !/stack=trl/.test(st.config); i++) {
    await page.waitForTimeout(100);
    st = await state(page);
  }
  check('program file: pasted pip freeze output sets the program and its version', /stack=trl%400\.12\.1|stack=trl@0\.12\.1/.test(st.config),
        st.config);
  check('program file: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

// Several jobs on one GPU (issue 34 part 3), one case of each kind shown in the page (the
// examples of presets/jobs), each planned in the Web Worker and equal to llmmem plan --jobs.
async function jobsTests(browser) {
  const { context, page, errors } = await newPage(browser, '#v=1&model=llama-3.1-8b&gpu=RTX-4090-24GB',
                                                  { viewport: { width: 1280, height: 1200 } });
  await click(page, 'tab_fit');
  await click(page, 'jobs_header');
  let st = await state(page);
  for (let i = 0; i < 100 && st.jobs.examples === 0; i++) {
    await page.waitForTimeout(100);
    st = await state(page);
  }
  await settle(page);  // the frame that draws them
  check('jobs: the examples arrive from the worker', st.jobs.examples >= 4, JSON.stringify(st.jobs));
  for (const id of ['grpo_colocate', 'llm_embedder_reranker', 'draft', 'display']) {
    await click(page, 'jobs_example');
    await click(page, `jobs_example_${id}`);
    await click(page, 'jobs_plan');
    st = await state(page);
    for (let i = 0; i < 300 && !st.jobs.answered; i++) {
      await page.waitForTimeout(100);
      st = await state(page);
    }
    await settle(page);
    let out;  // exit 1: it does not fit (the display case), and the JSON says so
    try {
      out = execFileSync(root + 'build/native/llmmem',
        ['plan', '--jobs', root + `presets/jobs/${id}.json`, '--gpu', 'RTX-4090-24GB', '--json'], { encoding: 'utf8' });
    } catch (e) { out = String(e.stdout || ''); }
    const cli = JSON.parse(out);
    check(`jobs (${id}): the page shows the CLI's plan`, st.jobs.chosen === id && st.jobs.ok && st.jobs.verdict === cli.verdict &&
          st.jobs.peak_phase === cli.peak.phase && Math.abs(st.jobs.peak_bytes - cli.peak.bytes) <= 1e-9 * cli.peak.bytes,
          `${JSON.stringify(st.jobs)} | ${cli.verdict} ${cli.peak.phase} ${cli.peak.bytes}`);
    await page.screenshot({ path: `${shots}/web-jobs-${id}.png` });
  }
  check('jobs: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

// The Fit tab's layout search (issue 34 part 5): the planner in a Web Worker, fetched on the
// first search; the page keeps drawing meanwhile; the fastest layout is the CLI's; Apply takes it.
async function planTests(browser) {
  const query = 'model=llama-3.2-1b&gpu=RTX-4090-24GB&mode=train&seq=4096&dp=8';
  const { context, page, errors } = await newPage(browser, `#v=1&${query}`);
  const fetched = [];
  page.on('request', r => fetched.push(new URL(r.url()).pathname));
  // Room for the answer (issue 32 part 3): a click on the tab brings its content into view.
  await click(page, 'tab_fit');
  await settle(page);
  const search = (await state(page)).items.plan_search;
  check('tabs: a click on Fit brings its answers above the fold at 1280x800', search && search[1] + search[3] < 800 - 120,
        JSON.stringify(search));
  await click(page, 'plan_search');
  let st = await state(page);
  check('plan: the search starts without stopping the page', st.plan.running || st.plan.answered, JSON.stringify(st.plan));
  const deadline = Date.now() + 60000;
  while (!st.plan.answered && Date.now() < deadline) {
    await page.waitForTimeout(100);
    st = await state(page);
  }
  check('plan: the worker answers with layouts that fit', st.plan.ok && st.plan.best > 0, JSON.stringify(st.plan));
  check('plan: the worker and its module came on demand', ['/plan_worker.js', '/llmmem-plan.js', '/llmmem-plan.wasm'].every(f => fetched.includes(f)),
        fetched.join(', '));
  const tokens = 1 * 1 * 8 * 4096;
  const cli = JSON.parse(execFileSync(root + 'build/native/llmmem',
    ['plan', '--model', 'llama-3.2-1b', '--gpu', 'RTX-4090-24GB', '--mode', 'train', '--seq', '4096', '--dp', '8',
     '--gpus', '8', '--global-batch-tokens', String(tokens), '--json'], { encoding: 'utf8' }));
  check('plan: the page\'s fastest layout is the CLI\'s', cli.candidates.length > 0 && cli.candidates[0].layout === st.plan.first_layout,
        `${st.plan.first_layout} | ${cli.candidates[0] && cli.candidates[0].layout}`);
  check('plan: the page searched the CLI\'s space', cli.search.considered === st.plan.considered, `${st.plan.considered} vs ${cli.search.considered}`);
  console.log(`info plan: ${st.plan.considered} layouts searched in the worker in ${st.plan.ms.toFixed(0)} ms`);
  await page.screenshot({ path: `${shots}/web-plan-w1280.png` });
  await click(page, 'plan_apply_1');
  st = await state(page);
  const want = cli.candidates[0].peak_bytes;
  check('plan: Apply takes the fastest layout (the page now shows its peak)', Math.abs(st.peak_bytes - want) <= 1e-6 * want,
        `${st.peak_bytes} vs ${want}; ${st.config}`);
  check('plan: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

async function liveLinkTests(browser) {
  const { context, page, errors } = await newPage(browser, '#v=1&model=llama-3.1-8b&mode=inference&seq=4096');
  const has = (st, item) => st.url_state.split('&').includes(item);
  let st = await state(page);
  check('live link: the first link opens', has(st, 'model=llama-3.1-8b'), st.url_state);
  await page.waitForTimeout(1100);  // a later state is its own history entry
  await page.evaluate(() => { location.hash = 'v=1&model=qwen2.5-7b&mode=inference&seq=2048'; });
  await settle(page);
  st = await state(page);
  check('live link: a link pasted into the open tab opens (hashchange)',
        has(st, 'model=qwen2.5-7b') && has(st, 'seq=2048'), st.url_state);
  await page.waitForTimeout(1100);
  await page.goBack();
  await settle(page);
  st = await state(page);
  check('live link: Back restores the configuration before it (popstate)',
        has(st, 'model=llama-3.1-8b') && !has(st, 'seq=2048'), st.url_state);
  await page.goForward();
  await settle(page);
  st = await state(page);
  check('live link: Forward restores it again', has(st, 'model=qwen2.5-7b'), st.url_state);
  // gpus= in a link (issue 32: it was refused): dp = gpus / (tp x pp x cp).
  await page.evaluate(() => { location.hash = 'v=1&model=llama-3.1-8b&mode=train&gpus=16&tp=2'; });
  await settle(page);
  st = await state(page);
  check('live link: gpus=16 with tp=2 opens as dp=8', has(st, 'dp=8') && has(st, 'tp=2'), st.url_state);
  check('live link: no page errors', errors.length === 0, errors.join('; '));
  await context.close();
}

async function layoutTests(browser) {
  const sizes = [[390, 844], [800, 900], [1280, 800], [1920, 1080]];
  for (const [w, h] of sizes) {
    for (const dpr of [1, 2, 3]) {
      // The phone in training mode (more inputs), the others on the first screen.
      const hash = w === 390 ? '#v=1&model=llama-3.3-70b&mode=lora' : '';
      const { context, page, errors } = await newPage(browser, hash, { viewport: { width: w, height: h }, scale: dpr });
      const st = await state(page);
      const ratio = await page.evaluate(() => window.llmmemCanvasRatio());
      const file = `${shots}/web-w${w}-dpr${dpr}.png`;
      await page.screenshot({ path: file });
      const tag = `layout ${w}x${h} @${dpr}x`;
      check(`${tag}: the canvas is sharp (backing store ${ratio.toFixed(2)}x its CSS size)`, Math.abs(ratio - dpr) < 0.02);
      const items = Object.entries(st.items).filter(([n]) => n !== 'inputs_panel');
      const outside = items.filter(([, r]) => r[0] < -0.5 || r[0] + r[2] > w + 0.5).map(([n]) => n);
      check(`${tag}: every control lies inside the window`, outside.length === 0, outside.join(', '));
      const pairs = [];
      for (let i = 0; i < items.length; i++)
        for (let j = i + 1; j < items.length; j++)
          if (overlap(items[i][1], items[j][1])) pairs.push(`${items[i][0]}/${items[j][0]}`);
      check(`${tag}: no control overlaps another (${items.length} checked)`, pairs.length === 0, pairs.join(', '));
      const v = st.items.verdict_total;
      check(`${tag}: the verdict is on the first screen`, v && v[1] + v[3] <= h, JSON.stringify(v));
      check(`${tag}: no console errors`, errors.length === 0, errors.join(' | '));
      await context.close();
    }
  }
  // The light theme, as people with it see the first screen.
  const { context, page } = await newPage(browser, '#v=1&theme=light', { viewport: { width: 1280, height: 800 } });
  await page.screenshot({ path: `${shots}/web-light.png` });
  await context.close();
  // Issue 32: the theme follows prefers-color-scheme; theme= is in the link only when it is
  // not the system's.
  for (const scheme of ['light', 'dark']) {
    const { context: cs, page: ps } = await newPage(browser, '', { colorScheme: scheme });
    const st = await state(ps);
    check(`prefers-color-scheme: ${scheme} opens the ${scheme} theme`, st.theme === scheme, st.theme);
    check(`prefers-color-scheme: ${scheme}: the link names no theme`, !/theme=/.test(await ps.evaluate(() => location.hash)),
          await ps.evaluate(() => location.hash));
    const other = scheme === 'light' ? 'dark' : 'light';
    const { context: cl, page: pl } = await newPage(browser, `#v=1&theme=${other}`, { colorScheme: scheme });
    check(`prefers-color-scheme: ${scheme}: a link's theme=${other} wins`, (await state(pl)).theme === other);
    await cl.close();
    await cs.close();
  }
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
