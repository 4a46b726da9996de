// The papers' claims about language models (issue 35), measured on the
// language model of analysis/language.js; run by scripts/claims.js (the
// verdict rule is there). Each claim's `runs` are the createLanguageModel
// options of its runs (a reader passes them to createLanguageModel, or the
// equivalent flags to `softscope train language`); compute(ss, seed)
// trains them under that seed and returns what measures() reads.
import { existsSync, readFileSync } from 'node:fs';
import { createLanguageModel } from '../wasm/analysis/language.js';
import { quantizedParams } from '../wasm/analysis/ptq.js';

const SHAKESPEARE = new URL('../../shared/data/tinyshakespeare.txt', import.meta.url);
const WINDOWS = 8; // inspected validation windows per run (seeds 1 .. WINDOWS)

function train(ss, options, seed, log, label) {
  const t = performance.now(), cpu = process.cpuUsage();
  const lm = createLanguageModel(ss, { ...options, seed });
  const r = lm.step(options.steps);
  const used = process.cpuUsage(cpu);
  log(`${label} seed ${seed}: ${((performance.now() - t) / 1000).toFixed(1)} s (${((used.user + used.system) / 1e6).toFixed(1)} s of CPU)${r.diverged ? ' diverged' : ''}`);
  return lm;
}

// Each run of a claim trained under seed, measured by measure(lm, options) into { run name: value } (a normalizer the
// registry lacks: null), the model freed.
function eachRun(ss, claim, seed, log, measure) {
  const out = {};
  for (const [name, o] of Object.entries(claim.runs)) {
    if (!ss.kernels('normalizer').some((k) => k.name === (o.normalizer ?? 'softmax'))) { out[name] = null; continue; }
    const lm = train(ss, o, seed, log, `${claim.id} ${name}`);
    try {
      out[name] = lm.diverged ? null : measure(lm, o);
    } finally {
      lm.free();
    }
  }
  return out;
}

// The mean over WINDOWS validation windows of each head's BOS measures and of the residual stream's, layer 0's head 0 first.
function sinkMeasures(lm) {
  let other = 0, trigger = 0, kurt = 0, mm = 0, sinks = 0, heads = 0;
  for (let w = 1; w <= WINDOWS; w++) {
    const ins = lm.inspect({ seed: w });
    for (const h of ins.headStats) {
      other += h.bosMassOther ?? h.bosMass;
      trigger += h.bosMassTrigger ?? NaN;
      sinks += h.sink ? 1 : 0;
      heads++;
    }
    const inner = ins.residual.slice(1); // the stream after each layer
    kurt += inner.reduce((a, x) => a + x.kurtosis, 0) / inner.length;
    mm += inner.reduce((a, x) => a + x.maxMedian, 0) / inner.length;
  }
  return { bosOther: other / heads, bosTrigger: trigger / heads, sinkShare: sinks / heads, kurtosis: kurt / WINDOWS, maxMedian: mm / WINDOWS };
}

// Bigram-Backcopy as Guo et al. 2024 train it: 1 layer, 1 head, d 64, V 64, 3 triggers, batch 32.
const BB = { corpus: 'bigram_backcopy', values: 64, keys: 3, d: 64, heads: 1, layers: 1, context: 64, batch: 32, steps: 3000,
  warmup: 0, schedule: 'constant', positions: 'learned', norm: 'layernorm', tied: false };
const BB_RUNS = {
  'softmax+adamw': { ...BB, normalizer: 'softmax', optimizer: 'adamw', optimizerParams: { lr: 1e-3, weight_decay: 0 } },
  'softmax+sgd': { ...BB, normalizer: 'softmax', optimizer: 'sgd', optimizerParams: { lr: 0.5 } },
  'relu_attention+adamw': { ...BB, normalizer: 'relu_attention', optimizer: 'adamw', optimizerParams: { lr: 1e-3, weight_decay: 0 } },
  'softpick+adamw': { ...BB, normalizer: 'softpick', optimizer: 'adamw', optimizerParams: { lr: 1e-3, weight_decay: 0 } },
};

