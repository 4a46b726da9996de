// Panel 5: optimizers. Several optimizers race from the same start over a
// 2-D test function drawn as a banded heat map (the bands read as contour
// lines); click or drag on the map to move the start. Each run is a
// trajectory runner of the wasm engine advanced a few steps per animation
// frame, so a hyperparameter slider acts from the next step while the race
// goes on; changing the function, the start, the list, the noise, the
// clipping or the schedule restarts the race. Beside it: f against the step
// for every optimizer. The URL holds the whole setup (optim.* keys).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ParamControls } from '../components/ParamControls.jsx';
import { Slider } from '../components/Slider.jsx';
import { colorMap } from '../lib/colors.js';
import { fmt } from '../lib/format.js';
import { PLOT, functionInfo, validList, viewMap, heatPixels, makeRuns, advanceRuns, runSummary, optimizerParams } from '../lib/optimView.js';
import { optimState, OPTIM_LIMITS, OPTIM_SCHEDULES } from '../state/url.js';

const LOSS_W = 480, LOSS_H = 200;

export function OptimPanel({ ss, state, update }) {
  const o0 = optimState(state);
  const fn = functionInfo(ss, o0.fn);
  const kernels = useMemo(() => ss.kernels('optimizer'), [ss]);
  const colors = useMemo(() => colorMap(kernels.map((k) => k.name)), [kernels]);
  const o = { ...o0, fn: fn.name, list: validList(ss, o0.list, OPTIM_LIMITS.maxList) };
  const setO = (patch) => update((st) => ({ optim: { ...optimState(st), ...(typeof patch === 'function' ? patch(optimState(st)) : patch) } }));
  const sel = o.list.includes(o.sel) ? o.sel : o.list[0];

  const mapRef = useRef(null), lossRef = useRef(null), runsRef = useRef([]);
  const [playing, setPlaying] = useState(true);
  const [, setTick] = useState(0);
  const [error, setError] = useState(null);
  const heat = useMemo(() => {
    const h = heatPixels(ss, fn);
    const c = document.createElement('canvas');
    c.width = c.height = h.cells;
    c.getContext('2d').putImageData(new ImageData(h.px, h.cells, h.cells), 0, 0);
    return c;
  }, [ss, fn.name]);

  // A new race whenever what the runs start from changes.
  const raceKey = JSON.stringify([fn.name, o.start, o.list, o.steps, o.noise, o.clip, o.seed, o.schedule, o.warmup]);
  useEffect(() => {
    try {
      runsRef.current = makeRuns(ss, o, fn);
      setError(null);
      setPlaying(true);
    } catch (e) {
      runsRef.current = [];
      setError(e.message);
    }
    setTick((t) => t + 1); // the render draws
  }, [ss, raceKey]);

  // Hyperparameters act from the next step of the running race.
  // A finished race (every run at the last step or diverged) starts over.
  const paramsKey = JSON.stringify(o.params);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    const finished = runsRef.current.every((r) => r.runner.diverged || r.path.length - 1 >= o.steps);
    if (finished) {
      runsRef.current = makeRuns(ss, o, fn);
      setPlaying(true);
    } else {
      for (const r of runsRef.current) r.runner.params = optimizerParams(ss.kernel(r.name, 'optimizer'), o.params[r.name]);
    }
  }, [paramsKey]);

  // The animation: o.speed steps per frame per optimizer while playing.
  const speedRef = useRef(o.speed);
  speedRef.current = o.speed;
  useEffect(() => {
    if (!playing) return undefined;
    let id = 0, frames = 0;
    const frame = () => {
      let more = false;
      try {
        more = advanceRuns(runsRef.current, speedRef.current, o.steps);
      } catch (e) {
        setError(e.message);
      }
      // every 4th frame re-renders the readouts (and draws); the others only draw
      if (++frames % 4 === 0 || !more) setTick((t) => t + 1);
      else draw();
      if (more) id = requestAnimationFrame(frame);
      else setPlaying(false);
    };
    id = requestAnimationFrame(frame);
    return () => cancelAnimationFrame(id);
  }, [playing, raceKey]);

  function draw() {
    drawMap(mapRef.current, heat, fn, runsRef.current, colors, o.start ?? fn.start);
    drawLoss(lossRef.current, fn, runsRef.current, colors, o.steps);
  }
  // a layout effect: a render's drawing lands in the same frame
  useLayoutEffect(draw);

  // Click or drag on the map: the start moves there and the race restarts.
  const dragging = useRef(false);
  const moveStart = (e) => {
    const rect = mapRef.current.getBoundingClientRect();
    const [x, y] = viewMap(fn).toXY(((e.clientX - rect.left) / rect.width) * PLOT, ((e.clientY - rect.top) / rect.height) * PLOT);
    setO({ start: [Math.round(x * 1e3) / 1e3, Math.round(y * 1e3) / 1e3] });
    setPlaying(true);
  };

  const toggle = (name) => setO((s) => {
    const list = validList(ss, s.list, OPTIM_LIMITS.maxList);
    if (list.includes(name)) return { list: list.filter((n) => n !== name) };
    return list.length < OPTIM_LIMITS.maxList ? { list: [...list, name], sel: name } : {};
  });
  const selKernel = sel && ss.kernel(sel, 'optimizer');
  const setParam = (name, v) => setO((s) => ({ params: { ...s.params, [sel]: { ...s.params[sel], [name]: v } } }));
  // Reset: the registry default, written explicitly (the panel's own
  // defaults override a few, see DEFAULT_OPTIM).
  const resetParam = (name) => setParam(name, selKernel.params.find((p) => p.name === name).default);
  const runs = runsRef.current;
  const step = runs.reduce((m, r) => Math.max(m, r.path.length - 1), 0);

  return (
    <section class="panel" aria-labelledby="tab-optimizers" data-step={step} data-playing={playing ? '1' : '0'}>
      <p class="caption">
        Optimizers race from the same start (the white circle; <b>click or drag</b> on the map to move it) over a test
        function; crosses mark its minima. Every step is computed by the library's C update kernels in WebAssembly, and
        hyperparameter sliders act on the running race from the next step.
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="top-row">
        <div class="card editor-card">
          <div class="card-head">
            <h2>{fn.name} <span class="muted">{fn.formula}</span></h2>
            <div class="controls">
              <button id="optim-play" type="button" onClick={() => setPlaying(!playing)}>{playing ? 'Pause' : 'Play'}</button>
              <button id="optim-step" type="button" onClick={() => { setPlaying(false); advanceRuns(runsRef.current, 1, o.steps); setTick((t) => t + 1); }}>Step</button>
              <button id="optim-reset" type="button" onClick={() => { runsRef.current = makeRuns(ss, o, fn); setPlaying(false); setTick((t) => t + 1); }}>Reset</button>
              <span class="muted" data-optim-step>step {step} / {o.steps}</span>
            </div>
          </div>
          <div class="optim-plots">
            <canvas id="optim-map" ref={mapRef} width={PLOT} height={PLOT} style={{ width: `${PLOT}px`, maxWidth: '100%', cursor: 'crosshair', touchAction: 'none' }}
              onPointerDown={(e) => { dragging.current = true; e.currentTarget.setPointerCapture?.(e.pointerId); moveStart(e); }}
              onPointerMove={(e) => { if (dragging.current) moveStart(e); }}
              onPointerUp={() => { dragging.current = false; }} aria-label={`${fn.name}: heat map with the optimizers' paths`} />
            <div>
              <canvas id="optim-loss" ref={lossRef} width={LOSS_W} height={LOSS_H} style={{ width: `${LOSS_W}px`, maxWidth: '100%' }} aria-label="f against the step" />
              <p class="help">{fn.game ? 'f = x y against the step (a game: the equilibrium has f = 0)' : 'f − f(min) against the step, log scale'}</p>
              <table class="runs" data-runs>
                <thead><tr><th>optimizer</th><th>step</th><th>f</th><th>to nearest minimum</th></tr></thead>
                <tbody>
                  {runs.map((r) => {
                    const s = runSummary(fn, r);
                    return (
                      <tr key={r.name} data-run={r.name} data-f={String(s.f)} data-x={String(s.x)} data-y={String(s.y)} data-run-step={s.step}>
                        <td><span class="swatch" style={{ background: colors.get(r.name) }} /> {r.name}</td>
                        <td>{s.step}</td><td>{fmt(s.f, 4)}</td><td>{s.diverged ? 'diverged' : fmt(s.distance, 3)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </div>
        </div>
        <div class="card side-card">
          <h2>Function</h2>
          <select id="optim-fn" value={fn.name} onChange={(e) => setO({ fn: e.currentTarget.value, start: null })}>
            {ss.functions.map((f) => <option key={f.name} value={f.name} title={f.summary}>{f.name}</option>)}
          </select>
          <p class="summary-line">{fn.summary}</p>
          <h2>Optimizers <span class="muted">(up to {OPTIM_LIMITS.maxList})</span></h2>
          <div class="chips optim-list">
            {kernels.map((k) => (
              <label key={k.name} class="chip" style={{ borderColor: colors.get(k.name) }} title={k.summary}>
                <input type="checkbox" data-optimizer={k.name} checked={o.list.includes(k.name)}
                  disabled={!o.list.includes(k.name) && o.list.length >= OPTIM_LIMITS.maxList} onChange={() => toggle(k.name)} /> {k.name}
              </label>
            ))}
          </div>
          {selKernel && (
            <>
              <h2>Hyperparameters of{' '}
                <select id="optim-sel" value={sel} onChange={(e) => setO({ sel: e.currentTarget.value })}>
                  {o.list.map((n) => <option key={n} value={n}>{n}</option>)}
                </select>
              </h2>
              <p class="summary-line"><code class="formula">{selKernel.formula}</code></p>
              <p class="paper">{selKernel.paper}</p>
              <ParamControls kernels={[selKernel]} values={o.params[sel] ?? {}} colors={colors} onSet={setParam} onReset={resetParam} idPrefix={`optim-${sel}`} />
            </>
          )}
          <h2>Race</h2>
          <Slider id="optim-speed" label="steps per frame" value={o.speed} min={1} max={100} log integer onInput={(v) => setO({ speed: v })} />
          <label class="inline">steps{' '}
            <input id="optim-steps" type="number" min={OPTIM_LIMITS.steps.min} max={OPTIM_LIMITS.steps.max} value={o.steps}
              onChange={(e) => setO({ steps: Math.min(OPTIM_LIMITS.steps.max, Math.max(OPTIM_LIMITS.steps.min, Math.round(Number(e.currentTarget.value) || 0))) })} />
          </label>
          <Slider id="optim-noise" label="gradient noise (std)" value={o.noise} min={0} max={20} onInput={(v) => setO({ noise: v })} />
          <Slider id="optim-clip" label="clip |g| to (0: off)" value={o.clip} min={0} max={100} onInput={(v) => setO({ clip: v })} />
          <div class="controls">
            <label class="inline">lr schedule{' '}
              <select id="optim-schedule" value={o.schedule} onChange={(e) => setO({ schedule: e.currentTarget.value })}>
                {OPTIM_SCHEDULES.map((s) => <option key={s} value={s}>{s}</option>)}
              </select>
            </label>
            <label class="inline">warm-up{' '}
              <input id="optim-warmup" type="number" min={0} max={o.steps} value={o.warmup}
                onChange={(e) => setO({ warmup: Math.min(o.steps, Math.max(0, Math.round(Number(e.currentTarget.value) || 0))) })} />
            </label>
            <button type="button" onClick={() => setO({ seed: o.seed + 1 })}>New noise <span class="muted">seed {o.seed}</span></button>
          </div>
        </div>
      </div>
    </section>
  );
}

function drawMap(canvas, heat, fn, runs, colors, start) {
  if (!canvas) return;
  const g = canvas.getContext('2d');
  const { toPx } = viewMap(fn);
  g.imageSmoothingEnabled = false;
  g.drawImage(heat, 0, 0, PLOT, PLOT);
  g.strokeStyle = '#222';
  g.lineWidth = 1.5;
  for (const [mx, my] of fn.minima) {
    const [px, py] = toPx(mx, my);
    g.beginPath();
    g.moveTo(px - 5, py - 5); g.lineTo(px + 5, py + 5); g.moveTo(px + 5, py - 5); g.lineTo(px - 5, py + 5);
    g.stroke();
  }
  for (const r of runs) {
    g.strokeStyle = colors.get(r.name);
    g.lineWidth = 1.8;
    g.beginPath();
    r.path.forEach(([x, y], i) => {
      const [px, py] = toPx(x, y);
      if (i) g.lineTo(px, py); else g.moveTo(px, py);
    });
    g.stroke();
    const [x, y] = r.path[r.path.length - 1];
    const [px, py] = toPx(x, y);
    g.fillStyle = colors.get(r.name);
    g.beginPath();
    g.arc(px, py, 4, 0, 2 * Math.PI);
    g.fill();
  }
  const [sx, sy] = toPx(start[0], start[1]);
  g.fillStyle = '#fff';
  g.strokeStyle = '#222';
  g.beginPath();
  g.arc(sx, sy, 5, 0, 2 * Math.PI);
  g.fill();
  g.stroke();
}

function drawLoss(canvas, fn, runs, colors, steps) {
  if (!canvas) return;
  const g = canvas.getContext('2d');
  const L = 44, B = 22, T = 8, R = 8;
  g.clearRect(0, 0, LOSS_W, LOSS_H);
  const val = (f) => (fn.game ? f : Math.log10(Math.max(f - fn.fmin, 1e-12)));
  let lo = Infinity, hi = -Infinity;
  for (const r of runs) for (const p of r.path) { const v = val(p[2]); if (Number.isFinite(v)) lo = Math.min(lo, v), hi = Math.max(hi, v); }
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  const sx = (i) => L + (i / steps) * (LOSS_W - L - R), sy = (v) => T + (1 - (v - lo) / (hi - lo)) * (LOSS_H - T - B);
  g.strokeStyle = '#ccd';
  g.fillStyle = '#556';
  g.font = '11px sans-serif';
  g.lineWidth = 1;
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    g.beginPath(); g.moveTo(L, sy(v)); g.lineTo(LOSS_W - R, sy(v)); g.stroke();
    g.fillText(fn.game ? fmt(v, 2) : `1e${v.toFixed(1)}`, 2, sy(v) + 4);
  }
  g.fillText('0', L, LOSS_H - 6);
  g.fillText(`step ${steps}`, LOSS_W - R - 60, LOSS_H - 6);
  for (const r of runs) {
    g.strokeStyle = colors.get(r.name);
    g.lineWidth = 1.5;
    g.beginPath();
    r.path.forEach((p, i) => { const y = sy(val(p[2])); if (i) g.lineTo(sx(i), y); else g.moveTo(sx(i), y); });
    g.stroke();
  }
}
