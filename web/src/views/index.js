// The playground's side of each view: the View component (controls, editors,
// layout), next to the package's view module (schema, model, figure).
import { VIEWS } from '../../../wasm/views/index.js';
import { NormalizersView } from './normalizers/View.jsx';
import { DispersionView } from './dispersion/View.jsx';
import { SamplingView } from './sampling/View.jsx';
import { QuantizationView } from './quantization/View.jsx';
import { OptimizersView } from './optimizers/View.jsx';
import { AttentionView } from './attention/View.jsx';
import { PerformanceView } from './performance/View.jsx';

const COMPONENTS = {
  normalizers: NormalizersView,
  dispersion: DispersionView,
  sampling: SamplingView,
  quantization: QuantizationView,
  optimizers: OptimizersView,
  attention: AttentionView,
  performance: PerformanceView,
};

/** [{ ...view module, View }] in tab order. */
export const WEB_VIEWS = VIEWS.filter((v) => COMPONENTS[v.id]).map((v) => ({ ...v, View: COMPONENTS[v.id] }));
