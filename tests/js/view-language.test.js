// The Language view without a browser: its state round-trips through the one
// serializer (the prompt as text, the optimizer's parameters as
// adamw.lr=..., a decoding stage by its name), finish keeps heads dividing d
// and the layer shown inside the model; a short seeded run trains (losses
// fall, the data is JSON-safe and in the model's documented shape), on the
// grammar text and on Bigram-Backcopy (trigger queries split from the
// others); a diverging run is marked with its step while the other goes on;
// a display key keeps the run (a new prompt regenerates on the trained
// models, the same text as a fresh run's); stop() frees every model.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { defaults, toHash, parse, entries, runKey } from '../../wasm/state/schema.js';
import { language as view } from '../../wasm/views/language/index.js';
import { start, table, SLICE } from '../../wasm/views/language/model.js';
import { VIEW_IDS } from '../../wasm/views/index.js';
import { viewState } from './support/view-harness.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
const { schema } = view;
const { read, state } = viewState(view, () => ss);

// a tiny model: about 1 s a run in the SIMD build
const TINY = 'd=32&heads=2&layers=1&context=16&batch=4&steps=60&warmup=5&length=12&quantizers=uniform';

// every number finite or null, every value JSON's
function jsonSafe(v, path = 'data') {
  if (typeof v === 'number') expect(Number.isFinite(v), path).toBe(true);
  else if (Array.isArray(v)) v.forEach((x, i) => jsonSafe(x, `${path}[${i}]`));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) jsonSafe(x, `${path}.${k}`);
  else expect(v === null || ['string', 'boolean'].includes(typeof v), path).toBe(true);
}

describe('language view: state', () => {
  it('is listed, and its defaults are the documented ones', () => {
    expect(VIEW_IDS).toContain('language');
    const d = defaults(schema, ss);
    expect(d).toMatchObject({ corpus: 'grammar', normalizers: ['softmax', 'softpick'], d: 64, heads: 4, layers: 2, context: 64, batch: 12,
      steps: 600, optimizer: 'adamw', prompt: '', on: ['temperature', 'top_p'], sel: null });
    expect(entries(schema, d, ss)).toEqual([]);
  });

  it('round-trips through the serializer: a prompt with spaces and a newline, params, a stage value', () => {
    const s = { ...defaults(schema, ss), corpus: 'bigram_backcopy', keys: 2, normalizers: ['softmax', 'ssmax'], prompt: 'ROMEO:\nO, she & I = 1%',
      params: { 'adamw.lr': 0.002 }, stages: { top_p: 0.8 }, genSeed: 7, layer: 1, positions: 'learned' };
    const back = read(toHash(schema, s, ss)).state;
    expect(read(toHash(schema, s, ss)).notices).toEqual([]);
    expect(back).toEqual(s);
    expect(runKey(schema, back)).toBe(runKey(schema, s));
  });

  it('refuses a prompt too long or with a control character, keeping the default', () => {
    expect(read(`prompt=${'a'.repeat(300)}`).notices[0].reason).toMatch(/longer than 256/);
    expect(read('prompt=a%1Bb').notices[0].reason).toMatch(/control/);
    expect(read('prompt=a%1Bb').state.prompt).toBe('');
  });

  it('finish: heads divide d, the layer and head shown exist, sel is a trained normalizer', () => {
    const s = state('d=48&heads=5&layers=1&layer=3&head=7&sel=ssmax');
    expect(s.heads).toBe(4);
    expect(s.layer).toBe(0);
    expect(s.head).toBe(3);
    expect(s.sel).toBe(null);
  });
});

