// Must NOT compile: each line below is one error tsc must report.
import { createSoftscope } from 'softscope';

const ss = await createSoftscope();
const x = new Float32Array([2, 1, 0.1]);
ss.normalize('sofmax', x); // BAD: unknown kernel
ss.normalize('softmax_temperature', x, { temprature: 2 }); // BAD: unknown parameter
ss.sample('softmax', x); // BAD: a normalizer is not a sampler
ss.quantize('uniform', x, { bits: 'four' }); // BAD: a parameter is a number
ss.threshold('sparsemax', x, { method: 'quick' }); // BAD: not a threshold method
ss.attentionKernelEstimate('sdpa', { q: x, k: x, n: 3 }); // BAD: sdpa has no random features
export {};
