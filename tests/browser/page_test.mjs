// The web calculator as a user opens it, in headless Chromium (Debian's), served by
// scripts/serve.py under its strict Content-Security-Policy:
//  - the canvas renders a real frame (screenshots in build/screenshots/, many colours),
//  - the page logs no error and requests nothing but its own static files,
//  - the numbers the page computes equal the CLI's for the same state (URL-driven).
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

const server = spawn('python3', [root + 'scripts/serve.py', '--port', String(port), '--dir', root + 'build/web',
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
      // Poll with evaluate (waitForFunction would eval a string, which the strict CSP forbids).
      const deadline = Date.now() + 60000;
      while (!(await page.evaluate(() => typeof window.llmmemTestState === 'function'))) {
        if (Date.now() > deadline) throw new Error('timed out after 60 s');
        await page.waitForTimeout(200);
      }
      await page.waitForTimeout(1500);
      if (c.oom) {
        await page.evaluate(text => window.llmmemOpenText('seed002.txt', text), c.oom);
        await page.waitForTimeout(1000);
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
  const allowed = new Set(['/index.html', '/llmmem.js', '/llmmem.wasm', '/app.css', '/boot.js', '/favicon.ico']);
  const odd = paths.filter(p => !allowed.has(p.split('#')[0].split('?')[0]));
  check('server saw only the site\'s own files', odd.length === 0, odd.join(', '));
} finally {
  await browser.close();
  server.kill();
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
