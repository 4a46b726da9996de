// The Performance view: the controls (kernels, n, builds, rounds), then a
// Run button and a progress bar over the figure (the layout's `actions`: a
// widget shows them even with controls="none"). The timing (the view's
// measure) runs in the Web Worker of useRunner: the main thread only draws,
// so the page stays responsive while it runs. A changed control, Stop or
// leaving the view ends the running measurement; the bars shown are always
// those of the state shown.
import { Fields } from '../../controls/Field.jsx';
import { useRunner } from '../../runner/useRunner.js';

export function PerformanceView({ ss, v, state: s, set, colors, controls, Layout }) {
  const runner = useRunner(v, ss, s, { worker: true });
  const timings = runner.status === 'done' ? runner.data : null;
  const p = runner.progress;
  const run = { state: runner.status === 'starting' ? 'running' : runner.status, done: p?.done ?? 0, total: p?.total ?? 0, kernel: p?.kernel,
    error: runner.error, wallMs: runner.wallMs };
  const start = () => runner.restart();

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
            {running && <button type="button" onClick={runner.reset}>Stop</button>}
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
