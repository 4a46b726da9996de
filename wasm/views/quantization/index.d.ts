// softscope/views/quantization: the quantization view module (views/quantization/index.js); the protocol: views/index.d.ts.
import type { Softscope, KernelInfo } from '../../api/index.js';
import type { View, State } from '../index.js';

export const quantization: View;
export default quantization;

/** The quantizer of the state's scheme. */
export function schemeKernel(ss: Softscope, state: State): KernelInfo | undefined;
/** Whether the scheme learns its rounding on a layer (adaround). */
export function learnsLayer(state: State): boolean;
