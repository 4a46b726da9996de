// AdaRound's registry form as the JS side needs it (the CLI's layer metrics,
// the Quantization view's layer panel): the quantizer's name. Its
// calibration inputs come from C (ss.adaroundInputs), never redrawn here.
// No import: a view's chunk takes this without the API.

/** The registry quantizer whose rounding is learned on a layer (its direct call: ss.adaround). */
export const ADAROUND = 'adaround';
