// The C library's generic entry points called straight through the wasm
// exports, with buffers this file mallocs itself: what C says about a call,
// independent of the JS API's marshalling and checks. One call per family
// (ss_normalize, ss_measure, ss_loss, ss_sample, ss_quantize, ss_optimize,
// ss_attend); the kernel is a registry entry, params are packed as doubles
// in registry order with the registry defaults.

const OPT_SCALARS = 4; // SS_OPT_SCALARS
const IO_WORDS = 15; // ss_attention_io on wasm32

// Float32 / Int32 / Uint32 / Float64 blocks in the wasm heap, freed together.
class Blocks {
  constructor(ex) {
    this.ex = ex;
    this.ptrs = [];
  }

  alloc(bytes) {
    const p = this.ex.malloc(Math.max(8, bytes)) >>> 0;
    if (p === 0) throw new Error(`raw-c: malloc(${bytes}) failed`);
    this.ptrs.push(p);
    return p;
  }

  put(Type, values) {
    const p = this.alloc(values.length * Type.BYTES_PER_ELEMENT);
    new Type(this.ex.memory.buffer, p, values.length).set(values);
    return p;
  }

  get(Type, p, n) {
    return Type.from(new Type(this.ex.memory.buffer, p, n));
  }

  freeAll() {
    for (const p of this.ptrs) this.ex.free(p);
    this.ptrs = [];
  }
}

/** params (a { name: number } object) as the doubles C reads, registry order. */
export function packParams(k, params = {}) {
  return Float64Array.from(k.params, (p) => {
    const v = params[p.name] ?? p.default;
    return typeof v === 'boolean' ? Number(v) : v;
  });
}

// The outputs are read only when the call succeeded.
const done = (status, read) => ({ status, out: status === 0 ? read() : null });

// A count read from params, for sizing buffers only (C checks the value).
function countOf(k, pv, name) {
  const v = pv[k.params.findIndex((p) => p.name === name)];
  return Number.isInteger(v) && v >= 0 && v <= 2 ** 20 ? v : 1;
}

/**
 * Run kernel k (a registry entry of ss) with impl ('scalar' | 'simd') on
 * input x (a Float32Array; for two-input measures also x2; attention:
 * x = { q, k, v, n, m }) and params. Returns { status, out } with out the
 * kernel's outputs (null unless status is 0).
 */
export function rawCall(ss, k, impl, x, params = {}, x2 = null) {
  const ex = ss.exports;
  const b = new Blocks(ex);
  const kp = ex.ss_kernel_at(ss.kernels().indexOf(k)) >>> 0;
  const im = ss.enums.impl.indexOf(impl);
  const pv = packParams(k, params), np = pv.length;
  try {
    const pp = b.put(Float64Array, pv);
    if (k.family === 'attention') return rawAttend(ss, k, im, x, params, b, kp, pp, np);
    const n = x.length, px = b.put(Float32Array, x);
    switch (k.family) {
      case 'normalizer': {
        const py = b.alloc(4 * n);
        const status = ex.ss_normalize(kp, im, px, n, pp, np, py);
        return done(status, () => ({ y: b.get(Float32Array, py, n) }));
      }
      case 'measure': {
        const pq = x2 ? b.put(Float32Array, x2) : 0, po = b.alloc(8);
        const status = ex.ss_measure(kp, im, px, pq, n, pp, np, po);
        return done(status, () => ({ value: b.get(Float64Array, po, 1)[0] }));
      }
      case 'loss': {
        const pl = b.alloc(8), pg = b.alloc(4 * n);
        const status = ex.ss_loss(kp, im, px, n, pp, np, pl, pg);
        return done(status, () => ({ loss: b.get(Float64Array, pl, 1)[0], grad: b.get(Float32Array, pg, n) }));
      }
      case 'sampler': {
        const draws = countOf(k, pv, 'draws');
        const pr = b.alloc(4 * n);
        const pi = k.draws !== 'vector' ? b.alloc(4 * Math.max(1, draws)) : 0;
        const ps = k.draws !== 'index' ? b.alloc(4 * Math.max(1, draws * n)) : 0;
        const status = ex.ss_sample(kp, im, px, n, pp, np, pr, pi, ps);
        return done(status, () => ({ probs: b.get(Float32Array, pr, n), indices: pi ? b.get(Uint32Array, pi, draws) : null,
          samples: ps ? b.get(Float32Array, ps, draws * n) : null }));
      }
      case 'quantizer': {
        const pc = b.alloc(4 * n), py = b.alloc(4 * n);
        const status = ex.ss_quantize(kp, im, px, n, pp, np, pc, py);
        return done(status, () => ({ codes: b.get(Int32Array, pc, n), y: b.get(Float32Array, py, n) }));
      }
      case 'optimizer': {
        // x is w; the gradient is x2 (default: x itself, the gradient of |w|^2 / 2).
        const pg = b.put(Float32Array, x2 ?? x);
        const slots = b.put(Float32Array, new Float32Array(Math.max(1, k.state_slots * n)));
        const sc = b.put(Float64Array, new Float64Array(OPT_SCALARS));
        const status = ex.ss_optimize(kp, im, px, pg, n, pp, np, slots, sc);
        return done(status, () => ({ w: b.get(Float32Array, px, n) }));
      }
      default:
        throw new Error(`raw-c: no generic call for family ${k.family}`);
    }
  } finally {
    b.freeAll();
  }
}

// ss_attend with the default normalizer of exact attention (none packed:
// C's own default) and no key mask.
function rawAttend(ss, k, im, x, params, b, kp, pp, np) {
  const ex = ss.exports;
  const { n, m = x.n } = x;
  const d = n ? x.q.length / n : 0, dv = m ? x.v.length / m : 0;
  const heads = countOf(k, packParams(k, params), 'heads');
  const pq = b.put(Float32Array, x.q), pk = b.put(Float32Array, x.k), pv = b.put(Float32Array, x.v);
  const pout = b.alloc(4 * n * dv), pattn = b.alloc(4 * heads * n * m);
  const norm = k.role === 'exact_attention' ? ex.ss_kernel_at(ss.kernels().findIndex((e) => e.family === 'normalizer')) >>> 0 : 0;
  const pio = b.alloc(4 * IO_WORDS);
  const io = (scratch) => new Uint32Array(ex.memory.buffer, pio, IO_WORDS)
    .set([pq, pk, pv, n, m, d, dv, heads, 0, norm, 0, 0, pout, pattn, scratch]);
  io(0);
  const need = ex.ss_attention_scratch_size(kp, pio, pp) >>> 0;
  io(b.alloc(4 * need));
  const status = ex.ss_attend(kp, im, pio, pp, np);
  return done(status, () => ({ output: b.get(Float32Array, pout, n * dv), attention: b.get(Float32Array, pattn, heads * n * m) }));
}
