// AdaRound against nearest rounding on a layer (the Quantization view's
// layer panel): the layer's weights as a rows x cols grid, each cell
// coloured by where w/s lies between its two levels (blue: near the lower,
// red: near the upper, white: halfway), the weights AdaRound rounds the
// other way from nearest outlined, with ▲ (up) or ▼ (down); then both
// reconstruction errors |W X - W~ X|^2 as bars, and the flips. Draw only:
// the model (views/quantization/model.js layerRounding) computes it all.
import { html } from './h.js';
import { Text } from './axes.js';
import { rampColor } from './palette.js';
import { fmt, count, pct } from './format.js';
import { wrap, titleLines, Title, LINE, SP } from './text.js';

const PAD = 12, LABEL = 84, BAR_H = 16, CELL_MAX = 26;

/** A diverging ramp of a theme: blue (0), the paper (1/2), red (1). */
const fracRamp = (th) => [th.ramp[3], th.ramp[1], th.paper, th.negRamp[1], th.negRamp[3]];

const subtitle = (L) => `W: the first ${L.rows} × ${L.cols} values; X: ${L.cols} × ${L.batch} calibration inputs (AR(1), corr ${fmt(L.corr, 3)})`;

/** Where the parts go, from y0: { title, cell, gridY, barsY, notesY, notes, end }. */
export function layerLayout(L, width, y0) {
  const out = { title: titleLines('Rounding a layer: AdaRound against nearest', L.error ? 'not computed' : subtitle(L), width) };
  let y = y0 + out.title.height;
  if (L.error) {
    out.notes = wrap(L.error, width - 2 * PAD, 12);
    out.notesY = y + 12;
    out.end = y + 12 + LINE * out.notes.length;
    return out;
  }
  out.cell = Math.max(2, Math.min(CELL_MAX, Math.floor((width - 2 * PAD) / L.cols)));
  out.gridY = y + 6;
  y = out.gridY + L.rows * out.cell + 10;
  out.legendY = y + 10;
  y += 74;
  out.barsY = y;
  y += 2 * (BAR_H + 6) + 4;
  out.notes = wrap(`${count(L.flipped)} of ${count(L.w.length)} weights flipped from nearest: each is rounded the way that lowers the layer's output error, not its own.${L.soft ? ` ${count(L.soft)} were still undecided (0 < h < 1) when h was rounded.` : ''}`, width - 2 * PAD, 11.5);
  out.notesY = y + 10;
  out.end = y + 10 + LINE * out.notes.length;
  return out;
}

function Grid({ L, P, th }) {
  const c = P.cell, ramp = fracRamp(th), x0 = PAD;
  // glyphs where a cell has room for them; tooltips on layers of a readable size
  const mark = c >= 7, tips = L.frac.length <= 1024;
  return html`<g data-layer-grid=${`${L.rows}x${L.cols}`} role="img" aria-label=${`${L.rows} by ${L.cols} weights; ${L.flipped} flipped from nearest rounding`}>
    ${L.frac.map((f, i) => {
      const r = Math.floor(i / L.cols), k = i % L.cols, x = x0 + k * c, y = P.gridY + r * c, flip = L.flip[i];
      return html`<g key=${i}>
        <rect x=${x} y=${y} width=${c - (c > 4 ? 1 : 0)} height=${c - (c > 4 ? 1 : 0)} fill=${rampColor(ramp, f)}
          stroke=${flip ? th.ink : undefined} stroke-width=${flip ? Math.min(2, c / 8) : undefined}
          data-weight=${String(L.w[i])} data-flip=${String(flip)} data-value=${String(f)}>${tips ? html`<title>${`w = ${fmt(L.w[i], 5)}, w/s − ⌊w/s⌋ = ${fmt(f, 3)}${
            flip ? `; AdaRound rounds ${flip > 0 ? 'up' : 'down'}, nearest ${flip > 0 ? 'down' : 'up'}` : ''}`}</title>` : null}</rect>
        ${flip && mark ? html`<path d=${flip > 0 ? `M${x + c / 2 - c / 5},${y + c * 0.65}h${(2 * c) / 5}l${-c / 5},${-c * 0.32}z` : `M${x + c / 2 - c / 5},${y + c * 0.35}h${(2 * c) / 5}l${-c / 5},${c * 0.32}z`}
          fill=${th.ink} pointer-events="none" />` : null}
      </g>`;
    })}
  </g>`;
}

