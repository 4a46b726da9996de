// The playground's one Web Worker (web/src/runner/worker.js), its protocol
// run in Node with `self` standing in for the worker's global: a view's
// stepper started by id with the wasm URL given, its data posted until done;
// pause holds it, step advances one step, a display-field update is taken in
// place and redone, a view's own start ('open', a model file) and call
// ('save') through the view module's worker hook; a bad file leaves the run.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parse, hashEntries } from '../../wasm/state/schema.js';
import { VIEWS } from '../../wasm/views/index.js';
import { WASM } from './support/wasm-paths.js';

const V = (id) => VIEWS.find((v) => v.id === id);
let ss, inbox = [];
const TINY = 'd=32&heads=2&layers=1&context=16&batch=4&warmup=5&length=12&quantizers=&normalizers=softmax,softpick';

beforeAll(async () => {
  ss = await createSoftscope({ wasm: WASM.simd });
  globalThis.self = { postMessage: (m) => inbox.push(m) };
  await import('../../web/src/runner/worker.js');
});

const send = (m) => globalThis.self.onmessage({ data: m });
const state = (id, hash) => parse(V(id).schema, hashEntries(hash), ss).state;
// the first message matching f (waits for it)
async function until(f, ms = 20000) {
  const t0 = Date.now();
  for (;;) {
    const m = inbox.find(f);
    if (m) return m;
    if (Date.now() - t0 > ms) throw new Error(`no such message; got ${JSON.stringify(inbox.map((x) => [x.type, x.status, x.about, x.message]))}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const last = (run) => inbox.filter((m) => m.type === 'data' && m.run === run).at(-1);

describe('the runner worker', () => {
  it('runs a view\'s stepper by id to the end, posting data; the numbers are compute\'s', async () => {
    inbox = [];
    const s = state('experiments', 'steps=30&testMax=32&examples=16&quantizers=&normalizers=softmax');
    send({ type: 'start', run: 1, view: 'experiments', state: s, play: true, build: 'simd', wasm: WASM.simd });
    const done = await until((m) => m.run === 1 && m.type === 'data' && m.status === 'done');
    expect(inbox.find((m) => m.type === 'started').run).toBe(1);
    expect(done.data).toEqual(V('experiments').compute(ss, s));
    // a view the package does not have: an error of the start, naming it
    send({ type: 'start', run: 9, view: 'nope', state: {}, play: true, build: 'simd', wasm: WASM.simd });
    expect((await until((m) => m.run === 9 && m.type === 'error')).message).toMatch(/no view "nope"/);
  });

  it('pause holds, step advances every run one slice, a display field is taken in place; another key is refused', async () => {
    inbox = [];
    const s = state('language', `${TINY}&steps=20000`);
    send({ type: 'start', run: 2, view: 'language', state: s, play: false, step: true, build: 'simd', wasm: WASM.simd });
    const first = await until((m) => m.run === 2 && m.type === 'data');
    expect(first.status).toBe('paused');
    expect(first.data.runs.map((r) => r.step)).toEqual([10, 10]);
    send({ type: 'step' });
    await until((m) => m.run === 2 && m.type === 'data' && m.data.runs.every((r) => r.step === 20));
    send({ type: 'update', state: { ...s, sel: 'softpick', prompt: 'ab' } });
    await until((m) => m.run === 2 && m.type === 'data' && m.data.sel === 1);
    expect(last(2).data.runs.map((r) => r.step)).toEqual([20, 20]); // (paused: nothing trained)
    send({ type: 'update', state: { ...s, d: 64 } });
    expect((await until((m) => m.type === 'error')).about).toBe('run');
    send({ type: 'play' });
    await until((m) => m.run === 2 && m.type === 'data' && m.status === 'running');
    send({ type: 'pause' });
    await until((m) => m.run === 2 && m.type === 'data' && m.status === 'paused');
    send({ type: 'dispose' });
  });

  it('save (the view\'s call) gives a model file; open (the view\'s start) generates from it; a bad file leaves the run', async () => {
    inbox = [];
    const s = state('language', `${TINY}&steps=40&normalizers=softpick`);
    send({ type: 'start', run: 3, view: 'language', state: s, play: true, build: 'simd', wasm: WASM.simd });
    await until((m) => m.run === 3 && m.type === 'data' && m.status === 'done', 60000);
    send({ type: 'call', id: 'a', name: 'save' });
    const { value } = await until((m) => m.type === 'reply' && m.id === 'a');
    expect(new TextDecoder().decode(value.bytes.subarray(0, 4))).toBe('SSLM');
    send({ type: 'start', run: 4, via: 'open', view: 'language', state: s, input: { bytes: new Uint8Array([1, 2, 3]) }, build: 'simd', wasm: WASM.simd });
    expect((await until((m) => m.type === 'error' && m.run === 4)).about).toBe('start');
    send({ type: 'call', id: 'b', name: 'save' }); // (the training is still there)
    expect((await until((m) => m.type === 'reply' && m.id === 'b')).value.bytes.length).toBe(value.bytes.length);
    send({ type: 'start', run: 5, via: 'open', view: 'language', state: { ...s, prompt: 'ab' }, input: { bytes: value.bytes }, build: 'simd', wasm: WASM.simd });
    const started = await until((m) => m.type === 'started' && m.run === 5);
    expect(started.info.options.normalizer).toBe('softpick');
    expect(started.info.steps).toBe(40);
    const d = await until((m) => m.type === 'data' && m.run === 5);
    expect(d.data.runs[0].generation.text.length).toBeGreaterThan(0);
    send({ type: 'update', state: { ...s, prompt: 'ba', genSeed: 5 } });
    const again = await until((m) => m.type === 'data' && m.run === 5 && m.data.prompt === 'ba');
    expect(again.data.runs[0].generation.prompt).toBe('ba');
    send({ type: 'dispose' });
  });
});
