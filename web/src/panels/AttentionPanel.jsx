// Panel 6: attention. An example input (a sentence with tiny embeddings, a
// copy task, random Q / K) through scaled dot-product attention with each
// chosen normalizer, and through the chosen linear forms, as heat maps side
// by side (exact zeros are white, so sparsity shows). Hovering a row shows
// its distribution and measures in every map; sliders set the normalizers'
// parameters (temperature, alpha, ...), the sequence length and the score
// scale; a toggle shows the rows after post-softmax quantization. Each map
// says how far it is from exact softmax attention.
import { useMemo, useRef, useState, useLayoutEffect } from 'preact/hooks';
import { ParamControls } from '../components/ParamControls.jsx';
import { NormalizerChooser } from '../components/NormalizerChooser.jsx';
import { BarChart } from '../components/BarChart.jsx';
import { Slider } from '../components/Slider.jsx';
import { paramHandlers } from '../lib/params.js';
import { fmt } from '../lib/format.js';
import { computePanels, heatPixels, exampleOf } from '../lib/attentionView.js';
import { attnState, ATTN_EXAMPLES, ATTN_LINEAR, ATTN_QUANT, ATTN_LIMITS } from '../state/url.js';

const MAP = 240; // heat-map size in CSS pixels

export function AttentionPanel({ ss, normalizers, colors, state, update }) {
  const a = attnState(state);
  const setA = (patch) => update((st) => ({ attn: { ...attnState(st), ...patch } }));
  const usable = normalizers.filter((k) => k.output !== 'log_probs');
  const chosen = usable.filter((k) => a.norms.includes(k.name));
  const [hover, setHover] = useState(null); // a query row
  const ex = useMemo(() => exampleOf(a), [a.example, a.n, a.seed]);
  const view = useMemo(() => {
    try {
      return computePanels(ss, a, state.params, ex);
    } catch (e) {
      return { error: e.message, panels: [] };
    }
  }, [ss, ex, JSON.stringify(a), JSON.stringify(state.params)]);
  const { setParam, resetParam } = paramHandlers(update);
  const toggleNorm = (name, on) => setA({ norms: on ? [...a.norms, name] : a.norms.filter((x) => x !== name) });
  const toggleLinear = (name, on) => setA({ linear: on ? [...a.linear, name] : a.linear.filter((x) => x !== name) });
  const row = hover != null && hover < (view.n ?? 0) ? hover : null;

  return (
    <section class="panel" aria-labelledby="tab-attention" data-n={view.n}>
      <p class="caption">
        Scaled dot-product attention <code>A = normalize(scale·QKᵀ)</code>, <code>out = AV</code>, with each chosen
        normalizer in softmax's place, and linear-attention forms that avoid the n × n matrix. White cells are
        exact zeros. <b>Hover</b> a row to see its distribution. Every number is computed by the WebAssembly kernels.
      </p>
      {view.error && <p class="error" role="alert">{view.error}</p>}
      <div class="top-row">
        <div class="card editor-card">
          <div class="attn-maps">
            {view.panels.map((p) => (
              <AttnMap key={p.id} p={p} n={view.n} m={view.m} tokens={ex.tokens} color={colors.get(p.id) ?? '#555'}
                row={row} onHover={setHover} />
            ))}
            {view.panels.length === 0 && <p class="help">Choose a normalizer or a linear form.</p>}
          </div>
          {row != null && <RowDetail panels={view.panels} row={row} m={view.m} tokens={ex.tokens} colors={colors} />}
        </div>
        <div class="card side-card">
          <h2>Input</h2>
          <div class="controls column">
            <label class="inline">example{' '}
              <select id="attn-example" value={a.example} onChange={(e) => setA({ example: e.currentTarget.value })}>
                {ATTN_EXAMPLES.map((x) => <option key={x} value={x}>{x}</option>)}
              </select>
            </label>
            <span class="muted">{ex.label}</span>
            {a.example !== 'sentence' && (
              <Slider id="attn-n" label="sequence length n" value={a.n} min={ATTN_LIMITS.n.min} max={ATTN_LIMITS.n.max} log integer
                onInput={(v) => setA({ n: v })} />
            )}
            <Slider id="attn-scale" label="score scale (× 1/√d)" value={a.scale} min={ATTN_LIMITS.scale.min} max={ATTN_LIMITS.scale.max} log
              onInput={(v) => setA({ scale: v })} onReset={() => setA({ scale: 1 })} isDefault={a.scale === 1} />
            <label class="inline"><input id="attn-causal" type="checkbox" checked={a.causal} onChange={(e) => setA({ causal: e.currentTarget.checked })} /> causal mask</label>
            {a.example !== 'sentence' && (
              <button type="button" onClick={() => setA({ seed: a.seed + 1 })}>Reroll <span class="muted">seed {a.seed}</span></button>
            )}
          </div>
          <h2>Normalizers</h2>
          <NormalizerChooser normalizers={usable} selected={a.norms} colors={colors} onToggle={toggleNorm} compact />
          <ParamControls kernels={chosen} values={state.params} colors={colors} onSet={setParam} onReset={resetParam} idPrefix="attn" />
          <h2>Linear forms</h2>
          <div class="controls">
            {ATTN_LINEAR.map((x) => (
              <label key={x} class="inline"><input type="checkbox" data-linear={x} checked={a.linear.includes(x)}
                onChange={(e) => toggleLinear(x, e.currentTarget.checked)} /> {x}</label>
            ))}
          </div>
          <h2>Post-softmax quantization</h2>
          <div class="controls">
            <select id="attn-quant" value={a.quant} onChange={(e) => setA({ quant: e.currentTarget.value })}>
              {ATTN_QUANT.map((x) => <option key={x} value={x}>{x === 'none' ? 'off' : x}</option>)}
            </select>
            {a.quant !== 'none' && (
              <label class="inline">bits{' '}
                <input id="attn-bits" type="number" min={ATTN_LIMITS.bits.min} max={ATTN_LIMITS.bits.max} value={a.bits}
                  onChange={(e) => setA({ bits: Math.min(ATTN_LIMITS.bits.max, Math.max(ATTN_LIMITS.bits.min, Math.round(Number(e.currentTarget.value) || 4))) })} />
              </label>
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

function AttnMap({ p, n, m, tokens, color, row, onHover }) {
  const ref = useRef(null);
  // layout effect: the map is drawn in the same frame as the render
  useLayoutEffect(() => {
    if (!ref.current || p.error) return;
    const g = ref.current.getContext('2d');
    g.putImageData(new ImageData(heatPixels(p.A, n, m), m, n), 0, 0);
  }, [p, n, m]);
  const mean = (c) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += p.rows[4 * i + c];
    return s / n;
  };
  const pick = (e) => {
    const r = e.currentTarget.getBoundingClientRect();
    onHover(Math.min(n - 1, Math.max(0, Math.floor(((e.clientY - r.top) / r.height) * n))));
  };
  return (
    <div class="attn-map" data-map={p.id} data-kind={p.kind} style={{ borderTopColor: color }}>
      <h3>{p.label} {p.kind === 'linear' && <span class="muted">linear</span>}</h3>
      {p.error ? <p class="error" data-error={p.id}>{p.error}</p> : (
        <>
          <div class="attn-canvas">
            <canvas ref={ref} width={m} height={n} style={{ width: `${MAP}px`, height: `${MAP}px`, imageRendering: 'pixelated' }}
              onMouseMove={pick} onMouseLeave={() => onHover(null)} aria-label={`${p.label}: attention matrix, ${n} × ${m}`} />
            {row != null && <div class="attn-row-mark" style={{ top: `${((row + 0.5) / n) * MAP}px` }} />}
          </div>
          {n <= 16 && <p class="attn-tokens muted">{tokens.join(' ')}</p>}
          <dl class="metrics attn-metrics">
            <div class="metric"><dt>entropy</dt><dd data-metric="entropy">{fmt(mean(0), 3)}</dd></div>
            <div class="metric"><dt>exact zeros</dt><dd data-metric="zeros">{fmt(100 * mean(1), 3)}%</dd></div>
            <div class="metric"><dt>max weight</dt><dd data-metric="max">{fmt(mean(2), 3)}</dd></div>
            <div class="metric"><dt>sink (key 0)</dt><dd data-metric="sink">{fmt(mean(3), 3)}</dd></div>
            <div class="metric"><dt>TV to softmax</dt><dd data-metric="tv">{fmt(p.tv, 3)}</dd></div>
            <div class="metric"><dt>out error vs softmax</dt><dd data-metric="out-error">{fmt(p.outErr, 3)}</dd></div>
          </dl>
        </>
      )}
    </div>
  );
}

function RowDetail({ panels, row, m, tokens, colors }) {
  const shown = panels.filter((p) => !p.error);
  let hi = 1e-9, lo = 0;
  for (const p of shown) for (let j = 0; j < m; j++) hi = Math.max(hi, p.A[row * m + j]), lo = Math.min(lo, p.A[row * m + j]);
  return (
    <div class="attn-row" data-row={row}>
      <h3>Row {row}{tokens[row] ? ` (${tokens[row]})` : ''}: its weights over the {m} keys</h3>
      <div class="charts">
        {shown.map((p) => (
          <div key={p.id} data-row-of={p.id}>
            <h3>{p.label} <span class="muted">entropy {fmt(p.rows[4 * row], 3)}, zeros {fmt(100 * p.rows[4 * row + 1], 3)}%, max {fmt(p.rows[4 * row + 2], 3)}</span></h3>
            <BarChart kernel={p.id} kind={p.weights ? 'weights' : 'probs'} values={p.A.subarray(row * m, (row + 1) * m)} domain={[lo, hi]} color={colors.get(p.id) ?? '#555'} />
          </div>
        ))}
      </div>
    </div>
  );
}