// The grammar corpus with a 2-layer model: activations and quantisation (softpick), length (SSMax).
const GRAMMAR = { corpus: 'grammar', corpusChars: 200000, d: 64, heads: 4, layers: 2, context: 64, batch: 12, steps: 1000, warmup: 50,
  norm: 'layernorm', tied: true };
const LENGTH = { ...GRAMMAR, positions: 'rope', normalizerParams: {} };

function quantLoss(ss, lm, bits) {
  const saved = lm.model.params();
  try {
    lm.model.setParams(quantizedParams(ss, lm.model, { quantizer: 'uniform', bits }));
    return lm.validate({ windows: 32, seed: 1 }).loss;
  } finally {
    lm.model.setParams(saved);
  }
}

export const LANGUAGE_CLAIMS = [
  {
    id: 'lm_sinks',
    ref: '000#82; Guo et al. 2024', papers: ['softpick', 'Guo, Kamath, Bietti et al. 2024, "Active-Dormant Attention Heads: Mechanistically Demystifying Extreme-Token Phenomena in LLMs" (arXiv:2410.13835)'],
    claim: 'on Bigram-Backcopy, softmax attention trained with Adam forms a sink on BOS for non-trigger tokens (a dormant head) and attends past it after a trigger; SGD, ReLU attention and softpick do not form it',
    seeds: [0, 1, 2], // 4 runs of 3000 steps a seed: about 4 minutes of CPU
    runs: BB_RUNS,
    compute(ss, seed, log) {
      return eachRun(ss, this, seed, log, (lm) => ({ ...sinkMeasures(lm), loss: lm.validate({ windows: 32, seed: 1 }).loss }));
    },
    measures: (d) => Object.fromEntries(Object.entries(d).flatMap(([name, m]) => (m ? [
      [`${name}.bosOther`, m.bosOther], [`${name}.bosTrigger`, m.bosTrigger], [`${name}.loss`, m.loss]] : []))),
    tests: [
      { what: 'softmax + Adam: non-trigger queries put more than 0.3 on BOS (a sink)', a: 'softmax+adamw.bosOther', value: 0.3, side: '>' },
      { what: 'softmax + Adam: more on BOS after other tokens than after triggers (dormant vs active)', a: 'softmax+adamw.bosOther', b: 'softmax+adamw.bosTrigger', side: '>' },
      { what: 'SGD forms less of a sink than Adam', a: 'softmax+adamw.bosOther', b: 'softmax+sgd.bosOther', side: '>' },
      { what: 'ReLU attention forms less of a sink than softmax', a: 'softmax+adamw.bosOther', b: 'relu_attention+adamw.bosOther', side: '>' },
      { what: 'softpick forms less of a sink than softmax', a: 'softmax+adamw.bosOther', b: 'softpick+adamw.bosOther', side: '>' },
    ],
  },
  {
    id: 'lm_activations',
    ref: '000#82', papers: ['softpick'],
    claim: 'softpick lowers the kurtosis of the hidden states (no massive activations) and so loses less to low-bit quantisation',
    runs: { softmax: { ...GRAMMAR, normalizer: 'softmax' }, softpick: { ...GRAMMAR, normalizer: 'softpick' } },
    compute(ss, seed, log) {
      return eachRun(ss, this, seed, log, (lm) => {
        const loss = lm.validate({ windows: 32, seed: 1 }).loss;
        return { ...sinkMeasures(lm), loss, q4: quantLoss(ss, lm, 4) - loss, q3: quantLoss(ss, lm, 3) - loss };
      });
    },
    measures: (d) => Object.fromEntries(Object.entries(d).flatMap(([n, m]) => (m ? [[`${n}.kurtosis`, m.kurtosis], [`${n}.maxMedian`, m.maxMedian],
      [`${n}.loss`, m.loss], [`${n}.lossRise@4bits`, m.q4], [`${n}.lossRise@3bits`, m.q3]] : []))),
    tests: [
      { what: 'softpick\'s hidden states have a lower kurtosis', a: 'softmax.kurtosis', b: 'softpick.kurtosis', side: '>' },
      { what: 'softpick loses less at 4 bits (uniform, per row)', a: 'softmax.lossRise@4bits', b: 'softpick.lossRise@4bits', side: '>' },
      { what: 'softpick loses less at 3 bits', a: 'softmax.lossRise@3bits', b: 'softpick.lossRise@3bits', side: '>' },
    ],
  },
  {
    id: 'lm_length',
    ref: '000#28', papers: ['ssmax'],
    claim: 'SSMax has a lower loss than softmax past the training context',
    runs: { softmax: { ...LENGTH, normalizer: 'softmax' }, ssmax: { ...LENGTH, normalizer: 'ssmax', trainNormParams: true } },
    compute(ss, seed, log) {
      return eachRun(ss, this, seed, log, (lm, o) => {
        const p = lm.model.evaluate({ n: 4 * o.context, examples: 16, seed: 1 }).positionLoss, C = o.context;
        const mean = (a, b) => p.slice(a, b).reduce((x, y) => x + y, 0) / (b - a);
        return { inside: mean(0, C), past: mean(C, 4 * C), far: mean(3 * C, 4 * C) };
      });
    },
    measures: (d) => Object.fromEntries(Object.entries(d).flatMap(([n, m]) => (m ? [[`${n}.loss@<ctx`, m.inside], [`${n}.loss@ctx..4ctx`, m.past], [`${n}.loss@3ctx..4ctx`, m.far]] : []))),
    tests: [
      { what: 'SSMax\'s loss past the context (positions 64 .. 255) is lower', a: 'softmax.loss@ctx..4ctx', b: 'ssmax.loss@ctx..4ctx', side: '>' },
      { what: 'and at 3-4 contexts', a: 'softmax.loss@3ctx..4ctx', b: 'ssmax.loss@3ctx..4ctx', side: '>' },
    ],
  },
  {
    id: 'babygpt',
    ref: 'nanoGPT', papers: ['Karpathy, nanoGPT (2022-2023): the "baby GPT" of its README on Tiny Shakespeare'],
    claim: 'nanoGPT\'s baby GPT (4 layers, 4 heads, d 128, context 64, batch 12, AdamW 1e-3 -> 1e-4 cosine, 100 warm-up, beta2 0.99) reaches a validation loss of about 1.88 nats per character after 2000 iterations; the same with each normalizer swapped in',
    seeds: [0],
    runs: Object.fromEntries(['softmax', 'ssmax', 'softpick', 'entmax15'].map((n) => [n, {
      corpus: 'text', text: '../shared/data/tinyshakespeare.txt', bos: false, validation: 0.1, d: 128, heads: 4, layers: 4, context: 64,
      batch: 12, steps: 2000, warmup: 100, minFactor: 0.1, normalizer: n, positions: 'learned', norm: 'layernorm', tied: true }])),
    compute(ss, seed, log) {
      if (!existsSync(SHAKESPEARE)) { log('babygpt: ../shared/data/tinyshakespeare.txt is absent: not run'); return {}; }
      const text = readFileSync(SHAKESPEARE, 'utf8');
      const runs = Object.fromEntries(Object.entries(this.runs).map(([n, o]) => [n, { ...o, text }]));
      return eachRun(ss, { ...this, runs }, seed, log, (lm) => lm.validate({ windows: 2400, seed: 1 }).loss);
    },
    measures: (d) => Object.fromEntries(Object.entries(d).map(([n, v]) => [`${n}.validation`, v])),
    tests: [{ what: 'softmax: validation loss at or below 1.88 after 2000 iterations', a: 'softmax.validation', value: 1.88, side: '<' }],
  },
];
