// The logit vector as SVG bars that can be dragged. Pointer down on a column
// grabs that bar and sets it to the pointer's height; while the pointer is
// captured every move updates it (and so every chart, live). With Shift held,
// moving across columns paints each bar it crosses. Keyboard: Tab to the
// editor, ←/→ choose a bar, ↑/↓ change it by 0.1 (with Shift by 1).
//
// Masking: a strip under the plot holds one cell per bar. Pressing in a
// bar's cell toggles it between -Infinity (a masked logit: sparse kernels and
// masked attention need them) and its last finite value (0 if it never had
// one); dragging a bar down into the strip masks it, dragging a masked bar up
// into the plot gives it a value again. Keyboard: M (or Delete) toggles the
// focused bar; ↑ on a masked bar brings it back at the bottom of the range.
import { useRef, useState } from 'preact/hooks';
import { scaleLinear, fmt, placeLabels } from 'softscope/figures';
import { LOGIT_LIMIT, round3, clampLogit } from 'softscope/analysis';

export const EDITOR = { width: 760, height: 272, left: 44, right: 10, top: 12, bottom: 52 };
// The value labels' font size (.logit-label in styles.css).
export const LABEL_SIZE = 10;
// The mask strip, just under the plot area.
export const MASK_STRIP = { gap: 5, height: 14 };

// x₁₂: an index in subscript digits (math.js has every script; the editor's chunk does without it)
const subscript = (i) => String(i).replace(/\d/g, (d) => String.fromCharCode(0x2080 + Number(d)));

/** The logits with entry i masked (-Infinity) or, if masked, back to `restore`. */
export function toggleMask(logits, i, restore = 0) {
  const next = logits.slice();
  next[i] = logits[i] === -Infinity ? restore : -Infinity;
  return next;
}

