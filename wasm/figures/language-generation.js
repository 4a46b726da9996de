// The Language figure's generation section (transformer-explainer's one
// step): the selected run's text (the prompt muted, then what it drew) and,
// for one step (data.genStep: 0 the last), the top candidates by the base
// distribution softmax(logit / T) as bars, then their probabilities after
// each decoding stage that is on (renormalized over what it kept) and in the
// final distribution the token was drawn from; the drawn token outlined.
import { html } from './h.js';
import { Text } from './axes.js';
import { fmt, pct } from './format.js';
import { sectionTitle, LINE } from './experiments-plot.js';
import { shown } from './language-plot.js';

const TITLE = 'Generation';
const MONO = "ui-monospace, 'SF Mono', Menlo, Consolas, monospace";
const CHAR_W = 7.0, TEXT_LINES = 8, ROW = 17, CAND_HEAD = 40;

function subtitle(r, data) {
  const { on, values: vals } = data.decoding;
  const pipe = on.length ? on.map((s) => `${s} ${fmt(vals[s], 3)}`).join(' → ') : 'no stage (softmax of the logits)';
  return r?.generation ? `of ${r.name}: ${r.generation.steps.length} tokens after the prompt; decoding ${pipe}; seed ${data.genSeed}`
    : `text drawn token by token through the decoding stages (${pipe}), after training`;
}

// the text as lines of at most `max` characters (a newline ends a line), each piece { text, prompt }; at most TEXT_LINES
function textLines(prompt, text, max) {
  const lines = [[]];
  let len = 0;
  const push = (s, isPrompt) => {
    for (const ch of Array.from(s)) {
      if (len >= max) { lines.push([]); len = 0; }
      const last = lines[lines.length - 1];
      const c = ch === '\n' ? '↵' : /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(ch) ? '·' : ch;
      if (last.length && last[last.length - 1].prompt === isPrompt) last[last.length - 1].text += c; else last.push({ text: c, prompt: isPrompt });
      len++;
      if (ch === '\n') { lines.push([]); len = 0; }
    }
  };
  push(prompt, true);
  push(text, false);
  const cut = lines.length > TEXT_LINES;
  return { lines: lines.slice(0, TEXT_LINES), cut };
}

const stepOf = (data, g) => {
  if (!g || !g.steps.length) return -1;
  const k = data.genStep;
  return k >= 1 && k <= g.steps.length ? k - 1 : g.steps.length - 1;
};

// the distributions drawn per candidate: base, each stage that is on, final
function columnsOf(st) {
  const names = [];
  for (const c of st?.top ?? []) for (const k of Object.keys(c.stages)) if (!names.includes(k)) names.push(k);
  return [{ key: 'base', label: 'base softmax(z/T)' }, ...names.map((k) => ({ key: k, label: `after ${k}`, stage: true })), { key: 'final', label: 'final (drawn from)' }];
}

export function generationHeight(data, runs, sel, width) {
  const r = runs[sel], g = r?.generation;
  const head = sectionTitle(TITLE, subtitle(r, data), 0, width).height;
  if (!g) return head + 6;
  const t = textLines(g.prompt, g.text, Math.floor((width - 24) / CHAR_W));
  const st = g.steps[stepOf(data, g)];
  return head + (g.error ? LINE + 4 : 0) + t.lines.length * LINE + (t.cut ? LINE : 0) + 10 + (st ? CAND_HEAD + ROW * st.top.length + LINE * 2 + 8 : 0);
}

