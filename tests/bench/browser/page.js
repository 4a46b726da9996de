// The benchmark in a page: the same family specs (families.js), interleaved
// rounds (timing.js, wall clock: performance.now()) and run (run.js) as
// `make bench` in Node, on softscope's builds loaded from /wasm/dist and the
// peers the page loaded (page.html): tfjs-backend-wasm (SIMD, one thread)
// and onnxruntime-web (wasm, 1 thread), and transformers.js's browser bundle
// (imported here, loadTransformers). bench-browser.js calls window.benchRun(opts) and formats what it
// returns; log lines go to the console (forwarded to the terminal). And
// window.benchExperiment(opts): the Experiments view's default state trained
// in this page until every normalizer reached 95 % (experiment-time.js).
import { loadBuilds } from '../raw.js';
import { setupPeers } from '../peers.js';
import { runFamilies } from '../run.js';
import { settings } from '../timing.js';
import { experimentsView, timeToReached } from '../experiment-time.js';

const DIST = new URL('../../../wasm/dist/', import.meta.url).href;
const version = async (pkg) => {
  try {
    return (await (await fetch(`/node_modules/${pkg}/package.json`)).json()).version;
  } catch {
    return null;
  }
};

async function loadPagePeers() {
  const { tf, ort } = globalThis;
  if (tf?.wasm) {
    tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
    // the page is cross-origin isolated (for the clock): tfjs could start threads; one, as in Node
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  }
  if (ort) ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  return setupPeers({ tf: tf?.wasm ? tf : null, ortWeb: ort ?? null, transformers: await loadTransformers() }, version);
}

// transformers.js's browser bundle (dist/transformers.js: its own copy of
// onnxruntime-web, which its topk runs on). It would fetch that runtime's
// wasm from a CDN: pointed at the copy in node_modules instead, one thread.
const TR = '/node_modules/@huggingface/transformers/';
async function loadTransformers() {
  try {
    const tr = await import(`${TR}dist/transformers.js`);
    const wasm = tr.env.backends.onnx.wasm, dist = `${TR}node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify`;
    wasm.wasmPaths = { mjs: `${dist}.mjs`, wasm: `${dist}.wasm` };
    wasm.numThreads = 1;
    await tr.topk(new tr.Tensor('float32', new Float32Array(4), [4]), 1); // loads its runtime now, or fails here
    return tr;
  } catch (e) {
    console.log(`peer transformers.js: not available in the page (${String(e?.message ?? e).split('\n')[0]})`);
    return null;
  }
}

/** opts: { quick, families, kernels, sizes, settings, peers, builds } -> { settings, families }. */
globalThis.benchRun = async (opts) => {
  const labels = opts.builds ?? ['relaxed', 'simd', 'scalar'];
  const builds = await loadBuilds(DIST, labels);
  const peers = opts.peers === false ? { versions: {} } : await loadPagePeers();
  const st = { ...settings(opts.quick), ...opts.settings };
  const log = (s) => console.log(s);
  log(`bench-browser: builds ${labels.join(', ')}; peers ${Object.keys(peers.versions).join(', ') || 'none'}; clock wall (performance.now)${opts.quick ? '; QUICK' : ''}`);
  const families = await runFamilies({ builds, peers }, { ...opts, clock: 'wall' }, st, log);
  return { settings: { quick: !!opts.quick, clock: 'wall', estimator: opts.estimator ?? 'median', ...st, builds: labels, peers: peers.versions }, families };
};
// The page's event loop between slices, without setTimeout's 4 ms clamp.
const pause = () => new Promise((resolve) => {
  const ch = new MessageChannel();
  ch.port1.onmessage = () => resolve();
  ch.port2.postMessage(0);
});

/** opts: { build ('relaxed': what impl 'auto' loads in Chromium), over (state keys), sliceMs, limitMs } ->
    timeToReached's result with { build }, or { missing } where the tree has no experiments view. The
    instance is made (the module compiled) before the clock starts, as a view's is before Train. */
globalThis.benchExperiment = async (opts = {}) => {
  const v = await experimentsView();
  if (v.missing) return v;
  const label = opts.build ?? 'relaxed';
  const { [label]: b } = await loadBuilds(DIST, [label]);
  console.log(`bench-browser: the experiments view's default state (${label} build), time to 95 %`);
  const r = await timeToReached(b.ss, v, { over: opts.over, sliceMs: opts.sliceMs, limitMs: opts.limitMs, pause });
  return { build: label, ...r };
};
globalThis.benchReady = true;