export function LogitEditor({ logits, onChange, onDragStart, width: boxWidth }) {
  const svgRef = useRef(null);
  const drag = useRef(null); // { index, pointerId, lastIndex, inStrip }
  const lastFinite = useRef(new Map()); // index -> value before it was masked
  const [active, setActive] = useState(-1);
  const [focus, setFocus] = useState(-1); // keyboard cursor, -1 when not focused
  // drawn at the width of its box (a phone gets larger bars, not smaller text)
  const { height, left, right, top, bottom } = EDITOR;
  const width = Math.max(280, Math.round(boxWidth ?? EDITOR.width));
  const n = logits.length;
  const plotW = width - left - right;
  const band = plotW / n;
  const gap = n <= 24 ? Math.min(3, band * 0.2) : band > 4 ? 1 : 0.5;
  const y = scaleLinear().domain([-LOGIT_LIMIT, LOGIT_LIMIT]).range([height - bottom, top]);
  const y0 = y(0);
  const xEvery = Math.max(1, Math.ceil(n / 16));
  const plotBottom = height - bottom;
  const stripTop = plotBottom + MASK_STRIP.gap, stripBottom = stripTop + MASK_STRIP.height;
  const inStrip = (ly) => ly >= stripTop - 1;
  // The bars: a masked one reaches down to the bottom of the plot, "below every value".
  const bars = logits.map((v, i) => {
    const yv = v === -Infinity ? plotBottom : y(v);
    const x0 = left + i * band + gap / 2, top = Math.min(yv, y0);
    return { x0, x1: x0 + Math.max(0.5, band - gap), y0: top, y1: top + Math.max(Math.abs(yv - y0), 1) };
  });
  // Value labels over (under) the bars: as many as fit without covering one
  // another or another bar, the bar being edited first, then the largest |x|;
  // every value reads on hover.
  const labels = new Map(placeLabels(logits.map((v, i) => ({
    x: left + (i + 0.5) * band, y: v === -Infinity ? y0 + 11 : v >= 0 ? y(v) - 4 : y(v) + 11, text: fmt(v, 3), size: LABEL_SIZE,
    priority: i === active || i === focus ? Infinity : v === -Infinity ? -1 : Math.abs(v),
  })), { lo: left - 4, hi: width - 2, marks: bars }).map((l) => [l.index, l]));

  // Client coordinates -> viewBox coordinates (the SVG scales with its box).
  function toLocal(e) {
    const svg = svgRef.current;
    const ctm = svg.getScreenCTM && svg.getScreenCTM();
    if (ctm) {
      const pt = svg.createSVGPoint();
      pt.x = e.clientX;
      pt.y = e.clientY;
      const p = pt.matrixTransform(ctm.inverse());
      return [p.x, p.y];
    }
    const r = svg.getBoundingClientRect();
    return [((e.clientX - r.left) * width) / r.width, ((e.clientY - r.top) * height) / r.height];
  }
  const indexAt = (lx) => Math.min(n - 1, Math.max(0, Math.floor((lx - left) / band)));
  const valueAt = (ly) => round3(clampLogit(y.invert(ly)));

  function setValues(from, to, v) {
    const next = logits.slice();
    const [a, b] = from <= to ? [from, to] : [to, from];
    let changed = false;
    for (let i = a; i <= b; i++) {
      if (next[i] === v) continue;
      if (v === -Infinity) lastFinite.current.set(i, next[i]);
      next[i] = v;
      changed = true;
    }
    if (changed) onChange(next);
  }
  function toggle(i) {
    if (logits[i] !== -Infinity) lastFinite.current.set(i, logits[i]);
    onChange(toggleMask(logits, i, lastFinite.current.get(i) ?? 0));
  }

  function onPointerDown(e) {
    if (e.button !== 0) return;
    e.preventDefault();
    const [lx, ly] = toLocal(e);
    const index = indexAt(lx);
    const strip = inStrip(ly);
    drag.current = { index, lastIndex: index, pointerId: e.pointerId, inStrip: strip };
    e.currentTarget.setPointerCapture?.(e.pointerId);
    setActive(index);
    setFocus((f) => (f < 0 ? -1 : index));
    onDragStart && onDragStart(index);
    if (strip) toggle(index); // a press in the strip toggles the mask
    else setValues(index, index, valueAt(ly));
  }
  function onPointerMove(e) {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    const [lx, ly] = toLocal(e);
    // A press that toggled in the strip does nothing more until it leaves the strip.
    if (d.inStrip) {
      if (inStrip(ly)) return;
      d.inStrip = false;
    }
    const v = inStrip(ly) ? -Infinity : valueAt(ly);
    if (e.shiftKey) {
      const i = indexAt(lx);
      setValues(d.lastIndex, i, v); // fill the columns crossed since the last event
      d.lastIndex = i;
    } else {
      setValues(d.index, d.index, v);
    }
  }
  function onKeyDown(e) {
    const i = Math.min(n - 1, Math.max(0, focus));
    const step = e.shiftKey ? 1 : 0.1;
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      setFocus(Math.min(n - 1, Math.max(0, i + (e.key === 'ArrowLeft' ? -1 : 1))));
    } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
      // -Inf + step is -Inf: clamping brings a masked bar back at -LOGIT_LIMIT.
      setValues(i, i, round3(clampLogit(logits[i] + (e.key === 'ArrowUp' ? step : -step))));
      setFocus(i);
    } else if (e.key === 'm' || e.key === 'M' || e.key === 'Delete' || e.key === 'Backspace') {
      toggle(i);
      setFocus(i);
    } else {
      return;
    }
    e.preventDefault();
  }

  function onPointerUp(e) {
    if (drag.current && drag.current.pointerId === e.pointerId) {
      drag.current = null;
      setActive(-1);
    }
  }

  return (
    <svg
      ref={svgRef}
      class="editor"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label="logit vector editor: drag a bar up or down"
      data-editor="logits"
      tabIndex={0}
      aria-description="Left and right arrows choose a bar, up and down change it (Shift: by 1), M masks it (minus infinity) or brings it back"
      onKeyDown={onKeyDown}
      onFocus={() => setFocus((f) => (f < 0 ? 0 : f))}
      onBlur={() => setFocus(-1)}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onLostPointerCapture={onPointerUp}
    >
      {y.ticks(8).map((t) => (
        <g key={t}>
          <line class={t === 0 ? 'axis-zero' : 'grid'} x1={left} x2={width - right} y1={y(t)} y2={y(t)} />
          <text class="tick" x={left - 6} y={y(t)} dy="0.32em" text-anchor="end">{fmt(t)}</text>
        </g>
      ))}
      <defs>
        <pattern id="mask-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width="6" height="6" fill="var(--code-bg)" />
          <line x1="0" y1="0" x2="0" y2="6" stroke="var(--logit-neg)" stroke-width="2" />
        </pattern>
      </defs>
      <text class="tick" x={left - 6} y={(stripTop + stripBottom) / 2} dy="0.32em" text-anchor="end">−∞</text>
      {logits.map((v, i) => {
        const masked = v === -Infinity;
        const b = bars[i];
        const cls = masked ? 'logit-bar masked' : i === active || i === focus ? 'logit-bar active' : v < 0 ? 'logit-bar neg' : 'logit-bar';
        return (
          <g key={i} class="logit-col">
            <title>{`x${subscript(i)} = ${fmt(v, 6)}`}</title>
            <rect class="hit" x={left + i * band} y={top} width={band} height={stripBottom - top} />
            <rect
              class={cls + (masked && (i === active || i === focus) ? ' active' : '')}
              x={b.x0}
              y={b.y0}
              width={b.x1 - b.x0}
              height={b.y1 - b.y0}
              data-logit-index={i}
              data-logit-value={String(v)}
            />
            <rect class={masked ? 'mask-cell on' : 'mask-cell'} x={left + i * band + gap / 2} y={stripTop}
              width={Math.max(0.5, band - gap)} height={MASK_STRIP.height} rx={2} data-mask-index={i}>
              <title>{masked ? `x${subscript(i)} = −∞ (masked): press to bring it back` : `press to mask x${subscript(i)} (set it to −∞)`}</title>
            </rect>
            {labels.has(i) && <text class="logit-label" x={labels.get(i).x} y={labels.get(i).y} text-anchor="middle">{labels.get(i).text}</text>}
          </g>
        );
      })}
      {logits.map((_, i) =>
        i % xEvery === 0 ? (
          <text key={i} class="tick" x={left + (i + 0.5) * band} y={stripBottom + 13} text-anchor="middle">{i}</text>
        ) : null,
      )}
      <text class="axis-label" x={left + plotW / 2} y={height - 3} text-anchor="middle">index i</text>
      <text class="axis-label" transform={`translate(11 ${top + (height - top - bottom) / 2}) rotate(-90)`} text-anchor="middle">
        logit xᵢ
      </text>
    </svg>
  );
}
