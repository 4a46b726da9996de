// The language model of analysis/language.js (issue 35): corpora as tokens,
// training that learns, validation in nats and bits, seeded generation
// through the decoding stages, inspection, the model file, and bad input
// (Errors naming the argument; the heap untouched).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createLanguageModel, loadLanguageModel, grammarText, textVocab, LANGUAGE_LIMITS, runPipeline } from '../../wasm/analysis/index.js';
import { loadBuilds, BUILDS } from './support/builds.js';
import { thrown } from './support/thrown.js';

let ss;
beforeAll(async () => { ss = await loadBuilds(); });

// A small model that learns the grammar corpus in a few seconds.
const SMALL = { corpus: 'grammar', corpusChars: 20000, d: 32, heads: 2, layers: 2, context: 32, batch: 8, steps: 150, warmup: 10, seed: 2,
  optimizerParams: { lr: 3e-3 } };
const STAGES = { on: ['temperature', 'top_p'], stages: { temperature: 0.8, top_p: 0.9 } };

describe('language: corpora and vocabularies', () => {
  it('the grammar corpus is the same text in every build, of the asked length, in its stated alphabet', () => {
    const t = grammarText(ss.simd, 5000, 3);
    expect(t).toHaveLength(5000);
    expect(grammarText(ss.scalar, 5000, 3)).toBe(t);
    expect(grammarText(ss.relaxed, 5000, 3)).toBe(t);
    expect(grammarText(ss.simd, 5000, 4)).not.toBe(t);
    expect(/^[A-Za-z .,\n]+$/.test(t)).toBe(true);
  });

  it('a text\'s alphabet sorted by code point, BOS last; past the symbol limit, bytes', () => {
    const v = textVocab('banana!');
    expect(v.symbols).toEqual(['!', 'a', 'b', 'n', '']);
    expect([v.size, v.bos, v.bytes]).toEqual([5, 4, false]);
    const many = Array.from({ length: LANGUAGE_LIMITS.symbols + 1 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
    const b = textVocab(many);
    expect([b.bytes, b.size, b.bos]).toEqual([true, 257, 256]);
  });

  it('encode and decode are inverse on the text (characters and bytes), BOS decodes to nothing', () => {
    const lm = createLanguageModel(ss.simd, { ...SMALL, corpus: 'text', text: 'héllo wörld, hello world. '.repeat(20), steps: 1 });
    const ids = lm.encode('wörld hello');
    expect(lm.decode(ids)).toBe('wörld hello');
    expect(lm.decode([lm.vocab.bos, ...ids])).toBe('wörld hello');
    const e = thrown(() => lm.encode('hello?', 'prompt'));
    expect([e.argument, /"\?"/.test(e.message)]).toEqual(['prompt', true]);
    lm.free();
  });
});

describe('language: training and validation', () => {
  it.each(['simd', 'relaxed'])('%s: the grammar corpus, 300 steps: validation loss below 2.7 nats per character (unigram 3.0, uniform ln 48 = 3.9)', (b) => {
    const lm = createLanguageModel(ss[b], { ...SMALL, steps: 300 });
    const before = lm.validate({ windows: 16 });
    lm.step(300);
    const after = lm.validate({ windows: 16 });
    lm.free();
    expect(before.loss).toBeGreaterThan(3.5);
    expect(after.loss).toBeLessThan(2.7);
    expect(after.bits).toBeCloseTo(after.loss / Math.LN2, 12);
    expect(after.positionLoss).toHaveLength(SMALL.context);
    const mean = after.positionLoss.reduce((s, v) => s + v, 0) / SMALL.context;
    expect(Math.abs(mean - after.loss)).toBeLessThan(1e-5 * (1 + after.loss));
  });

  it.each(BUILDS)('%s: a rerun from the same seed gives the same losses, generation and file, bit for bit', (b) => {
    const run = () => {
      const lm = createLanguageModel(ss[b], { ...SMALL, steps: 30 });
      const last = lm.step(30);
      const after = lm.validate({ windows: 8 });
      const g = lm.generate({ prompt: 'The ', length: 40, ...STAGES, seed: 7 });
      const bytes = lm.save();
      lm.free();
      return { last, after, g, bytes };
    };
    const a = run(), again = run();
    expect(again.last.loss).toBe(a.last.loss);
    expect(again.after.loss).toBe(a.after.loss);
    expect(again.g.text).toBe(a.g.text);
    expect(again.bytes).toEqual(a.bytes);
  });

  it('bigram_backcopy: tokens as letters, its triggers first, BOS; the loss falls', () => {
    const lm = createLanguageModel(ss.simd, { corpus: 'bigram_backcopy', values: 16, keys: 2, d: 32, heads: 1, layers: 1, context: 32,
      batch: 16, steps: 200, positions: 'rope', norm: 'rmsnorm', tied: false, seed: 1 });
    expect(lm.vocab.symbols.slice(0, 3)).toEqual(['a', 'b', 'c']);
    expect([lm.vocab.size, lm.vocab.bos, lm.vocab.triggers]).toEqual([17, 16, [0, 1]]);
    const before = lm.validate({ windows: 32 }).loss;
    lm.step(200);
    const after = lm.validate({ windows: 32 }).loss;
    expect(after).toBeLessThan(before - 0.5);
    const ins = lm.inspect({ seed: 3 });
    expect(ins.tokens[0]).toBe(lm.vocab.bos);
    expect(ins.headStats).toHaveLength(1);
    const h = ins.headStats[0];
    for (const v of [h.bosMass, h.bosMassTrigger, h.bosMassOther]) expect(v).toBeGreaterThanOrEqual(0), expect(v).toBeLessThanOrEqual(1);
    expect(ins.residual).toHaveLength(2);
    lm.free();
  });
});

describe('language: generation', () => {
  let lm;
  beforeAll(() => { lm = createLanguageModel(ss.simd, { ...SMALL, steps: 60 }); lm.step(60); });
  afterAll(() => lm.free());

  it('the same seed draws the same text; another seed another; each step reports the drawn token among its candidates', () => {
    const a = lm.generate({ prompt: 'A ', length: 60, ...STAGES, seed: 1 });
    expect(lm.generate({ prompt: 'A ', length: 60, ...STAGES, seed: 1 }).text).toBe(a.text);
    expect(lm.generate({ prompt: 'A ', length: 60, ...STAGES, seed: 2 }).text).not.toBe(a.text);
    expect(a.text).toHaveLength(60);
    expect(a.steps).toHaveLength(60);
    for (const s of a.steps) {
      const c = s.top.find((x) => x.token === s.token);
      expect(c).toBeDefined();
      expect(c.final).toBeGreaterThan(0); // a drawn token has mass in the final distribution
      // the candidates come by base probability, each stage's probabilities are a distribution's
      for (let i = 1; i < Math.min(5, s.top.length); i++) expect(s.top[i - 1].base).toBeGreaterThanOrEqual(s.top[i].base);
      for (const x of s.top) expect(Object.keys(x.stages)).toEqual(['temperature', 'top_p']);
    }
  });

  it('top-p keeps at most the tokens temperature keeps, and its final mass renormalises the kept set', () => {
    const g = lm.generate({ prompt: 'The ', length: 5, ...STAGES, seed: 3, top: 64 });
    for (const s of g.steps) {
      const sum = s.top.reduce((acc, x) => acc + x.final, 0);
      expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      expect(s.kept).toBeLessThanOrEqual(lm.vocab.size);
    }
  });

  it('across builds the same token is drawn from the same final distribution (ss.categorical under the same seed and stream)', () => {
    const probs = Float32Array.from([0.1, 0.2, 0.3, 0.4]);
    const drawn = BUILDS.map((b) => ss[b].categorical(probs, { seed: 9, stream: 4, draws: 1 })[0]);
    expect(new Set(drawn).size).toBe(1);
  });

  it('bad generation options throw naming them', () => {
    expect(thrown(() => lm.generate({ prompt: 'Zebra#' })).argument).toBe('options.prompt');
    expect(thrown(() => lm.generate({ length: 0 })).argument).toBe('options.length');
    expect(thrown(() => lm.generate({ length: LANGUAGE_LIMITS.generate + 1 })).argument).toBe('options.length');
    expect(thrown(() => lm.generate({ on: ['bogus'] })).argument).toBe('options.on');
    expect(thrown(() => lm.generate({ stages: { temperature: NaN } })).argument).toBe('options.stages');
    expect(thrown(() => lm.generate({ seed: -1 })).argument).toBe('options.seed');
    expect(thrown(() => lm.generate({ colour: 1 })).argument).toBe('options.colour');
  });
});

describe('language: the model file', () => {
  let lm, bytes;
  beforeAll(() => { lm = createLanguageModel(ss.simd, { ...SMALL, steps: 30 }); lm.step(30); bytes = lm.save(); });
  afterAll(() => lm.free());

  it('save -> load: the same parameters, the same logits, the same generation', () => {
    const back = loadLanguageModel(ss.simd, bytes);
    expect(back.model.params()).toEqual(lm.model.params());
    const toks = lm.encode('The cat.');
    expect(back.model.forwardTokens(toks, { logits: true }).logits).toEqual(lm.model.forwardTokens(toks, { logits: true }).logits);
    const opts = { prompt: 'The ', length: 30, ...STAGES, seed: 4 };
    expect(back.generate(opts).text).toBe(lm.generate(opts).text);
    back.free();
  });

  it('a text-corpus model loaded without its text generates but does not train', () => {
    const t = createLanguageModel(ss.simd, { ...SMALL, corpus: 'text', text: 'to be or not to be, that is the question. '.repeat(30), steps: 5 });
    t.step(5);
    const back = loadLanguageModel(ss.simd, t.save());
    expect(back.generate({ prompt: 'to ', length: 10, seed: 1 }).text).toBe(t.generate({ prompt: 'to ', length: 10, seed: 1 }).text);
    expect(thrown(() => back.step(1)).argument).toBe('this');
    t.free();
    back.free();
  });

  it('truncated, foreign, hostile and corrupt files throw naming file, and leave the heap as it was', () => {
    const s = ss.simd, before = s.heapStats().liveAllocations;
    const header = (mutate) => {
      const len = new DataView(bytes.buffer).getUint32(8, true);
      const h = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + len)));
      mutate(h);
      const hb = new TextEncoder().encode(JSON.stringify(h));
      const pad = (4 - ((12 + hb.length) % 4)) % 4;
      const out = new Uint8Array(12 + hb.length + pad + (bytes.length - 12 - len - ((4 - ((12 + len) % 4)) % 4)));
      out.set(bytes.subarray(0, 12));
      new DataView(out.buffer).setUint32(8, hb.length, true);
      out.set(hb, 12);
      out.set(bytes.subarray(bytes.length - (out.length - 12 - hb.length - pad)), 12 + hb.length + pad);
      return out;
    };
    const nan = bytes.slice();
    new DataView(nan.buffer).setFloat32(nan.length - 8, NaN, true);
    const cases = [
      bytes.subarray(0, 8), bytes.subarray(0, bytes.length - 4), new Uint8Array(64),
      Uint8Array.from([...new TextEncoder().encode('SSLM'), 2, 0, 0, 0, 0, 0, 0, 0]),
      Uint8Array.from([...new TextEncoder().encode('SSLM'), 1, 0, 0, 0, 255, 255, 255, 127]),
      header((h) => { h.options.d = 1e9; }), header((h) => { h.options.layers = NaN; }), header((h) => { h.options.corpusChars = 1e300; }),
      header((h) => { h.vocab.symbols = ['<b>x</b>', '']; }), header((h) => { h.vocab.symbols.push('z'); }),
      header((h) => { h.paramCount = 1; }), header((h) => { h.options = '<script>'; }), nan,
    ];
    for (const c of cases) {
      const e = thrown(() => loadLanguageModel(s, c));
      expect(e.argument, e.message).toBe('file');
    }
    expect(thrown(() => loadLanguageModel(s, 'SSLM')).argument).toBe('file');
    expect(s.heapStats().liveAllocations).toBe(before);
  });
});

