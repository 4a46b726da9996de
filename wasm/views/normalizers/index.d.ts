// softscope/views/normalizers: the normalizers view module (views/normalizers/index.js); the protocol: views/index.d.ts.
import type { View } from '../index.js';

export const normalizers: View;
export default normalizers;
