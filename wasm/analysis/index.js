// softscope/analysis: the computations the CLI, the playground and users
// share beyond the kernels (types: index.d.ts). Each is one file of
// analysis/; this entry only names them.
export {
  dispersionSweep, dispersionSteps, dispersionGrid, dispersionInput,
  DISPERSION_N_MAX, DISPERSION_DEFAULTS, DISTRACTOR_KINDS, KEY_POSITIONS,
} from './dispersion.js';
export { LOGIT_LIMIT, N_MIN, N_MAX, round3, clampLogit, PRESETS, PRESET_NAMES, makePreset } from './presets.js';
export { kernelParams } from './params.js';
export { chiSquare } from './stats.js';
export { quantMetrics, layerErrors } from './quant-metrics.js';
export { nearestMinimum, trajectoryMetrics } from './trajectories.js';
export { quantizedParams, quantizedAccuracy, ptqBits, ptqQuantizers, PTQ_SAMPLES } from './ptq.js';
export { createLanguageModel, loadLanguageModel, grammarText, textVocab, LANGUAGE_LIMITS, SINK_THRESHOLD } from './language.js';
export { runPipeline, decodeStages, stageParam } from './decoding.js';
