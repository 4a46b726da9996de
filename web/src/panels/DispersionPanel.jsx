// Panel 2: dispersion. One planted key (logit = margin) among n - 1
// distractors, n from 2 to n max (up to 2^20) on a log axis; for each chosen
// normalizer the key's and the largest probability, the entropy and the
// support size. The numbers come from dispersionSweep's stepper (the same
// code as `softscope sweep dispersion`), run a slice per animation frame with
// small n first: a slider move cancels the running sweep and starts a new
// one, and the curves update from left to right (the previous values, faded,
// until each n is recomputed).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DISTRACTOR_KINDS } from '../../../wasm/dispersion.js';
import { LineChart } from '../components/LineChart.jsx';
import { Slider } from '../components/Slider.jsx';
import { ParamControls } from '../components/ParamControls.jsx';
import { NormalizerChooser } from '../components/NormalizerChooser.jsx';
import { paramsFor, paramHandlers } from '../lib/params.js';
import { startSweep } from '../lib/sweepRunner.js';
import { mergeDisplay, extentOf } from '../lib/dispersionView.js';
import { fmt } from '../lib/format.js';
import { dispersionDefaults, DISPERSION_MARGIN, DISPERSION_SCALE, DISPERSION_LOG2, DISPERSION_PPO } from '../state/url.js';

const KIND_HELP = {
  constant: 'every distractor is 0',
  gaussian: 'distractors ~ N(0, scale²)',
  uniform: 'distractors ~ U[−scale, scale)',
};
const round3 = (v) => Math.round(v * 1000) / 1000 + 0;
const cell = (v) => (Number.isFinite(v) ? fmt(v, 4) : '—');
const pow2Label = (t) => <>2<tspan dy="-4" font-size="8">{Math.round(Math.log2(t))}</tspan></>;

// Parameter errors are per normalizer: such a normalizer is left out of the
// sweep (with its message in the legend) and the others still run.
function paramError(ss, info, params) {
  try {
    ss.normalize(info.name, new Float32Array([1, 0]), params);
    return null;
  } catch (e) {
    return typeof e.argument === 'string' && e.argument.startsWith('params') ? e.message.replace(/^[^:]*: /, '') : null;
  }
}

