// Export actions of a view: the figure as SVG and PNG, its numbers as CSV and
// JSON, and a link to this exact state. The SVG, CSV and JSON are made by the
// same functions as `softscope figure` (renderToString of the same figure
// component on the same numbers), so the files are the same; the PNG is the
// browser's rasterization of that SVG.
import { useState } from 'preact/hooks';

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function svgToPngBlob(svg, width, height, scale = 2) {
  const img = new Image();
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    await new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error('the SVG could not be drawn')); img.src = url; });
    const c = document.createElement('canvas');
    c.width = Math.round(width * scale);
    c.height = Math.round(height * scale);
    c.getContext('2d').drawImage(img, 0, 0, c.width, c.height);
    return await new Promise((ok) => c.toBlob(ok, 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const t = document.createElement('textarea');
    t.value = text;
    document.body.append(t);
    t.select();
    const ok = document.execCommand?.('copy');
    t.remove();
    return !!ok;
  }
}

export function ExportBar({ ss, view, state, data, theme, width, height, link, extra }) {
  const [said, setSaid] = useState('');
  const say = (s) => { setSaid(s); setTimeout(() => setSaid(''), 2500); };
  // the SVG renderer is loaded on the first export, not with the page
  const files = async () => (await import('softscope/figure')).figureFiles(ss, view, state, data, { theme, width, height });
  const base = `softscope-${view.id}`;
  return (
    <div class="export" role="group" aria-label="export this view">
      <button type="button" onClick={async () => download(`${base}.svg`, new Blob([(await files()).svg], { type: 'image/svg+xml' }))}>SVG</button>
      <button type="button" onClick={async () => {
        const f = await files();
        download(`${base}.png`, await svgToPngBlob(f.svg, f.width, f.height));
      }}>PNG</button>
      <button type="button" onClick={async () => download(`${base}.csv`, new Blob([(await files()).csv], { type: 'text/csv' }))}>CSV</button>
      <button type="button" onClick={async () => download(`${base}.json`, new Blob([(await files()).json], { type: 'application/json' }))}>JSON</button>
      <button type="button" onClick={async () => say((await copyText(link())) ? 'link copied' : 'copy failed: select the address bar')}>Copy link</button>
      {extra}
      <span class="muted export-said" role="status" aria-live="polite">{said}</span>
    </div>
  );
}
