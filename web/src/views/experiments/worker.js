// The Experiments view's Web Worker: trains (the view's stepper, the same
// code as `softscope train` and `softscope figure experiments`) off the main
// thread, so the page keeps painting while the model learns. It loads the
// build createSoftscope picks for this engine (the page's), found next to the
// worker's file like the page's wasm (web/shared-wasm.js).
// Messages in: { state }. Out: { type: 'data', data } about every POST_MS
// while it works (the numbers so far, in compute's shape), then
// { type: 'done', data } or { type: 'error', message }. The page stops a run
// by terminating the worker.
import { createSoftscope } from 'softscope';
import { experiments } from 'softscope/views/experiments';

const SLICE_MS = 40; // a stepper slice: short enough to post the curves often
const POST_MS = 150; // the data posted at most this often (a structured clone of every curve)

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

self.onmessage = async (e) => {
  let stepper = null;
  try {
    const ss = await createSoftscope({ impl: 'auto' });
    stepper = experiments.start(ss, e.data.state);
    self.postMessage({ type: 'data', data: stepper.data() });
    let posted = performance.now();
    while (stepper.step(SLICE_MS)) {
      if (performance.now() - posted >= POST_MS) {
        self.postMessage({ type: 'data', data: stepper.data() });
        posted = performance.now();
        await pause(); // (the worker's own event loop: a message or a terminate in between)
      }
    }
    self.postMessage({ type: 'done', data: stepper.data() });
  } catch (err) {
    self.postMessage({ type: 'error', message: String(err?.message ?? err) });
  } finally {
    stepper?.stop?.();
  }
};
