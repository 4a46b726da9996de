// softscope/views/performance: the performance view module (views/performance/index.js); the protocol: views/index.d.ts.
import type { View } from '../index.js';

export const performanceView: View;
export default performanceView;

/** A build's label ('relaxed SIMD', 'SIMD128', 'scalar', 'plain JS'). */
export const BUILD_LABELS: Readonly<Record<'relaxed' | 'simd' | 'scalar' | 'js', string>>;
