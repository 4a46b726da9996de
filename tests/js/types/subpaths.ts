// Must compile under tsc --strict: the package's other entry points
// (package.json "exports") as a user imports them.
import { createSoftscope } from 'softscope';
import { dispersionSweep, dispersionSteps, DISPERSION_N_MAX, makePreset, PRESET_NAMES, kernelParams, chiSquare } from 'softscope/analysis';
import { parse, defaults, toHash, stateEntries, hashEntries } from 'softscope/state';
import { VIEWS, VIEW_IDS, view, plain, csv, type View, type Stepper } from 'softscope/views';
import sampling, { cachedLogits, decodeStages, LM } from 'softscope/views/sampling';
import { optimizers, functionOf } from 'softscope/views/optimizers';
import { dispersion } from 'softscope/views/dispersion';
import { BUILD_LABELS } from 'softscope/views/performance';
import { measure } from 'softscope/views/performance/measure';
import { renderFigure, figureFiles } from 'softscope/figure';
import { fmt, scaleLinear, kernelColors } from 'softscope/figures';

const ss = await createSoftscope();
const r = dispersionSweep(ss, { normalizers: ['softmax'], nMax: DISPERSION_N_MAX / 1024 });
const key: number = r.series[0].keyProb[0];
for (const cell of dispersionSteps(ss, { normalizers: [{ name: 'sparsemax' }], nMax: 64 })) fmt(cell.entropy);
const logits: number[] = makePreset(PRESET_NAMES[0], 8, 1);
const params: Record<string, number> = kernelParams(ss.kernel('top_k'), { k: 3 }, { fixed: { temperature: 1 } });
const p: number = chiSquare([0, 1, 1], [0.5, 0.5]).pValue;

const v: View = view(VIEW_IDS[0]);
const { state, notices } = parse(v.schema, stateEntries('#view=normalizers&temperature=2'), ss, { ignore: ['view'] });
const link: string = toHash(v.schema, state, ss) + hashEntries('a=1').length + notices.length;
const data = v.compute(ss, defaults(v.schema, ss));
const text: string = csv(v, data) + JSON.stringify(plain(data)) + (v.describe?.(data) ?? '');
const progressive: View[] = VIEWS.filter((x) => x.start);
const st: Stepper = dispersion.start!(ss, defaults(dispersion.schema, ss));
while (st.step(10));
const same: boolean = st.update?.(defaults(dispersion.schema, ss)) ?? false;
st.stop?.();

const x: Float32Array = cachedLogits(defaults(sampling.schema, ss)).x;
const stages: string[] = decodeStages(ss).map((k) => k.name).concat(LM);
const fn: [number, number] = functionOf(ss, defaults(optimizers.schema, ss)).start;
const label: string = BUILD_LABELS.simd;
const timings = await measure({ builds: ['simd'], n: 1024 });
const ua: string = timings.userAgent;

const fig = renderFigure(ss, 'normalizers', 'temperature=2', { theme: 'dark' });
const svg: string = fig.svg + figureFiles(ss, v, fig.state, fig.data).json;
const y: number = scaleLinear().domain([0, 1]).range([0, 100])(0.5);
const colour: string | undefined = kernelColors(ss, 'normalizer').get('softmax');

export { key, logits, params, p, link, text, progressive, same, x, stages, fn, label, ua, svg, y, colour };

// typesetting and label placement (softscope/figures)
import { formulaParts, placeLabels, type FormulaPart } from 'softscope/figures';
const parts: FormulaPart[] = formulaParts('y_i = x_i^2', { code: ['entmax_bisect'] });
const kept = placeLabels([{ x: 1, y: 2, text: '1', size: 10, priority: 1 }], { lo: 0, hi: 100, marks: [{ x0: 0, x1: 1, y0: 2, y1: 3 }] });
const at: number = kept[0].box.x0 + kept[0].index + kept[0].x;

// a view's data, typed from its declared shape (the generated ExperimentsData, LanguageData)
import experiments, { type ExperimentsData } from 'softscope/views/experiments';
import { language, type LanguageData } from 'softscope/views/language';
import { check, outline } from 'softscope/views/shape';
const ed: ExperimentsData = experiments.compute(ss, defaults(experiments.schema, ss));
const loss: number | null = ed.runs[0].curve.loss[0];
const phase: 'train' | 'test' | 'quantize' | 'done' = ed.phase;
const shape = await language.dataShape!();
const ld = check<LanguageData>(shape, JSON.parse('{}'), ss);
const tok: string = ld.runs[0].generation?.steps[0].top[0].text ?? outline(shape);
export { loss, phase, tok };
