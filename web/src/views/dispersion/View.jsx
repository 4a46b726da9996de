// The Dispersion view: the sweep of the model, run a slice per animation
// frame with small n first (a control move cancels the running sweep and
// starts a new one; the curves update from left to right, the previous
// values faded until recomputed), the figure's three charts with a hover
// rule, and a readout of every normalizer at the hovered n.
import { useRef, useState } from 'preact/hooks';
import { fmt } from 'softscope/figures';
import { Fields, shown } from '../../controls/Field.jsx';
import { useRunner } from '../../runner/useRunner.js';
import { mergeDisplay } from './display.js';

const KIND_HELP = { constant: 'every distractor is 0', gaussian: 'distractors ~ N(0, scale²)', uniform: 'distractors ~ U[−scale, scale)' };
const cell = (v) => (Number.isFinite(v) ? fmt(v, 4) : '—');

export function DispersionView({ ss, v, state: s, set, colors, controls, Layout }) {
  const sweep = useRunner(v, ss, s);
  const [hover, setHover] = useState(null);
  // The curves as drawn: merged with the previous run's after each frame.
  const drawn = useRef({ display: null, run: 0, frames: -1 });
  const d = drawn.current;
  if (sweep.data && (d.run !== sweep.run || d.frames !== sweep.frames) && sweep.frames > 0) {
    d.display = sweep.data.n.length ? mergeDisplay(d.display, sweep.data) : null;
    d.run = sweep.run;
    d.frames = sweep.frames;
  }
  const { display } = d;
  const progress = sweep.stepper?.progress?.() ?? { done: 0, total: null };
  const status = { state: sweep.status, run: sweep.run, done: progress.done, total: progress.total, computeMs: sweep.computeMs,
    wallMs: sweep.wallMs, frames: sweep.frames, error: sweep.error };
  const invalid = sweep.data?.invalid ?? [];

  // Only the series still chosen, in the order of the current run (once the
  // sweep is done, the figure and its exports take the model's data itself).
  const data = display && sweep.data?.n.length ? {
    n: display.n, invalid, nMax: s.nmax, probLog: s.plog, margin: s.margin,
    series: sweep.data.series.map((o) => display.series.find((x) => x.name === o.name)).filter(Boolean),
  } : { n: [], series: [], invalid, nMax: s.nmax, probLog: s.plog, margin: s.margin };
  const at = data.n.length ? (hover ?? data.n.length - 1) : null;
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'dispersion', controls };
  const log2n = Math.round(Math.log2(s.nmax));

  return (
    <div data-dispersion-status={status.state} data-run={status.run} data-done={status.done ?? 0} data-total={status.total ?? 0}
      data-compute-ms={status.computeMs} data-wall-ms={status.wallMs} data-frames={status.frames}>
      <Layout data={status.state === 'done' ? sweep.data : data.n.length ? data : null} figure={{ hover, onHover: setHover }} complete={status.state === 'done'}
        caption={(
          <p class="caption">
            <b>Dispersion</b>: one <i>key</i> with logit <i>m</i> (the margin) among <i>n</i> − 1 distractors, for <i>n</i> from 2 to
            2<sup>{log2n}</sup>. Softmax <b>disperses</b>: its largest probability falls like e<sup>m</sup>/(e<sup>m</sup> + n − 1) and its
            entropy climbs towards ln n whatever the margin, while sparse normalizers keep a small support and adaptive ones rescale with n.
            Each curve is computed live by the WebAssembly kernels (the same code as <code>softscope sweep dispersion</code>), small n first.
          </p>
        )}
        input={(
          <div class="card">
            <div class="card-head">
              <h2>Sweep</h2>
              <p class="muted status" data-status={status.state} role="status" aria-live="polite">
                {status.state === 'running' && status.total ? `computing… ${status.done}/${status.total} cells` : null}
                {status.state === 'done' && status.total != null && `${status.total} cells in ${fmt(status.computeMs, 3)} ms of compute, ${status.frames} frames`}
                {status.state === 'error' && 'error'}
              </p>
            </div>
            <div class="sweep-controls">
              <Fields {...common} keys={['margin', 'distractor']} />
              {shown(controls, 'distractor') && <p class="help">{KIND_HELP[s.distractor]}</p>}
              {s.distractor !== 'constant' && shown(controls, 'seed') && (
                <button type="button" onClick={() => set({ seed: s.seed + 1 })} title="another draw of the distractors">
                  Reroll <span class="muted">seed {s.seed}</span>
                </button>
              )}
              <Fields {...common} keys={['scale', 'nmax', 'ppo', 'plog']} />
            </div>
            {status.state === 'error' && <p class="error" role="alert">{status.error}</p>}
            {invalid.map((i) => <p key={i.name} class="error" data-invalid={i.name}><code>{i.name}</code> is left out: {i.error}</p>)}
          </div>
        )}
        side={<Fields {...common} keys={['kernels', 'params']} />}
        below={at != null && <Readout data={data} at={at} colors={colors} hovering={hover != null} />} />
    </div>
  );
}

function Readout({ data, at, colors, hovering }) {
  const n = data.n[at];
  const anyWeights = data.series.some((x) => x.output === 'weights');
  return (
    // a region that can scroll sideways (a phone): focusable, so that the keyboard scrolls it
    <div class="readout" data-readout-n={n} data-hovering={hovering ? 'true' : 'false'} tabIndex={0} role="region" aria-label="the values at this n">
      <h3>n = {n.toLocaleString('en-US')} <span class="muted">{hovering ? '(hovered)' : '(largest n; hover a chart to read another)'}</span></h3>
      <table>
        <thead><tr><th>normalizer</th><th>key</th><th>max</th><th>entropy</th><th>support</th>{anyWeights && <th>Σ w</th>}</tr></thead>
        <tbody>
          {data.series.map((x) => {
            const ps = Object.entries(x.params).map(([k, val]) => `${k} = ${fmt(val, 3)}`).join(', ');
            const errs = [...new Set(x.errors.map((e) => e.message.replace(/^[^:]*: /, '')))];
            return (
              <tr key={x.name} data-readout={x.name}>
                <td><span class="swatch" style={{ background: colors.get(x.name) }} /> <code>{x.name}</code>{ps && <span class="muted"> ({ps})</span>}
                  {errs.length > 0 && <div class="help">not computed at n = {x.errors.map((e) => e.n).join(', ')}: {errs.join('; ')}</div>}</td>
                <td data-value="keyProb">{cell(x.keyProb[at])}</td>
                <td data-value="maxProb">{cell(x.maxProb[at])}</td>
                <td data-value="entropy">{cell(x.entropy[at])}</td>
                <td data-value="support">{Number.isFinite(x.support[at]) ? x.support[at].toLocaleString('en-US') : '—'}</td>
                {anyWeights && <td data-value="sum">{x.output === 'weights' ? cell(x.sum[at]) : ''}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
export default DispersionView;
// The package's view module this View goes with (a widget loads the two together).
export { dispersion as view } from 'softscope/views/dispersion';
