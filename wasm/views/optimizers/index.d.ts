// softscope/views/optimizers: the optimizers view module (views/optimizers/index.js); the protocol: views/index.d.ts.
import type { Softscope, TestFunction } from '../../api/index.js';
import type { View, State } from '../index.js';

export const optimizers: View;
export default optimizers;

/** The test function of the state (its registry entry). */
export function functionOf(ss: Softscope, state: State): TestFunction;