describe('language: bad options', () => {
  it('each throws naming its option, and leaks nothing', () => {
    const s = ss.simd, before = s.heapStats().liveAllocations;
    const cases = [
      [{ corpus: 'poems' }, 'options.corpus'], [{ corpus: 'text' }, 'options.text'], [{ corpus: 'text', text: '' }, 'options.text'],
      [{ corpus: 'text', text: 'abc' }, 'options.text'], [{ text: 'abc' }, 'options.text'], [{ context: 0 }, 'options.context'],
      [{ context: 2000 }, 'options.context'], [{ validation: 0.9 }, 'options.validation'], [{ bos: 'yes' }, 'options.bos'],
      [{ d: 1000 }, 'options.d'], [{ layers: 9 }, 'options.layers'], [{ heads: 3 }, 'options.heads'], [{ normalizer: 'nope' }, 'options.normalizer'],
      [{ corpus: 'bigram_backcopy', keys: 64 }, 'options.keys'], [{ colour: 'red' }, 'options.colour'],
    ];
    for (const [o, arg] of cases) {
      const e = thrown(() => createLanguageModel(s, { ...SMALL, ...o }));
      expect(e.argument, `${JSON.stringify(o)}: ${e.message}`).toBe(arg);
    }
    const big = { length: LANGUAGE_LIMITS.textChars + 1 };
    expect(thrown(() => createLanguageModel(s, { corpus: 'text', text: 'a'.repeat(big.length) })).argument).toBe('options.text');
    expect(s.heapStats().liveAllocations).toBe(before);
  });
});

