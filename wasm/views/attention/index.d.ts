// softscope/views/attention: the attention view module (views/attention/index.js); the protocol: views/index.d.ts.
import type { View } from '../index.js';

export const attention: View;
export default attention;
