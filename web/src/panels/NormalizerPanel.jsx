// Panel 1: a logit vector, the chosen normalizers' outputs side by side, and
// each output's entropy, max and support. Everything is recomputed on every
// change (kernels take microseconds at n <= 64), including each pointermove
// of a drag.
import { scaleLinear } from 'd3-scale';
import { useMemo } from 'preact/hooks';
import { LogitEditor } from '../components/LogitEditor.jsx';
import { BarChart } from '../components/BarChart.jsx';
import { ParamControls } from '../components/ParamControls.jsx';
import { NormalizerChooser } from '../components/NormalizerChooser.jsx';
import { PRESETS, PRESET_NAMES, makePreset, N_MIN, N_MAX } from '../presets.js';
import { paramsFor, paramHandlers } from '../lib/params.js';
import { computeMetrics } from '../lib/metrics.js';
import { fmt } from '../lib/format.js';

const KIND_NOTE = {
  probs: 'probabilities',
  log_probs: 'log-probabilities, drawn as they are (bars point down from 0); metrics use exp(y)',
  weights: 'unnormalized weights (need not sum to 1, may be negative); entropy and support of |w| / Σ|w|',
};

function niceDomain(lo, hi) {
  if (!(hi > lo)) hi = lo + 1;
  return scaleLinear().domain([lo, hi]).nice(4).domain();
}

function maxOf(ys) {
  let m = -Infinity;
  for (const v of ys) if (v > m) m = v;
  return m;
}
function minFinite(ys) {
  let m = Infinity;
  for (const v of ys) if (Number.isFinite(v) && v < m) m = v;
  return m;
}

export function NormalizerPanel({ ss, have, normalizers, colors, state, update }) {
  const chosen = state.normalizers.map((name) => normalizers.find((k) => k.name === name)).filter(Boolean);

  const results = useMemo(() => {
    const x = Float32Array.from(state.logits);
    return chosen.map((info) => {
      const kind = info.output || 'probs';
      try {
        const y = ss.normalize(info.name, x, paramsFor(info, state.params));
        return { info, kind, y, metrics: computeMetrics(ss, have, kind, y) };
      } catch (e) {
        return { info, kind, error: e.message };
      }
    });
  }, [ss, state.logits, state.normalizers.join(','), JSON.stringify(state.params)]);

  // Probability charts share one y axis so that their heights compare directly.
  const probMax = Math.max(0, ...results.filter((r) => r.y && r.kind === 'probs').map((r) => maxOf(r.y)));
  const probDomain = niceDomain(0, probMax > 0 ? probMax : 1);
  const domainFor = (r) => {
    if (r.kind === 'probs') return probDomain;
    if (r.kind === 'log_probs') return niceDomain(Math.min(-1, minFinite(r.y)), 0);
    return niceDomain(Math.min(0, minFinite(r.y)), Math.max(0, maxOf(r.y)));
  };

  const n = state.logits.length;
  const setN = (m) => {
    if (m === n) return;
    if (state.preset !== 'custom') return update({ logits: makePreset(state.preset, m, state.seed) });
    update({ logits: m < n ? state.logits.slice(0, m) : [...state.logits, ...new Array(m - n).fill(0)] });
  };
  const toggle = (name, on) => {
    const set = new Set(state.normalizers);
    on ? set.add(name) : set.delete(name);
    // Keep registry order so that charts do not jump around.
    update({ normalizers: normalizers.map((k) => k.name).filter((k) => set.has(k)) });
  };
  const { setParam, resetParam } = paramHandlers(update);

  return (
    <section class="panel" aria-labelledby="tab-normalizers">
      <p class="caption">
        A <b>normalizer</b> turns a vector of scores (<i>logits</i>) into a distribution. Drag the bars to edit the
        logits, or pick a preset; every chosen normalizer is recomputed by the WebAssembly kernels on each move. Below
        each chart: its <b>entropy</b> (in nats; ln n = {fmt(Math.log(n), 3)} is the uniform maximum), its largest
        probability and its <b>support</b> (how many entries are not exactly zero).
      </p>

      <div class="top-row">
        <div class="card editor-card">
          <div class="card-head">
            <h2>Logits <span class="muted">x ∈ ℝ<sup>{n}</sup></span></h2>
            <div class="controls">
              <label class="inline">
                preset{' '}
                <select
                  value={state.preset}
                  onChange={(e) => {
                    const p = e.currentTarget.value;
                    if (p !== 'custom') update({ preset: p, logits: makePreset(p, n, state.seed) });
                  }}
                >
                  {PRESET_NAMES.map((p) => (
                    <option key={p} value={p} title={PRESETS[p].help}>{PRESETS[p].label}</option>
                  ))}
                  <option value="custom" disabled={state.preset !== 'custom'}>Custom (edited)</option>
                </select>
              </label>
              <button
                type="button"
                disabled={state.preset === 'custom'}
                title="same preset, next seed"
                onClick={() => update({ seed: state.seed + 1, logits: makePreset(state.preset, n, state.seed + 1) })}
              >
                Reroll <span class="muted">seed {state.seed}</span>
              </button>
              <label class="inline n-control">
                n = {n}
                <input type="range" min={N_MIN} max={N_MAX} step={1} value={n} aria-label="number of logits"
                  onInput={(e) => setN(Number(e.currentTarget.value))} />
              </label>
            </div>
          </div>
          <LogitEditor logits={state.logits} onChange={(logits) => update({ logits, preset: 'custom' })} />
          <p class="help">Drag a bar up or down; hold Shift while dragging to paint across bars. Click the strip under a bar
            (or drag into it, or press M) to mask it with −∞, and again to bring it back. Keyboard: ←/→ pick a bar, ↑/↓
            change it. Range ±8.</p>
        </div>

        <div class="card side-card">
          <h2>Normalizers</h2>
          <NormalizerChooser normalizers={normalizers} selected={state.normalizers} colors={colors} onToggle={toggle} compact />
          <h2>Parameters</h2>
          <ParamControls kernels={chosen} values={state.params} colors={colors} onSet={setParam} onReset={resetParam} />
        </div>
      </div>

      {chosen.length === 0 && <p class="empty">Choose at least one normalizer to see its output.</p>}
      <div class="charts">
        {results.map((r) => (
          <OutputCard key={r.info.name} r={r} color={colors.get(r.info.name)} domain={r.y ? domainFor(r) : null}
            params={paramsFor(r.info, state.params)} />
        ))}
      </div>
    </section>
  );
}