export function DispersionPanel({ ss, normalizers, colors, state, update }) {
  const d = state.dispersion;
  const registryNames = normalizers.map((k) => k.name);
  const names = d.normalizers ?? dispersionDefaults(registryNames);
  const chosen = names.map((name) => normalizers.find((k) => k.name === name)).filter(Boolean);
  // Functional updates: several moves between two renders all land.
  const namesIn = (s) => (s.dispersion.normalizers ?? dispersionDefaults(registryNames)).filter((n) => registryNames.includes(n));
  const setD = (patch) => update((s) => ({ dispersion: { ...s.dispersion, normalizers: namesIn(s), ...patch } }));

  const { options, invalid } = useMemo(() => {
    const invalid = new Map();
    const list = [];
    for (const info of chosen) {
      const params = paramsFor(info, state.params);
      const err = paramError(ss, info, params);
      if (err) invalid.set(info.name, err);
      else list.push({ name: info.name, params });
    }
    return {
      invalid,
      options: list.length ? {
        normalizers: list, nMin: 2, nMax: d.nMax, margin: d.margin,
        distractor: { kind: d.distractor, scale: d.scale }, seed: d.seed, pointsPerOctave: d.ppo,
      } : null,
    };
  }, [ss, names.join(','), JSON.stringify(state.params), d.nMax, d.margin, d.distractor, d.scale, d.seed, d.ppo]);

  const [display, setDisplay] = useState(null);
  const [status, setStatus] = useState({ state: 'idle', run: 0 });
  const [hover, setHover] = useState(null);
  const runs = useRef(0);
  const key = JSON.stringify(options);

  useEffect(() => {
    if (!options) {
      setDisplay(null);
      setStatus({ state: 'idle', run: runs.current });
      return undefined;
    }
    const run = ++runs.current;
    const t0 = performance.now();
    setStatus((s) => ({ ...s, state: 'running', run }));
    const job = startSweep(ss, options, {
      onProgress: (p) => {
        setDisplay((prev) => mergeDisplay(prev, p));
        setStatus({ state: 'running', run, done: p.done, total: p.total, doneN: p.doneN });
      },
      onDone: (p) => setStatus({
        state: 'done', run, done: p.done, total: p.total, doneN: p.result.n.length,
        computeMs: p.computeMs, wallMs: performance.now() - t0, frames: p.frames,
      }),
      onError: (e) => setStatus({ state: 'error', run, error: e.message }),
    });
    return () => job.cancel();
  }, [ss, key]);

  const toggle = (name, on) => update((s) => {
    const set = new Set(namesIn(s));
    on ? set.add(name) : set.delete(name);
    // Registry order, so that colours and lines do not jump around.
    return { dispersion: { ...s.dispersion, normalizers: registryNames.filter((k) => set.has(k)) } };
  });
  const { setParam, resetParam } = paramHandlers(update);

  // Only series still chosen, in the order of the current run.
  const shown = display && options
    ? { n: display.n, series: options.normalizers.map((o) => display.series.find((s) => s.name === o.name)).filter(Boolean) }
    : null;
  const lines = (metrics) => (shown ? shown.series.flatMap((s) => metrics.map((m, i) => ({
    series: s.name, metric: m, color: colors.get(s.name), values: s[m], fresh: s.fresh, dashed: i > 0,
  }))) : []);

  let probDomain = [0, 1];
  let probLog = d.probLog;
  if (shown) {
    const ext = extentOf(shown, ['maxProb', 'keyProb']);
    if (probLog) {
      let lo = Infinity;
      for (const s of shown.series) for (const m of ['maxProb', 'keyProb']) for (const v of s[m]) if (v > 0 && v < lo) lo = v;
      probDomain = [2 ** Math.floor(Math.log2(Number.isFinite(lo) ? Math.max(lo, 2 ** -60) : 2 ** -20)), Math.max(1, ext ? ext[1] : 1)];
    } else if (ext) probDomain = [Math.min(0, ext[0]), Math.max(1, ext[1])];
  }
  const entExt = shown && extentOf(shown, ['entropy']);
  const entDomain = [0, Math.max(Math.log(d.nMax), entExt ? entExt[1] : 0) * 1.04];
  const readAt = shown ? (hover ?? shown.n.length - 1) : null;
  const log2n = Math.round(Math.log2(d.nMax));

  return (
    <section class="panel dispersion" aria-labelledby="tab-dispersion" data-dispersion-status={status.state}
      data-run={status.run} data-done={status.done ?? 0} data-total={status.total ?? 0}
      data-compute-ms={status.computeMs} data-wall-ms={status.wallMs} data-frames={status.frames}>
      <p class="caption">
        <b>Dispersion</b>: one <i>key</i> with logit <i>m</i> (the margin) among <i>n</i> − 1 distractors, for <i>n</i> from
        2 to 2<sup>{log2n}</sup>. Softmax <b>disperses</b>: its largest probability falls like e<sup>m</sup>/(e<sup>m</sup> + n − 1)
        and its entropy climbs towards ln n whatever the margin, while sparse normalizers keep a small support and adaptive ones
        rescale with n. Each curve is computed live by the WebAssembly kernels (the same code as{' '}
        <code>softscope sweep dispersion</code>), small n first.
      </p>

      <div class="top-row">
        <div class="card">
          <div class="card-head">
            <h2>Sweep</h2>
            <p class="muted status" data-status={status.state}>
              {status.state === 'running' && status.total ? `computing… n ≤ ${shown?.n[Math.max(0, (status.doneN ?? 0) - 1)] ?? 2} (${status.done}/${status.total} cells)` : null}
              {status.state === 'done' && `${status.total} cells in ${fmt(status.computeMs, 3)} ms of compute, ${status.frames} frames (${fmt(status.wallMs, 3)} ms)`}
              {status.state === 'error' && 'error'}
            </p>
          </div>
          <div class="sweep-controls">
            <Slider id="dispersion-margin" label="margin m" value={d.margin} min={DISPERSION_MARGIN.min} max={DISPERSION_MARGIN.max}
              help="key logit minus the distractors' centre (0)" onInput={(v) => setD({ margin: round3(v) })} />
            <div class="slider">
              <div class="slider-head">
                <label for="dispersion-distractor">distractors</label>
                <select id="dispersion-distractor" value={d.distractor} onChange={(e) => setD({ distractor: e.currentTarget.value })}>
                  {DISTRACTOR_KINDS.map((k) => <option key={k} value={k}>{k}</option>)}
                </select>
                <button type="button" onClick={() => setD({ seed: d.seed + 1 })} title="another draw of the distractors"
                  disabled={d.distractor === 'constant'}>
                  Reroll <span class="muted">seed {d.seed}</span>
                </button>
              </div>
              <p class="help">{KIND_HELP[d.distractor]}</p>
            </div>
            <Slider id="dispersion-scale" label="scale" value={d.scale} min={DISPERSION_SCALE.min} max={DISPERSION_SCALE.max}
              help={d.distractor === 'constant' ? 'not used by constant distractors' : 'std (gaussian) or half-width (uniform) of the distractors'}
              onInput={(v) => setD({ scale: round3(v) })} />
            <div class="slider">
              <div class="slider-head">
                <label for="dispersion-nmax">n max</label>
                <output class="slider-value" data-param-value={d.nMax}>2<sup>{log2n}</sup> = {d.nMax.toLocaleString('en-US')}</output>
              </div>
              <input id="dispersion-nmax" type="range" min={DISPERSION_LOG2.min} max={DISPERSION_LOG2.max} step={1} value={log2n}
                aria-valuetext={String(d.nMax)} onInput={(e) => setD({ nMax: 2 ** Number(e.currentTarget.value) })} />
              <div class="slider-scale"><span>2<sup>{DISPERSION_LOG2.min}</sup></span><span>2<sup>{DISPERSION_LOG2.max}</sup></span></div>
            </div>
            <div class="controls">
              <label class="inline">
                points per octave{' '}
                <select id="dispersion-ppo" value={d.ppo} onChange={(e) => setD({ ppo: Number(e.currentTarget.value) })}>
                  {DISPERSION_PPO.map((k) => <option key={k} value={k}>{k}</option>)}
                </select>
              </label>
              <label class="inline">
                <input id="dispersion-problog" type="checkbox" checked={d.probLog} onChange={(e) => setD({ probLog: e.currentTarget.checked })} />
                log-scale probability
              </label>
            </div>
          </div>
          {status.state === 'error' && <p class="error" role="alert">{status.error}</p>}
        </div>

        <div class="card side-card">
          <h2>Normalizers</h2>
          <NormalizerChooser normalizers={normalizers} selected={names} colors={colors} onToggle={toggle} compact />
        </div>
      </div>

      {chosen.length === 0 && <p class="empty">Choose at least one normalizer to sweep.</p>}
      {shown && (
        <>
          <div class="line-charts">
            <LineChart id="probability" title="probability: max (solid), key (dashed)" yLabel={probLog ? 'probability (log)' : 'probability'}
              n={shown.n} lines={lines(['maxProb', 'keyProb'])} yDomain={probDomain} yLog={probLog}
              yTickFormat={probLog ? pow2Label : undefined} hover={hover} onHover={setHover} />
            <LineChart id="entropy" title="entropy (nats)" yLabel="entropy H" n={shown.n} lines={lines(['entropy'])}
              yDomain={entDomain} reference={{ values: shown.n.map(Math.log), label: 'ln n: the uniform maximum' }}
              hover={hover} onHover={setHover} />
            <LineChart id="support" title="support size" yLabel="non-zero entries" n={shown.n} lines={lines(['support'])}
              yDomain={[1, d.nMax]} yLog yTickFormat={pow2Label} reference={{ values: shown.n, label: 'n: everything' }}
              hover={hover} onHover={setHover} />
          </div>
        </>
      )}
      <div class="top-row bottom-row">
        {shown ? <Readout shown={shown} at={readAt} colors={colors} hovering={hover != null} /> : <div />}
        <div class="card side-card">
          <h2>Parameters</h2>
          <ParamControls kernels={chosen} values={state.params} colors={colors} onSet={setParam} onReset={resetParam} />
        </div>
      </div>
      {invalid.size > 0 && (
        <ul class="legend-errors">
          {[...invalid].map(([name, msg]) => (
            <li key={name} class="error" data-invalid={name}><code>{name}</code> is left out: {msg}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Readout({ shown, at, colors, hovering }) {
  const n = shown.n[at];
  const anyWeights = shown.series.some((s) => s.output === 'weights');
  return (
    <div class="card readout" data-readout-n={n} data-hovering={hovering ? 'true' : 'false'}>
      <h2>
        n = {n.toLocaleString('en-US')}{' '}
        <span class="muted">{hovering ? '(hovered)' : '(largest n; hover a chart to read another)'}</span>
      </h2>
      <table>
        <thead>
          <tr><th>normalizer</th><th>key</th><th>max</th><th>entropy</th><th>support</th>{anyWeights && <th>Σ w</th>}</tr>
        </thead>
        <tbody>
          {shown.series.map((s) => {
            const ps = Object.entries(s.params).map(([k, v]) => `${k} = ${fmt(v, 3)}`).join(', ');
            const errs = [...new Set(s.errors.map((e) => e.message.replace(/^[^:]*: /, '')))];
            return (
              <tr key={s.name} data-readout={s.name}>
                <td>
                  <span class="swatch" style={{ background: colors.get(s.name) }} /> <code>{s.name}</code>
                  {ps && <span class="muted"> ({ps})</span>}
                  {s.output === 'weights' && <span class="muted" title="key and max are raw weights; entropy and support of |w| / Σ|w|"> weights</span>}
                  {errs.length > 0 && <div class="help">not computed at n = {s.errors.map((e) => e.n).join(', ')}: {errs.join('; ')}</div>}
                </td>
                <td data-value="keyProb">{cell(s.keyProb[at])}</td>
                <td data-value="maxProb">{cell(s.maxProb[at])}</td>
                <td data-value="entropy">{cell(s.entropy[at])}</td>
                <td data-value="support">{Number.isFinite(s.support[at]) ? s.support[at].toLocaleString('en-US') : '—'}</td>
                {anyWeights && <td data-value="sum">{s.output === 'weights' ? cell(s.sum[at]) : ''}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
