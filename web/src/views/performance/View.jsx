// The Performance view: the controls (kernels, n, builds, rounds), then a
// Run button and a progress bar over the figure (the layout's `actions`: a
// widget shows them even with controls="none"). The timing runs in a Web Worker
// (worker.js): the main thread only draws, so the page stays responsive
// while it runs. A changed control, a second Run or leaving the view stops
// the running worker; the bars shown are always those of the state shown.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Fields } from '../../controls/Field.jsx';

// Vite bundles the worker and its wasm next to the script (playground and
// embed bundle alike), found relative to it like the wasm of the page.
const startWorker = () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });

export function PerformanceView({ ss, v, state: s, set, colors, controls, Layout }) {
  const [run, setRun] = useState({ state: 'idle', done: 0, total: 0 });
  const [timings, setTimings] = useState(null);
  const worker = useRef(null);
  const key = JSON.stringify(s);

  const stop = () => { worker.current?.terminate(); worker.current = null; };
  // a new state: the old bars are not of it; a running measurement stops
  // only a key other than the one last seen (a Run pressed before the first render's effects ran is kept)
  const seenKey = useRef(key);
  useEffect(() => {
    if (seenKey.current === key) return;
    seenKey.current = key;
    stop(); setTimings(null); setRun({ state: 'idle', done: 0, total: 0 });
  }, [key]);
  useEffect(() => stop, []);

  const start = () => {
    stop();
    setTimings(null);
    const t0 = performance.now();
    setRun({ state: 'running', done: 0, total: 0 });
    let w;
    try {
      w = startWorker();
    } catch (e) {
      setRun({ state: 'error', error: `no Web Worker here: ${e.message}`, done: 0, total: 0 });
      return;
    }
    worker.current = w;
    w.onmessage = ({ data: m }) => {
      if (worker.current !== w) return;
      if (m.type === 'progress') setRun({ state: 'running', done: m.done, total: m.total, kernel: m.kernel });
      else if (m.type === 'done') {
        setTimings(m.timings);
        setRun((r) => ({ state: 'done', done: r.total, total: r.total, wallMs: performance.now() - t0 }));
        stop();
      } else {
        setRun({ state: 'error', error: m.message, done: 0, total: 0 });
        stop();
      }
    };
    w.onerror = (e) => { if (worker.current === w) { setRun({ state: 'error', error: e.message || 'the worker failed to start', done: 0, total: 0 }); stop(); } };
    w.postMessage({ state: s });
  };

  const data = v.compute(ss, s, timings);
  const pct = run.state === 'done' ? 100 : run.total ? Math.round((100 * run.done) / run.total) : 0;
  const common = { schema: v.schema, state: s, set, ss, colors, idPrefix: 'performance', controls };
  const running = run.state === 'running';

  return (
    <div data-performance-status={run.state}>
      <Layout data={data} complete={!running} figure={running ? { pending: 'timing… (the bars come when every round is done)' } : {}}
        caption={(
          <p class="caption">
            <b>Performance</b>: the same kernels, timed here, in this browser: the relaxed-SIMD, SIMD128 and scalar WebAssembly builds
            side by side with the plain JavaScript a web developer would write. Each bar is the median of interleaved rounds (every build
            takes its turn each round, so a busy moment slows them all alike), in nanoseconds per element; the ratios say how many times
            faster than the scalar build and than plain JS. It runs in a Web Worker: the page stays responsive.
          </p>
        )}
        actions={(
          <div class="perf-run">
            <button type="button" class="primary" onClick={start} disabled={running} data-run>{run.state === 'done' ? 'Run again' : 'Run'}</button>
            {running && <button type="button" onClick={() => { stop(); setRun({ state: 'idle', done: 0, total: 0 }); }}>Stop</button>}
            <div class="progress" role="progressbar" aria-label="benchmark progress" aria-valuemin="0" aria-valuemax="100" aria-valuenow={pct}>
              <div class="progress-bar" style={{ width: `${pct}%` }} />
            </div>
            <p class="muted status" role="status" aria-live="polite" data-status={run.state}>
              {running && (run.total ? `timing ${run.kernel ?? ''}… step ${run.done} of ${run.total}` : 'loading the builds…')}
              {run.state === 'done' && `done in ${(run.wallMs / 1000).toFixed(1)} s`}
            </p>
            {run.state === 'error' && <p class="error" role="alert">{run.error}</p>}
          </div>
        )}
        input={(
          <div class="card">
            <div class="card-head"><h2>Benchmark</h2></div>
            <Fields {...common} keys={['n', 'rounds', 'ms', 'builds']} />
          </div>
        )}
        side={<Fields {...common} keys={['kernels']} />} />
    </div>
  );
}
export default PerformanceView;
// The package's view module this View goes with (a widget loads the two together).
export { performanceView as view } from 'softscope/views/performance';