describe('language: generation by the decoder\'s cache', () => {
  it('is the whole-window forward\'s generation, also past the context (the window shifts: BOS and the last half of the context, then grows)', () => {
    const s = ss.simd;
    const lm = createLanguageModel(s, { ...SMALL, context: 16, steps: 40 });
    lm.step(40);
    const opts = { prompt: 'The ', length: 50, ...STAGES, seed: 5, top: 0 };
    const g = lm.generate(opts);
    // the reference: every step a forward of the whole window (forwardTokens), the same pipeline and draw; the window
    // holds BOS and the tokens from `start` on, at most the context (16): when full it keeps BOS and the last 7
    const seq = Array.from(lm.encode(opts.prompt)), want = [];
    let start = Math.max(0, seq.length - 15);
    for (let t = 0; t < opts.length; t++) {
      if (seq.length - start + 1 > 16) start = seq.length - 7;
      const win = [lm.vocab.bos, ...seq.slice(start)];
      const { logits } = lm.model.forwardTokens(win, { logits: true });
      const x = logits.subarray(logits.length - lm.vocab.size);
      const r = runPipeline(s, x, { on: ['temperature', 'top_p'], stages: STAGES.stages });
      const tok = s.categorical(r.final, { seed: opts.seed, stream: t, draws: 1 })[0];
      seq.push(tok);
      want.push(tok);
    }
    expect(Array.from(g.tokens)).toEqual(want);
    lm.free();
  });

  it('a decoder session: feed() returns forwardTokens\' last row, refuses past maxN, frees its memory', () => {
    const s = ss.simd, before = s.heapStats().liveAllocations;
    const lm = createLanguageModel(s, { ...SMALL, context: 8, steps: 1 });
    const dec = lm.model.decoder();
    expect(dec.maxN).toBe(8);
    const toks = Array.from(lm.encode('The cat'));
    let last;
    for (const t of toks) last = dec.feed(t);
    const full = lm.model.forwardTokens(toks, { logits: true }).logits;
    expect(last).toEqual(full.subarray(full.length - lm.vocab.size));
    dec.reset();
    expect(dec.feed(toks)).toEqual(last); // the whole prompt in one call
    dec.feed(toks[0]);
    expect(thrown(() => dec.feed(toks[0])).argument).toBe('tokens');
    expect(thrown(() => (dec.reset(), dec.feed(lm.vocab.size))).argument).toBe('tokens');
    expect(thrown(() => dec.feed([])).argument).toBe('tokens');
    const held = s.heapStats().liveAllocations;
    dec.free();
    expect(s.heapStats().liveAllocations).toBe(held - 3); // its cache, its tokens and its logits
    lm.free();
    expect(s.heapStats().liveAllocations).toBe(before);
  });
});
