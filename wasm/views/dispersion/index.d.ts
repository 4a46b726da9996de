// softscope/views/dispersion: the dispersion view module (views/dispersion/index.js); the protocol: views/index.d.ts.
import type { View } from '../index.js';

export const dispersion: View;
export default dispersion;
