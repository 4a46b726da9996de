// What torch_step.py's JSON line says about PyTorch's BLAS (torch-peer.js
// explains how the peer gets OpenBLAS): its name for the machine line, and
// whether the row may give a ratio. Engine-neutral (families.js runs in a
// page too).

/** The BLAS as the JSON line reports it, for the machine line: "OpenBLAS
    0.3.21 (sgemm_ from .../openblas-pthread/libblas.so.3), 512² matmul 240
    GFLOP/s on one thread". */
export function blasName(r) {
  const lib = r.sgemm ?? r.blas?.[0];
  const ver = /libopenblas\w*-r([\d.]+)\.so/.exec((r.blas ?? []).join(' '))?.[1];
  const kind = { openblas: `OpenBLAS${ver ? ` ${ver}` : ''}`, reference: "netlib's reference BLAS", mkl: 'MKL' }[r.blas_kind] ?? 'an unknown BLAS';
  return `${kind} (sgemm_ from ${lib ?? 'no BLAS library found'}${r.env?.LD_PRELOAD ? ', LD_PRELOAD' : ''}), 512² matmul ${r.matmul_gflops} GFLOP/s on one thread`;
}

/** True when torch's matmuls ran on a reference BLAS: by the file of its
    sgemm_, or by a 512^2 matmul far below OpenBLAS's (< 20 GFLOP/s on the
    CPU clock; on this AVX-512 host OpenBLAS 0.3.21 gives ~240 on one
    thread, ~130 held to its Haswell kernels, the reference BLAS ~8). No
    ratio is reported then. A line without BLAS fields (an older
    torch_step.py) is taken as it is. */
export const onReferenceBlas = (r) => r.blas_kind === 'reference' || (r.matmul_gflops != null && r.matmul_gflops < 20);

