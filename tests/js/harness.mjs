// What the JS API tests share: the Embind module, the native CLI's JSON, and a check list
// that prints "ok"/"FAIL" per case and exits with the count.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';

const require = createRequire(import.meta.url);
export const root = new URL('../../', import.meta.url).pathname;

export async function loadApi() {
  const createLlmmem = require(root + 'build/wasm/llmmem_api.js');
  return createLlmmem();
}

// `llmmem ARGS --json`; exit 1 (does not fit) is still a result.
export function cli(args) {
  try {
    return JSON.parse(execFileSync(root + 'build/native/llmmem', [...args, '--json'], { encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout);
    throw e;
  }
}

let passed = 0, failed = 0;
export function check(name, fn) {
  try { fn(); passed++; console.log(`ok   ${name}`); }
  catch (e) { failed++; console.log(`FAIL ${name}\n     ${e.message}`); }
}

export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
