// The Attention view: an example input through attention with each chosen
// normalizer in softmax's place and through the chosen linear forms, as
// heat maps side by side (the package's figure). Hovering a map's row shows
// that row in every map; a press (or ↑/↓ on a focused map) pins it, in the
// link as row=. Controls: the example, its length and seed, the score scale,
// the causal mask, the normalizers and their parameters, the linear forms
// and theirs, post-softmax quantization; the random-feature kernels mapped
// against softmax and their shared parameters (features, ...); the
// normalizers compared head by head on the dormant example, and the sink
// threshold.
import { useMemo, useState } from 'preact/hooks';
import { fmt, theme as themeOf } from 'softscope/figures';
import { Fields, Field, shown } from '../../controls/Field.jsx';

// The colour the maps give an exact zero (the theme's zeroCell), by name.
const ZERO_COLOUR = { '#ffffff': 'white', '#000000': 'black' };

export function AttentionView({ ss, v, state: s, set, colors, controls, theme, Layout }) {
  const [hover, setHover] = useState(null);
  // the matrices do not depend on the shown row: a new row redraws, it does not recompute
  const key = JSON.stringify({ ...s, row: null });
  const base = useMemo(() => v.compute(ss, { ...s, row: null }), [ss, key]);
  const data = { ...base, row: s.row };
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'attn', controls };
  const field = (k) => v.schema.fields.find((f) => f.key === k);
  const ex = data.example;
  const row = hover ?? s.row;
  const sentence = s.example === 'sentence';
  const linearParams = field('linear_params');
  const shownRow = row !== null && data.panels.find((p) => !p.error);
  const any = (keys) => keys.some((k) => shown(controls, k));
  // the random-feature section shows for its chooser or any of its parameters (a widget's controls="features")
  const rfKeys = ['rf', ...field('rf_params').kernels(s, ss).flatMap((k) => k.params.map((p) => p.name))];

  return (
    <Layout data={data} figure={{ row, detail: true, onHover: setHover, onSelect: (r) => set({ row: r }) }} caption={(
      <p class="caption">
        Scaled dot-product attention <code>A = normalize(scale·QKᵀ)</code>, <code>out = AV</code>, with each chosen
        normalizer in softmax's place, and linear-attention forms that avoid the n × n matrix. Exact zeros are drawn
        in <span data-zero-colour>{ZERO_COLOUR[themeOf(theme).zeroCell] ?? themeOf(theme).zeroCell}</span> (the legend's <i>exact 0</i>). <b>Hover</b> a row
        to see its weights in every map; press it (or focus a map and use ↑/↓) to keep it.
        Below, random-feature attention (FAVOR+'s positive features, trigonometric and hybrid ones) against exact
        softmax attention on one colour scale, and a head with nothing to attend to: softmax must park its weight on the
        first token (an attention <i>sink</i>), softpick can give none. Every number is computed by the WebAssembly kernels.
      </p>
    )} input={any(['example', 'n', 'seed', 'scale', 'causal', 'quant', 'sinks', 'sink_eps', ...rfKeys]) && (
      <div class="card editor-card">
        <div class="card-head">
          <h2>Input <span class="muted">{ex.label}</span></h2>
          <div class="controls">
            <Fields {...common} keys={['example']} />
            {!sentence && shown(controls, 'seed') && (
              <button type="button" onClick={() => set({ seed: s.seed + 1 })}>Reroll <span class="muted">seed {s.seed}</span></button>
            )}
          </div>
        </div>
        <div class="field-grid">
          {!sentence && <Fields {...common} keys={['n']} />}
          <Fields {...common} keys={['scale', 'causal']} />
        </div>
        {shown(controls, 'quant') && (
          <>
            <h2>Post-softmax quantization</h2>
            <p class="help">Each normalizer's rows quantized, then renormalized to sum 1 (as a low-precision attention kernel would).</p>
            <div class="controls"><Fields {...common} keys={['quant']} /></div>
          </>
        )}
        {s.quant !== 'none' && <div class="field-grid"><Fields {...common} keys={['quant_params']} /></div>}
        {any(rfKeys) && (
          <>
            <h2>Random features against softmax</h2>
            <p class="help">Each kernel's attention minus softmax attention on this input, at the features set here.</p>
            <Fields {...common} keys={['rf']} />
            {s.rf.length > 0 && <div class="field-grid"><Fields {...common} keys={['rf_params']} /></div>}
          </>
        )}
        {any(['sinks', 'sink_eps']) && (
          <>
            <h2>Heads: sinks and kurtosis</h2>
            <p class="help">A two-head input whose head 0 has nothing to attend to, through each chosen normalizer.</p>
            {s.sinks.length > 0 && <div class="field-grid"><Fields {...common} keys={['sink_eps']} /></div>}
            {shown(controls, 'sinks') && (
              <details class="chooser-more">
                <summary>normalizers compared: {s.sinks.join(', ') || 'none'}</summary>
                <Fields {...common} keys={['sinks']} />
              </details>
            )}
          </>
        )}
      </div>
    )} side={(
      <>
        <Fields {...common} keys={['normalizers', 'params']} />
        <Fields {...common} keys={['linear']} />
        {s.linear.filter((name) => ss.kernel(name, 'attention').params.some((p) => !linearParams.exclude.includes(p.name)))
          .map((name) => <Field key={name} f={{ ...linearParams, current: () => name }} {...common} />)}
      </>
    )} below={(
      <p class="help" role="status" aria-live="polite" data-row-status>
        {shownRow
          ? `Row ${row}${ex.tokens[row] !== undefined && ex.tokens[row] !== String(row) ? ` (${ex.tokens[row]})` : ''}: ${data.panels.filter((p) => !p.error)
            .map((p) => `${p.id} entropy ${fmt(p.rows.entropy[row], 3)}, zeros ${fmt(100 * p.rows.zeros[row], 3)} %`).join('; ')}`
          : `${ex.n} tokens; no row chosen.${data.rf ? ` Error against softmax: ${data.rf.maps.map((e) => `${e.id} ${e.error ? 'not defined here' : fmt(e.relErr, 3)}`).join(', ')}.` : ''}${
            data.heads ? ` Sink rate: ${data.heads.rows.filter((r) => !r.error).map((r) => `${r.id} ${fmt(100 * r.sinkRate, 3)} %`).join(', ')}.` : ''}`}
      </p>
    )} />
  );
}
export default AttentionView;
// The package's view module this View goes with (a widget loads the two together).
export { attention as view } from 'softscope/views/attention';
