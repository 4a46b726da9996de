// softscope check: the self-check of analysis/check.js over every registered
// kernel, both builds, as a table (or JSON); exit 1 when anything fails.
import { toJson, table } from './shared.js';
import { runCheck, BOUNDS } from '../analysis/check.js';
import { createSoftscope } from '../api/index.js';

// The scalar and the SIMD build (SIMD: null where the engine has no SIMD128;
// SOFTSCOPE_WASM: that one module, as the scalar side).
async function bothBuilds() {
  const scalar = await createSoftscope({ impl: 'scalar', ...(process.env.SOFTSCOPE_WASM ? { wasm: process.env.SOFTSCOPE_WASM } : {}) });
  let simd = null;
  try {
    if (!process.env.SOFTSCOPE_WASM) simd = await createSoftscope({ impl: 'simd' });
  } catch { /* no SIMD128 in this engine: the simd column is skipped */ }
  return { scalar, simd };
}

const MARK = { pass: 'ok', fail: 'FAIL', skip: '-' };

export const command = {
  name: 'check',
  summary: 'self-check every kernel: scalar vs SIMD, references, sums, bad input',
  usage: 'softscope check [--json] [--failures]',
  options: { json: 'flag', failures: 'flag', impl: 'value' },
  help: `For every registered kernel, on seeded inputs (n = 1, 5, 64, 1031):
  simd       the scalar and the SIMD build agree within the family's bound, relative to max(1, |y|):
             ${Object.entries(BOUNDS).filter(([k]) => !['reference', 'sum'].includes(k)).map(([k, v]) => `${k} ${v || 'bit-identical'}`).join(', ')}
  reference  golden vectors worked out by hand, and float64 references of the definitions
             (relative error <= ${BOUNDS.reference} for outputs >= 1e-30)
  sum        outputs that promise a distribution are >= 0 and sum to 1 within ${BOUNDS.sum}
  errors     NaN in the input and a parameter past its maximum are rejected with an error naming it
Prints one row per kernel (ok, FAIL, - not applicable) and the failures; exit status 1 when any
check fails. --failures prints only the failures. --json prints {"rows","failures","passed","failed","skipped"}.
Where the engine has no SIMD128, the simd column is skipped.`,
  positional: [0, 0],
  async run(ctx, { opt }) {
    const { scalar, simd } = ctx.instances ?? await bothBuilds();
    const r = runCheck({ scalar, simd });
    if (opt.json) ctx.out(toJson(r));
    else {
      if (!opt.failures) {
        ctx.out(table(r.rows.map((x) => [x.kernel, x.family, ...['simd', 'reference', 'sum', 'errors'].map((c) => MARK[x.checks[c]])]),
          ['KERNEL', 'FAMILY', 'SIMD', 'REFERENCE', 'SUM', 'ERRORS']));
        ctx.out('');
      }
      for (const f of r.failures) ctx.out(`FAIL ${f.kernel} ${f.check}: ${f.detail}`);
      ctx.out(`${r.passed} passed, ${r.failed} failed, ${r.skipped} not applicable (${r.rows.length} kernels, ${simd ? 'scalar and SIMD builds' : 'scalar build only'}, ${r.ms} ms)`);
    }
    return r.failed ? 1 : 0;
  },
};