function Legend({ P, th, width }) {
  // the ramp, then the key of a flipped cell below it
  const ramp = fracRamp(th), w = Math.min(160, width / 3), x = PAD, y = P.legendY;
  return html`<g font-size="10.5" fill=${th.muted} data-layer-legend>
    ${Array.from({ length: 20 }, (_, i) => html`<rect key=${i} x=${x + (i * w) / 20} y=${y} width=${w / 20 + 0.5} height="9" fill=${rampColor(ramp, (i + 0.5) / 20)} />`)}
    <rect x=${x} y=${y} width=${w} height="9" fill="none" stroke=${th.frame} />
    <text x=${x} y=${y + 21}>lower level</text>
    <text x=${x + w} y=${y + 21} text-anchor="end">upper</text>
    <text x=${x + w / 2} y=${y - 4} text-anchor="middle">w/s − ⌊w/s⌋</text>
    <g transform=${`translate(${x} ${y + 30})`}>
      <rect x="0" y="0" width="11" height="11" fill=${th.paper} stroke=${th.ink} stroke-width="1.5" />
      <text x="17" y="9" fill=${th.ink}>flipped: ▲ AdaRound rounds up, ▼ down; nearest the other way</text>
    </g>
  </g>`;
}

function ErrorBars({ L, P, th, color, nearestColor, width }) {
  const hi = Math.max(L.err, L.errNearest) || 1, room = width - 2 * PAD - LABEL - 150;
  const bars = [['nearest', 'error_nearest', L.errNearest, nearestColor], ['AdaRound', 'error', L.err, color]];
  return html`<g data-layer-errors>
    ${bars.map(([name, key, v, c], j) => {
      const y = P.barsY + j * (BAR_H + 6), w = Math.max(1, (room * v) / hi);
      return html`<g key=${key}>
        <${Text} x=${PAD} y=${y + BAR_H - 4} th=${th} size=${11.5}>${name}</${Text}>
        <rect x=${PAD + LABEL} y=${y} width=${w} height=${BAR_H} fill=${c} data-metric=${key} data-value=${String(v)} />
        <${Text} x=${PAD + LABEL + w + 6} y=${y + BAR_H - 4} th=${th} size=${11.5}>${fmt(v, 4)}${j === 1
          ? html`<tspan fill=${th.muted} data-metric="gain" data-value=${String(L.gain)}>${`${SP}(${pct(L.gain, 3)} lower)`}</tspan>` : ''}</${Text}>
      </g>`;
    })}
    <${Text} x=${PAD + LABEL} y=${P.barsY - 5} th=${th} size=${10.5} color=${th.muted}>|W X − W̃ X|²</${Text}>
  </g>`;
}

export function LayerRounding({ L, P, y0, th, width, color, nearestColor }) {
  const title = 'Rounding a layer: AdaRound against nearest';
  if (L.error) {
    return html`<g data-layer="error">
      <${Title} t=${P.title} title=${title} y=${y0} th=${th} />
      ${P.notes.map((l, i) => html`<${Text} key=${i} x=${PAD} y=${P.notesY + LINE * i} th=${th} color=${th.warn} data-error="layer">${l}</${Text}>`)}
    </g>`;
  }
  return html`<g data-layer=${`${L.rows}x${L.cols}`} data-flipped=${String(L.flipped)}>
    <${Title} t=${P.title} title=${title} y=${y0} th=${th} />
    <${Grid} L=${L} P=${P} th=${th} />
    <${Legend} P=${P} th=${th} width=${width} />
    <${ErrorBars} L=${L} P=${P} th=${th} color=${color} nearestColor=${nearestColor} width=${width} />
    ${P.notes.map((l, i) => html`<${Text} key=${i} x=${PAD} y=${P.notesY + LINE * i} th=${th} size=${11.5} color=${th.muted}>${l}</${Text}>`)}
  </g>`;
}
