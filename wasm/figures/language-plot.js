// What the Language figure's sections share: the data read safely (a results
// file is user input: names and token texts are text, never markup; anything
// that is not a finite number is a gap, so no NaN reaches the SVG), a token's
// text as shown (BOS, newline, space, controls), a labelled reference line,
// and chart boxes with room for a second (bits) axis on the right.
import { html } from './h.js';
import { Text, box } from './axes.js';
import { fmt } from './format.js';
import { num, list, CHART_H, CHART_HEAD } from './experiments-plot.js';
import { SERIES } from './palette.js';

export { num, list };
const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const str = (v) => (v === null || v === undefined ? '' : String(v));
const nums = (v) => list(v).map(num);

/** A token's text as a label: BOS for '' (when the data has BOS), ↵ for a newline, ␣ for a space, · for other controls. */
export function shown(t, bos = true) {
  const s = str(t);
  if (s === '') return bos ? 'BOS' : '';
  return s.replace(/\n/g, '↵').replace(/ /g, '␣').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '·');
}
/** Text as a line: newlines as ↵, controls as ·. */
export const line = (t) => str(t).replace(/\n/g, '↵').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '·');

function candidate(c) {
  const o = obj(c);
  return { token: num(o.token), text: str(o.text), logit: num(o.logit), base: num(o.base), final: num(o.final),
    stages: Object.fromEntries(Object.entries(obj(o.stages)).map(([k, v]) => [str(k), num(v)])) };
}

/** The runs as the sections draw them (colors: name -> colour). */
export function runsOf(data, colors, th) {
  return list(data.runs).map((raw, i) => {
    const r = obj(raw), c = obj(r.curve), v = obj(r.val), ins = r.inspect && typeof r.inspect === 'object' ? obj(r.inspect) : null;
    const g = r.generation && typeof r.generation === 'object' ? obj(r.generation) : null;
    const name = str(r.name) || `run ${i + 1}`;
    return {
      name, color: colors?.get?.(name) ?? SERIES[i % SERIES.length] ?? th.accent,
      step: num(r.step), diverged: num(r.diverged), error: r.error == null ? null : str(r.error),
      seconds: num(r.seconds), tokensPerSecond: num(r.tokensPerSecond),
      normParams: Object.entries(obj(r.normParams)).map(([k, x]) => [str(k), num(x)]),
      curve: { step: nums(c.step), seconds: nums(c.seconds), loss: nums(c.loss) },
      val: { step: nums(v.step), seconds: nums(v.seconds), loss: nums(v.loss) },
      valLoss: num(r.valLoss), valBits: num(r.valBits),
      lengths: list(r.lengths).map(obj).filter((x) => num(x.n) > 0).map((x) => ({ n: num(x.n), loss: num(x.loss), positionLoss: nums(x.positionLoss), error: x.error == null ? null : str(x.error) }))
        .sort((a, b) => a.n - b.n),
      inspect: ins && {
        layer: num(ins.layer), n: num(ins.n), texts: list(ins.texts).map(str), trigger: list(ins.trigger).map((t) => t === true),
        maps: nums(ins.maps), sinks: num(ins.sinks),
        heads: list(ins.heads).map(obj).map((h) => ({ layer: num(h.layer), head: num(h.head), bosMass: num(h.bosMass), bosMassTrigger: num(h.bosMassTrigger),
          bosMassOther: num(h.bosMassOther), sink: h.sink === true, bosValueNorm: num(h.bosValueNorm), valueNorm: num(h.valueNorm) }))
          .filter((h) => h.layer !== null && h.head !== null),
        residual: list(ins.residual).map(obj).map((q) => ({ layer: num(q.layer), bosNorm: num(q.bosNorm), meanNorm: num(q.meanNorm), kurtosis: num(q.kurtosis), maxMedian: num(q.maxMedian) })),
      },
      generation: g && { prompt: str(g.prompt), text: str(g.text), error: g.error == null ? null : str(g.error),
        steps: list(g.steps).map(obj).map((st) => ({ token: num(st.token), text: str(st.text), kept: num(st.kept), top: list(st.top).map(candidate) })) },
      floatLoss: num(r.floatLoss),
      quant: list(r.quant).map(obj).filter((q) => num(q.bits) !== null).map((q) => ({ quantizer: str(q.quantizer), bits: num(q.bits), loss: num(q.loss) })),
    };
  });
}

/** k chart boxes in a row (or rows) from y0 with a right margin for a second axis: { boxes, height }. */
export function slotsR(k, y0, width, { right = 44, h = CHART_H } = {}) {
  const cols = Math.max(1, Math.min(k, width >= 700 ? k : 1)), cw = width / cols, rows = Math.ceil(k / cols);
  const boxes = Array.from({ length: k }, (_, i) => box((i % cols) * cw, y0 + Math.floor(i / cols) * (h + CHART_HEAD) + CHART_HEAD, cw, h,
    { left: 56, right, top: 4, bottom: 38 }));
  return { boxes, height: rows * (h + CHART_HEAD) };
}

/** A horizontal reference line with its label written at its right end (and its meaning as a tooltip). */
export function LabelledRule({ bx, y, v, th, label, title, id, dash = '4 3', color, above = true }) {
  if (num(v) === null) return null;
  const yy = y(v);
  if (!(yy >= bx.y - 0.5 && yy <= bx.bottom + 0.5)) return null;
  return html`<g data-reference=${id} data-value=${String(v)}>
    <line x1=${bx.x} x2=${bx.right} y1=${yy} y2=${yy} stroke=${color ?? th.muted} stroke-width="1" stroke-dasharray=${dash}><title>${title ?? label}</title></line>
    <${Text} x=${bx.right - 4} y=${above ? yy - 4 : yy + 11} th=${th} size=${10} anchor="end" color=${color ?? th.muted}>${label}</${Text}>
  </g>`;
}

/** A second y axis on the right: the same scale read in bits (nats / ln 2). */
export function BitsAxis({ y, bx, th, label = 'bits' }) {
  const [lo, hi] = y.domain();
  const b0 = lo / Math.LN2, b1 = hi / Math.LN2;
  const step = [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10].find((s) => (b1 - b0) / s <= 6) ?? 10;
  const ticks = [];
  for (let b = Math.ceil(b0 / step) * step; b <= b1 + 1e-9; b += step) ticks.push(b);
  return html`<g class="axis axis-bits" font-size="11" fill=${th.muted}>
    ${ticks.map((b) => html`<text key=${b} x=${bx.right + 5} y=${y(b * Math.LN2)} dy="0.32em" data-tick-bits=${String(b)}>${fmt(b, 3)}</text>`)}
    <text transform=${`translate(${bx.right + 36} ${bx.y + bx.h / 2}) rotate(90)`} text-anchor="middle">${label}</text>
  </g>`;
}
