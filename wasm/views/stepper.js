// The progressive views' protocol (wasm/views/README.md, "adding a view"): a
// view whose numbers take long (a sweep to 2^20, N live draws, a race of
// optimizers) exports start(ss, state) -> a stepper
//   step(budgetMs)  the next slice of work, about budgetMs long (Infinity:
//                   all of it); true while work remains
//   data()          the numbers so far, in compute's shape
//   update(state)   (optional) a new state: true when the stepper took it in
//                   place (the work goes on), false when it must start over.
//                   In place only when the numbers stay those of a fresh
//                   start for the new state (a display key, the pace): the
//                   state of an export, a link or a widget then always
//                   regenerates its data (`softscope figure --state`); the
//                   rule is the run key (state/schema.js runKey)
//   advance()       (optional) one step of a Step button
//   stop()          (optional) frees what the stepper holds (a stale run)
// and its compute is the stepper run to the end (finish), so a headless
// figure and the playground's last frame show the same numbers. The
// playground runs a stepper a slice per animation frame or in its Web Worker
// (web/src/runner/useRunner.js).

/** The stepper's data once every slice has run (compute of a progressive view); stops it. */
export function finish(stepper) {
  try {
    while (stepper.step(Infinity));
    return stepper.data();
  } finally {
    stepper.stop?.();
  }
}

/** The clock a budget is measured with. */
export const now = () => performance.now();
