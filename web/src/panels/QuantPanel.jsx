// Panel 4: quantization. A distribution of values (weights, an attention
// row, or the Normalizers tab's softmax) as a histogram with the levels the
// chosen quantizer lands on drawn over it; the scheme's parameters come from
// the registry (bits, symmetric, group, rounding, base, codebook, ...); the
// error measures and the effect on a softmax output (before / after, KL,
// argmax kept) are recomputed by the wasm kernels on every change.
import { useMemo } from 'preact/hooks';
import { scaleLinear } from 'd3-scale';
import { ParamControls } from '../components/ParamControls.jsx';
import { paramHandlers } from '../lib/params.js';
import { BarChart } from '../components/BarChart.jsx';
import { fmt } from '../lib/format.js';
import { QUANT_SOURCES, QUANT_N, quantSource, histogram, levels, quantizeWithMetrics, softmaxEffect, fitParams } from '../lib/quantView.js';
import { quantState } from '../state/url.js';

const W = 700, H = 260, L = 46, R = 12, T = 14, B = 36, BINS = 64;
const EFFECT_MAX = 64; // bars drawn for the softmax effect

export function QuantPanel({ ss, state, update }) {
  const q = quantState(state);
  const setQ = (patch) => update((st) => ({ quant: { ...quantState(st), ...patch } }));
  const kernels = useMemo(() => ss.kernels('quantizer'), [ss]);
  const kernel = kernels.find((k) => k.name === q.scheme) ?? kernels[0];
  const colors = useMemo(() => new Map([[kernel.name, 'var(--accent, #2a6fdb)']]), [kernel]);

  const x = useMemo(() => quantSource(ss, q.source, q.n, q.seed, state.logits), [ss, q.source, q.n, q.seed, state.logits]);
  const isProbs = q.source !== 'weights';
  const params = fitParams(kernel, state.params, x.length);
  const result = useMemo(() => {
    try {
      const r = quantizeWithMetrics(ss, kernel.name, x, params);
      const effect = softmaxEffect(ss, kernel.name, fitParams(kernel, state.params, isProbs ? x.length : state.logits.length),
        isProbs ? x : null, isProbs, state.logits);
      return { ...r, effect };
    } catch (e) {
      return { error: e.message };
    }
  }, [ss, kernel, x, JSON.stringify(params), state.logits]);

  const { setParam, resetParam } = paramHandlers(update);
  const logX = isProbs && q.log;

  return (
    <section class="panel" aria-labelledby="tab-quantization">
      <p class="caption">
        A <b>quantizer</b> stores each value as a small integer <i>code</i> and reads it back on a grid of <i>levels</i>.
        The histogram shows the values; each vertical line is a level the quantizer used (its height: how many values
        landed there). Post-softmax values are power-law: most of them are tiny, which is what power-of-two and
        logarithmic quantizers are for. Every number here is computed by the WebAssembly kernels.
      </p>
      <div class="top-row">
        <div class="card editor-card">
          {result.error ? <p class="error" role="alert" data-error={kernel.name}>{result.error}</p> : (
            <>
              <Histogram x={x} y={result.output} log={logX} />
              <dl class="metrics" data-quant-metrics>
                <Metric name="mse" label="MSE" v={result.metrics.mse} />
                <Metric name="max_error" label="max error" v={result.metrics.max_error} />
                <Metric name="sqnr_db" label="SQNR" v={result.metrics.sqnr_db} unit="dB" />
                <Metric name="levels" label="levels used" v={levels(result.output).length} />
              </dl>
            </>
          )}
          <div class="ref"><code class="formula">{kernel.formula}</code>{kernel.paper && <p class="paper">{kernel.paper}</p>}</div>
        </div>
        <div class="card side-card">
          <h2>Values</h2>
          <div class="controls column">
            <label class="inline">source{' '}
              <select id="quant-source" value={q.source} onChange={(e) => setQ({ source: e.currentTarget.value })}>
                {Object.entries(QUANT_SOURCES).map(([id, label]) => <option key={id} value={id}>{label}</option>)}
              </select>
            </label>
            {q.source !== 'softmax' && (
              <label class="inline">n = {q.n}{' '}
                <input id="quant-n" type="range" min={Math.log2(QUANT_N.min)} max={Math.log2(QUANT_N.max)} step={1}
                  value={Math.log2(q.n)} onInput={(e) => setQ({ n: 2 ** Number(e.currentTarget.value) })} aria-label="number of values" />
              </label>
            )}
            {q.source !== 'softmax' && (
              <button type="button" onClick={() => setQ({ seed: q.seed + 1 })}>Reroll <span class="muted">seed {q.seed}</span></button>
            )}
            {isProbs && (
              <label class="inline"><input id="quant-log" type="checkbox" checked={q.log} onChange={(e) => setQ({ log: e.currentTarget.checked })} /> log10 axis</label>
            )}
          </div>
          <h2>Scheme</h2>
          <select id="quant-scheme" value={kernel.name} onChange={(e) => setQ({ scheme: e.currentTarget.value })}>
            {kernels.map((k) => <option key={k.name} value={k.name} title={k.summary}>{k.name}</option>)}
          </select>
          <p class="summary-line">{kernel.summary}</p>
          <ParamControls kernels={[kernel]} values={state.params} colors={colors} onSet={setParam} onReset={resetParam} idPrefix="quant" />
        </div>
      </div>
      {!result.error && <Effect e={result.effect} />}
    </section>
  );
}