function Metric({ label, m, children }) {
  const title = m.error ? m.error : m.source === 'js' ? 'computed in JS: this measure kernel is not in the registry yet' : undefined;
  return (
    <div class="metric" title={title}>
      <dt>{label}{m.source === 'js' && <sup class="muted">js</sup>}</dt>
      <dd>{m.error ? '—' : children}</dd>
    </div>
  );
}

function OutputCard({ r, color, domain, params }) {
  const { info, kind } = r;
  const pnames = Object.keys(params);
  return (
    <article class="card chart-card" data-output={info.name} style={{ '--accent': color }}>
      <header class="chart-head">
        <h3>
          <span class="swatch" style={{ background: color }} /> <code>{info.name}</code>
          {pnames.length > 0 && (
            <span class="muted params"> ({pnames.map((p) => `${p} = ${fmt(params[p], 3)}`).join(', ')})</span>
          )}
        </h3>
        <p class="summary-line">{info.summary}</p>
        <p class="muted kind">{KIND_NOTE[kind] || kind}</p>
      </header>
      {r.error ? (
        <p class="error" role="alert" data-error={info.name}>{r.error}</p>
      ) : (
        <>
          <BarChart kernel={info.name} kind={kind} values={r.y} domain={domain} color={color} highlight={r.metrics.argmax} />
          <dl class="metrics">
            <Metric label="entropy" m={r.metrics.entropy}>
              <span data-metric="entropy">{fmt(r.metrics.entropy.value, 4)}</span><span class="sub">nats</span>
            </Metric>
            <Metric label="max" m={r.metrics.max}>
              <span data-metric="max">{fmt(r.metrics.max.value, 4)}</span><span class="sub">at i = {r.metrics.argmax}</span>
            </Metric>
            <Metric label="support" m={r.metrics.support}>
              <span data-metric="support">{r.metrics.support.value}</span><span class="sub">of n = {r.y.length}</span>
            </Metric>
          </dl>
          {kind === 'weights' && (
            <p class="weights-sum">
              Σ w = <b data-metric="sum">{fmt(r.metrics.sum.value, 5)}</b>
              {r.metrics.negative > 0 && <span class="muted"> · {r.metrics.negative} negative</span>}
            </p>
          )}
        </>
      )}
      <div class="ref">
        <code class="formula">{info.formula}</code>
        {info.paper && <p class="paper">{info.paper}</p>}
      </div>
    </article>
  );
}