describe('language view: the run', () => {
  it('trains on the grammar text: losses fall, every phase runs, the data is JSON-safe and in shape', () => {
    const st = start(ss, state(TINY));
    st.step(0);
    expect(st.data().runs.map((r) => r.step)).toEqual([0, 0]); // the step-0 validation points first
    st.step(0); st.step(0);
    expect(st.data().runs.map((r) => r.step)).toEqual([SLICE, 0]);
    const phases = [];
    while (st.step(0)) { const p = st.data().phase; if (phases[phases.length - 1] !== p) phases.push(p); }
    const d = st.data();
    st.stop();
    expect(phases).toEqual(['train', 'evaluate', 'inspect', 'generate', 'quantize']);
    expect(d.phase).toBe('done');
    expect(d.progress).toBe(1);
    jsonSafe(JSON.parse(JSON.stringify(d)));
    expect(d.lengthNs).toEqual([16, 32, 64]);
    expect(d.uniform).toBeCloseTo(Math.log(d.vocab - 1), 10);
    for (const r of d.runs) {
      expect(r.step).toBe(60);
      expect(r.val.loss[r.val.loss.length - 1]).toBeLessThan(r.val.loss[0] - 0.3);
      expect(r.curve.loss[r.curve.loss.length - 1]).toBeLessThan(r.curve.loss[0]);
      expect(r.valBits).toBeCloseTo(r.valLoss / Math.LN2, 10);
      expect(r.lengths.map((x) => [x.n, x.positionLoss.length])).toEqual([[16, 16], [32, 32], [64, 64]]);
      expect(r.inspect.maps.length).toBe(2 * 16 * 16);
      expect(r.inspect.heads.length).toBe(2);
      expect(r.inspect.residual.length).toBe(2);
      expect(r.generation.steps.length).toBe(12);
      expect(r.generation.steps[0].top.length).toBeGreaterThanOrEqual(5);
      expect(r.quant.map((q) => q.bits)).toEqual([2, 3, 4, 8]);
      expect(r.tokensPerSecond).toBeGreaterThan(0);
    }
    const t = table(d);
    expect(new Set(t.rows.map((row) => row[0]))).toEqual(new Set(['curve', 'val', 'position', 'quant', 'head']));
  });

  it('Bigram-Backcopy: trigger queries are split from the others; learned positions stop at the context', () => {
    const d = view.compute(ss, state(`${TINY}&corpus=bigram_backcopy&values=8&keys=3&context=32&normalizers=softmax&positions=learned&quantizers=`));
    const r = d.runs[0];
    expect(d.lengthNs).toEqual([32]);
    expect(d.lengthNote).toMatch(/learned/);
    expect([...d.example.flatMap((e) => e.trigger), ...r.inspect.trigger].some((x) => x)).toBe(true);
    for (const h of r.inspect.heads) {
      expect(h.bosMassTrigger).not.toBe(null);
      expect(h.bosMassOther).not.toBe(null);
      expect(h.sink).toBe(h.bosMassOther > 0.3);
    }
    expect(r.inspect.texts[0]).toBe('');
    expect(r.quant).toEqual([]);
  });

  it('a diverging run is marked with its step, and the work goes on to the end', () => {
    // (at lr 50 every normalizer diverges, at the same step: the optimizer, not the attention, blows up at this size)
    const d = view.compute(ss, state(`${TINY}&normalizers=softmax,softpick&adamw.lr=50&schedule=constant&steps=80&warmup=0&quantizers=`));
    expect(d.phase).toBe('done');
    expect(d.runs.every((r) => r.diverged !== null)).toBe(true);
    for (const r of d.runs) { expect(r.generation).toBe(null); expect(r.step).toBeLessThan(80); expect(r.step).toBe(r.diverged - 1); }
    jsonSafe(JSON.parse(JSON.stringify(d)));
  });

  it('a display key keeps the run: a new prompt regenerates on the trained models, as a fresh run would', () => {
    const a = state(`${TINY}&quantizers=`), b = state(`${TINY}&quantizers=&prompt=The%20&genSeed=3&layer=0&sel=softpick`);
    const st = start(ss, a);
    while (st.step(Infinity));
    const before = st.data();
    expect(st.update(b)).toBe(true);
    expect(st.step(Infinity)).toBe(false);
    const after = st.data();
    st.stop();
    expect(after.runs.map((r) => r.valLoss)).toEqual(before.runs.map((r) => r.valLoss));
    expect(after.sel).toBe(1);
    const fresh = view.compute(ss, b);
    expect(after.runs.map((r) => r.generation.text)).toEqual(fresh.runs.map((r) => r.generation.text));
    expect(after.runs[0].generation.prompt).toBe('The ');
    // a prompt with a character the model does not know: that run's generation says so
    const st2 = start(ss, a);
    while (st2.step(Infinity));
    st2.update({ ...a, prompt: '€' });
    st2.step(Infinity);
    expect(st2.data().runs[0].generation.error).toMatch(/vocabulary/);
    st2.stop();
    expect(st.update({ ...b, steps: 61 })).toBe(false);
  });

  it('stop() frees every model (also mid-run), and data() still answers', () => {
    const before = ss.heapStats().liveAllocations;
    const st = start(ss, state(`${TINY}&normalizers=softmax,softpick,ssmax`));
    st.step(0); st.step(0); st.step(0); st.step(0);
    st.stop();
    expect(ss.heapStats().liveAllocations).toBe(before);
    expect(st.data().runs.length).toBe(3);
    expect(st.step(Infinity)).toBe(false);
    expect(() => st.save()).toThrow(/stopped/);
  });
});