function Metric({ name, label, v, unit }) {
  return (
    <div class="metric">
      <dt>{label}</dt>
      <dd><span data-metric={name}>{v === null ? '∞' : typeof v === 'number' ? fmt(v, 4) : String(v)}</span>{unit && <span class="sub">{unit}</span>}</dd>
    </div>
  );
}

function Histogram({ x, y, log }) {
  const h = histogram(x, BINS, log);
  const lv = levels(y).filter((l) => !log || l.value > 0);
  const pos = (v) => (log ? Math.log10(v) : v);
  // The axis spans the values and every level (a level may lie past the
  // largest value, e.g. a symmetric grid's top).
  const lvPos = lv.map((l) => pos(l.value));
  const xs = scaleLinear().domain([Math.min(h.lo, ...lvPos), Math.max(h.hi, ...lvPos)]).range([L, W - R]);
  const maxC = Math.max(1, ...h.counts), maxL = Math.max(1, ...lv.map((l) => l.count));
  const yc = scaleLinear().domain([0, maxC]).range([H - B, T]);
  const binW = (h.hi - h.lo) / BINS, band = xs(h.lo + binW) - xs(h.lo);
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label="histogram of the values with the quantization levels" data-chart="quant-histogram">
      {yc.ticks(4).map((t) => (
        <g key={t}>
          <line class="grid" x1={L} x2={W - R} y1={yc(t)} y2={yc(t)} />
          <text class="tick" x={L - 6} y={yc(t)} dy="0.32em" text-anchor="end">{t}</text>
        </g>
      ))}
      <g data-bins>
        {h.counts.map((c, i) => (
          <rect key={i} class="bar" x={xs(h.lo + i * binW)} y={yc(c)} width={Math.max(0.5, band - 0.5)} height={H - B - yc(c)} fill="#9bb7e0" data-count={c} />
        ))}
      </g>
      <g data-levels={lv.length}>
        {lv.map((l) => {
          const px = xs(pos(l.value));
          return (
            <line key={l.value} class="level" x1={px} x2={px} y1={H - B} y2={T + (H - B - T) * (1 - l.count / maxL)}
              stroke="#c0392b" stroke-width="1.5" data-level={String(l.value)} data-count={l.count}>
              <title>{`level ${l.value}: ${l.count} values`}</title>
            </line>
          );
        })}
      </g>
      {xs.ticks(6).map((t) => (
        <text key={t} class="tick" x={xs(t)} y={H - B + 14} text-anchor="middle">{log ? `1e${t}` : fmt(t, 3)}</text>
      ))}
      <text class="axis-label" x={L + (W - L - R) / 2} y={H - 4} text-anchor="middle">
        {log ? 'value (log10; exact zeros not shown)' : 'value'} · red: levels (height ∝ values on it)
      </text>
      {log && h.zeros > 0 && <text class="tick" x={W - R} y={T} text-anchor="end">{h.zeros} zeros</text>}
    </svg>
  );
}

function Effect({ e }) {
  const m = Math.min(EFFECT_MAX, e.before.length);
  // The largest entries, in the order of `before` (the ones that matter).
  const idx = Array.from(e.before.keys()).sort((a, b) => e.before[b] - e.before[a]).slice(0, m).sort((a, b) => a - b);
  const pick = (v) => Float32Array.from(idx, (i) => v[i]);
  const top = Math.max(...pick(e.before), ...pick(e.after), 1e-9);
  return (
    <div class="card" data-effect={e.where}>
      <h2>Effect on a softmax output <span class="muted">
        {e.where === 'post' ? '(the probabilities are quantized, then renormalized)' : "(the Normalizers tab's logits are quantized before the softmax)"}
      </span></h2>
      <div class="charts">
        <div><h3>before</h3><BarChart kernel="before" kind="probs" values={pick(e.before)} domain={[0, top]} color="#2a6fdb" /></div>
        <div><h3>after</h3><BarChart kernel="after" kind="probs" values={pick(e.after)} domain={[0, top]} color="#c0392b" /></div>
      </div>
      <dl class="metrics">
        <Metric name="kl" label="KL(before ‖ after)" v={e.kl === null ? '∞ (entries rounded to 0)' : e.kl} unit={e.kl === null ? '' : 'nats'} />
        <Metric name="argmax_kept" label="argmax" v={e.argmaxKept ? 'kept' : 'changed'} />
      </dl>
      {e.before.length > m && <p class="help">Showing the {m} largest of {e.before.length} entries.</p>}
    </div>
  );
}
