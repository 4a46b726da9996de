// The Performance view's Web Worker: loads the wasm builds and times the
// kernels (wasm/views/performance/measure.js, the same code as `softscope
// figure performance`) off the main thread, so the page stays responsive.
// Messages in: { state }. Out: { type: 'progress', done, total, kernel },
// then { type: 'done', timings } or { type: 'error', message }. The page
// stops a run by terminating the worker.
import { measure } from 'softscope/views/performance/measure';

self.onmessage = async (e) => {
  try {
    const timings = await measure(e.data.state, { onProgress: (p) => self.postMessage({ type: 'progress', ...p }) });
    self.postMessage({ type: 'done', timings });
  } catch (err) {
    self.postMessage({ type: 'error', message: String(err?.message ?? err) });
  }
};