export function Generation({ data, runs, sel, y0, width, th }) {
  const r = runs[sel], g = r?.generation;
  const T = sectionTitle(TITLE, subtitle(r, data), y0, width, th);
  if (!g) return html`<g data-section="generation">${T.el}</g>`;
  let y = y0 + T.height;
  const err = g.error && html`<${Text} x=${8} y=${y + 12} th=${th} size=${11.5} color=${th.warn} data-error="generation">${`generation: ${g.error}`}</${Text}>`;
  if (g.error) y += LINE + 4;
  const t = textLines(g.prompt, g.text, Math.floor((width - 24) / CHAR_W));
  const text = html`<g data-generated=${r.name} font-family=${MONO} font-size="12">
    ${t.lines.map((l, i) => html`<text key=${i} x=${12} y=${y + 12 + i * LINE} fill=${th.ink} xml:space="preserve">${l.map((p, j) => html`<tspan key=${j}
      fill=${p.prompt ? th.muted : th.ink} font-weight=${p.prompt ? '400' : '500'} data-prompt=${p.prompt ? '1' : undefined}>${p.text}</tspan>`)}</text>`)}
    ${t.cut && html`<text x=${12} y=${y + 12 + t.lines.length * LINE} fill=${th.muted} font-family="inherit">…</text>`}
  </g>`;
  y += t.lines.length * LINE + (t.cut ? LINE : 0) + 10;
  const k = stepOf(data, g), st = g.steps[k];
  if (!st) return html`<g data-section="generation">${T.el}${err}${text}</g>`;
  const cols = columnsOf(st);
  const labelW = 70, logitW = 56, cw = Math.max(90, Math.min(150, (width - 16 - labelW - logitW) / cols.length));
  const x0 = 8 + labelW + logitW;
  const yc = y + CAND_HEAD;
  const drawn = st.token;
  return html`<g data-section="generation" data-step=${String(k + 1)}>
    ${T.el}${err}${text}
    <${Text} x=${8} y=${y + 12} th=${th} size=${11.5} weight="600">${`step ${k + 1} of ${g.steps.length}: drew “${shown(st.text)}”`}<tspan fill=${th.muted} font-weight="400">${` · ${st.kept ?? '—'} tokens kept`}</tspan></${Text}>
    <${Text} x=${8} y=${yc - 6} th=${th} size=${10.5} color=${th.muted}>token</${Text}>
    <${Text} x=${8 + labelW + logitW - 8} y=${yc - 6} th=${th} size=${10.5} color=${th.muted} anchor="end">logit</${Text}>
    ${cols.map((c, j) => html`<${Text} key=${c.key} x=${x0 + j * cw} y=${yc - 6} th=${th} size=${10.5} color=${th.muted}>${c.label}</${Text}>`)}
    ${st.top.map((c, i) => {
      const yy = yc + i * ROW, isDrawn = c.token === drawn;
      return html`<g key=${i} data-candidate=${c.text} data-drawn=${isDrawn ? '1' : undefined}>
        ${isDrawn && html`<rect x=${4} y=${yy - 1} width=${x0 - 8 + cols.length * cw} height=${ROW - 2} fill="none" stroke=${r.color} stroke-width="1.4" rx="3" />`}
        <text x=${12} y=${yy + 11} font-family=${MONO} font-size="12" fill=${th.ink} xml:space="preserve">${shown(c.text)}</text>
        <${Text} x=${8 + labelW + logitW - 8} y=${yy + 11} th=${th} size=${11} anchor="end">${fmt(c.logit, 3)}</${Text}>
        ${cols.map((col, j) => {
          const p = col.key === 'base' ? c.base : col.key === 'final' ? c.final : c.stages[col.key] ?? null;
          const bw = cw - 52, x = x0 + j * cw;
          return html`<g key=${col.key} data-dist=${col.key} data-value=${p === null ? undefined : String(p)}>
            <rect x=${x} y=${yy + 2} width=${bw} height=${ROW - 6} fill=${th.grid} />
            ${p !== null && p > 0 && html`<rect x=${x} y=${yy + 2} width=${Math.max(1, bw * Math.min(1, p))} height=${ROW - 6} fill=${r.color} opacity=${col.key === 'final' ? 1 : 0.7} />`}
            <${Text} x=${x + bw + 4} y=${yy + 11} th=${th} size=${10.5} color=${p === 0 ? th.muted : th.ink}>${p === null ? '—' : p === 0 ? 'cut' : pct(p, 2)}</${Text}>
          </g>`;
        })}
      </g>`;
    })}
    <${Text} x=${8} y=${yc + st.top.length * ROW + 12} th=${th} size=${10.5} color=${th.muted}>${
      'the top candidates by base probability softmax(logit / T) (the drawn one added when it is not among them); each stage renormalizes over what it keeps ("cut": dropped);'}</${Text}>
    <${Text} x=${8} y=${yc + st.top.length * ROW + 12 + LINE} th=${th} size=${10.5} color=${th.muted}>${'the token is drawn from the final distribution with the generation seed (Philox stream = step).'}</${Text}>
  </g>`;
}
