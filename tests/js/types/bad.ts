// Must NOT compile: each line marked BAD is an error tsc must report.
import { createSoftscope, createModel } from 'softscope';
import { view } from 'softscope/views';
import { renderFigure } from 'softscope/figure';

const ss = await createSoftscope();
const x = new Float32Array([2, 1, 0.1]);
ss.normalize('sofmax', x); // BAD: unknown kernel
ss.normalize('softmax_temperature', x, { temprature: 2 }); // BAD: unknown parameter
ss.sample('softmax', x); // BAD: a normalizer is not a sampler
ss.normalize('softmax', x, {}, { out: new Float64Array(3) }); // BAD: out of a normalizer is a Float32Array
ss.normalize('softmax', x, {}, { rows: '2' }); // BAD: rows is a number
const h: number = ss.measure('entropy', x, {}, { rows: 3 }); // BAD: rows give a Float64Array
ss.quantize('uniform', x, { bits: 'four' }); // BAD: a parameter is a number
ss.threshold('sparsemax', x, { method: 'quick' }); // BAD: not a threshold method
ss.attentionKernelEstimate('sdpa', { q: x, k: x, n: 3 }); // BAD: sdpa has no random features
ss.trajectory({ optimizer: 'adamm', fn: 'rosenbrok' }); // BAD: unknown optimizer and test function
ss.trajectory({ optimizer: 'adam', fn: 'rosenbrok' }); // BAD: unknown test function
ss.trajectory({ optimizer: 'sgd', schedule: 'cosin' }); // BAD: unknown schedule
ss.trajectory({ optimizer: 'sgd', params: { lrr: 0.1 } }); // BAD: not a parameter of sgd
ss.evalFunction('rosenbrok', 0, 0); // BAD: unknown test function
ss.trajectory({ optimizer: ss.kernels('normalizer')[0].name }); // BAD: a normalizer is not an optimizer
view('normalizer'); // BAD: unknown view
renderFigure(ss, 'optimiser'); // BAD: unknown view
ss.estimatorStats('st', new Float32Array(2), new Float32Array(2), { signal: true }); // BAD: signal is an AbortSignal
ss.vqTrain(new Float32Array(2), { maxWork: '1e9' }); // BAD: maxWork is a number
createModel(ss, { task: 'sorting' }); // BAD: unknown task
createModel(ss, { normalizer: 'adam' }); // BAD: an optimizer is not a normalizer
const dom: 'signed' | undefined = ss.kernel('pow2', 'quantizer').domain; // BAD: a domain is 'real' or 'nonnegative'
export {};
import type { ExperimentsData } from 'softscope/views/experiments';
declare const ed: ExperimentsData;
const phase: 'train' | 'test' = ed.phase; // BAD: the data's phase is also quantize or done
const lossText: string = ed.runs[0].curve.loss[0]; // BAD: a loss is a number or null
ed.runs[0].nosuch; // BAD: a key the data's shape does not declare
