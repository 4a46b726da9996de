// The logit vector as SVG bars that can be dragged. Pointer down on a column
// grabs that bar and sets it to the pointer's height; while the pointer is
// captured every move updates it (and so every chart, live). With Shift held,
// moving across columns paints each bar it crosses. Keyboard: Tab to the
// editor, ←/→ choose a bar, ↑/↓ change it by 0.1 (with Shift by 1).
import { useRef, useState } from 'preact/hooks';
import { scaleLinear } from 'd3-scale';
import { LOGIT_LIMIT, round3, clampLogit } from '../presets.js';
import { fmt } from '../lib/format.js';

export const EDITOR = { width: 760, height: 250, left: 44, right: 10, top: 12, bottom: 30 };

export function LogitEditor({ logits, onChange, onDragStart }) {
  const svgRef = useRef(null);
  const drag = useRef(null); // { index, pointerId, lastIndex }
  const [active, setActive] = useState(-1);
  const [focus, setFocus] = useState(-1); // keyboard cursor, -1 when not focused
  const { width, height, left, right, top, bottom } = EDITOR;
  const n = logits.length;
  const plotW = width - left - right;
  const band = plotW / n;
  const gap = n <= 24 ? Math.min(3, band * 0.2) : band > 4 ? 1 : 0.5;
  const y = scaleLinear().domain([-LOGIT_LIMIT, LOGIT_LIMIT]).range([height - bottom, top]);
  const y0 = y(0);
  const xEvery = Math.max(1, Math.ceil(n / 16));

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
    for (let i = a; i <= b; i++) if (next[i] !== v) { next[i] = v; changed = true; }
    if (changed) onChange(next);
  }

  function onPointerDown(e) {
    if (e.button !== 0) return;
    e.preventDefault();
    const [lx, ly] = toLocal(e);
    const index = indexAt(lx);
    drag.current = { index, lastIndex: index, pointerId: e.pointerId };
    e.currentTarget.setPointerCapture(e.pointerId);
    setActive(index);
    setFocus((f) => (f < 0 ? -1 : index));
    onDragStart && onDragStart(index);
    setValues(index, index, valueAt(ly));
  }
  function onPointerMove(e) {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    const [lx, ly] = toLocal(e);
    const v = valueAt(ly);
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
      setValues(i, i, round3(clampLogit(logits[i] + (e.key === 'ArrowUp' ? step : -step))));
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
      aria-description="Left and right arrows choose a bar, up and down change it (Shift: by 1)"
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
      {logits.map((v, i) => (
        <g key={i} class="logit-col">
          <rect class="hit" x={left + i * band} y={top} width={band} height={height - top - bottom} />
          <rect
            class={i === active || i === focus ? 'logit-bar active' : v < 0 ? 'logit-bar neg' : 'logit-bar'}
            x={left + i * band + gap / 2}
            y={Math.min(y(v), y0)}
            width={Math.max(0.5, band - gap)}
            height={Math.max(Math.abs(y(v) - y0), 1)}
            data-logit-index={i}
            data-logit-value={String(v)}
          />
          {n <= 24 && (
            <text class="logit-label" x={left + (i + 0.5) * band} y={v >= 0 ? y(v) - 4 : y(v) + 11} text-anchor="middle">
              {fmt(v, 3)}
            </text>
          )}
        </g>
      ))}
      {logits.map((_, i) =>
        i % xEvery === 0 ? (
          <text key={i} class="tick" x={left + (i + 0.5) * band} y={height - bottom + 14} text-anchor="middle">{i}</text>
        ) : null,
      )}
      <text class="axis-label" x={left + plotW / 2} y={height - 3} text-anchor="middle">index i</text>
      <text class="axis-label" transform={`translate(11 ${top + (height - top - bottom) / 2}) rotate(-90)`} text-anchor="middle">
        logit x_i
      </text>
    </svg>
  );
}
