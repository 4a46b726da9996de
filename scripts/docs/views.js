// The view pages, from the view modules (wasm/views/index.js: id, label,
// summary, schema) and the header comment of each schema.js; and which views
// can show a kernel: a schema field that names kernels (type 'names' or
// 'choice' with options read from the registry) lists it.
import { html, md, num, htmlTable, codeBlock } from './text.js';

/**
 * What the schemas' option functions read of a Softscope instance, made from
 * the registry JSON alone (so a kernel added to the JSON is seen at once).
 */
export function registryShim(registry) {
  return {
    kernels: (family) => registry.kernels.filter((k) => !family || k.family === family),
    kernel: (name, family) => registry.kernels.find((k) => k.name === name && (!family || k.family === family)),
    functions: registry.functions ?? [],
    // as the API reads them (softscope.js): the C enums by name, the schedules among them
    schedules: registry.schedules ?? registry.enums?.schedule ?? [],
    enums: registry.enums ?? {},
  };
}

const call = (f, ss) => {
  try {
    return typeof f === 'function' ? f(ss) : f;
  } catch {
    return undefined;
  }
};

// Fields whose value is a choice of kernels ('sel' picks whose controls show, not what is drawn).
const kernelFields = (v, ss, names) => v.schema.fields.filter((f) => (f.type === 'names' || f.type === 'choice') && f.key !== 'sel'
  && typeof f.options === 'function' && (call(f.options, ss) ?? []).some((o) => names.has(o)));

/** [{ view, key, value }]: the views whose state can hold kernel k, in the views' order. */
export function viewsShowing(k, views, ss) {
  const names = new Set(ss.kernels().map((x) => x.name));
  const out = [];
  for (const v of views) {
    for (const f of kernelFields(v, ss, names)) {
      if ((call(f.options, ss) ?? []).includes(k.name)) out.push({ view: v.id, key: f.key, value: k.name });
    }
  }
  return out;
}

function fieldRange(f, ss) {
  const opts = call(f.options, ss);
  if (Array.isArray(opts)) {
    const shown = opts.slice(0, 12).map((o) => `<code>${html(o)}</code>`).join(', ');
    return opts.length > 12 ? `${shown}, … (${opts.length})` : shown;
  }
  if (f.type === 'params') return 'the parameters of the chosen kernels, by their registry names';
  if (f.min !== undefined || f.max !== undefined) return `${num(f.min)} … ${num(f.max)}${f.integer ? ' (integer)' : ''}${f.log ? ', log' : ''}`;
  if (f.type === 'bool') return 'true / false';
  return '';
}

function fieldDefault(f, ss) {
  const d = call(f.default, ss);
  if (d === null || d === undefined) return '—';
  return `<code>${html(Array.isArray(d) ? d.join(',') : d)}</code>`;
}

/** The leading // comment of a schema.js, as one paragraph. */
export function headerComment(source) {
  const lines = [];
  for (const line of String(source).split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/** The Markdown page of view v. ctx: { ss (registryShim), description (schema.js's comment), results (optional:
 *  the URL, relative to the page, of a results file its widget draws: a view that trains) }. */
export function viewPage(v, { ss, description, results }) {
  const names = new Set(ss.kernels().map((k) => k.name));
  const kinds = kernelFields(v, ss, names);
  const fields = v.schema.fields.filter((f) => f.key !== 'view');
  const tag = `<softscope-widget view="${v.id}"${results ? ` results="${html(results)}"` : ''}></softscope-widget>`;
  const shows = kinds.map((f) => `- \`${f.key}\` (${md(f.label ?? f.key)}): ${(call(f.options, ss) ?? []).filter((o) => names.has(o))
    .map((o) => `[${o}](../kernels/${o}.md)`).join(', ')}`).join('\n');
  return `---
title: ${v.label}
---

# ${v.label}

${md(v.summary)}.

${html(description)}

## Live

${tag}

${codeBlock('html', tag)}

Every key below is also a widget attribute, a key of a playground link
(\`#view=${v.id}&...\`) and of \`softscope figure ${v.id} --state '...'\`.

## State

${htmlTable(['key', 'type', 'label', 'values', 'default', 'meaning'], fields.map((f) => [`<code>${html(f.key)}</code>`, html(f.type),
    html(f.label ?? ''), fieldRange(f, ss), fieldDefault(f, ss), html(f.help ?? '')]))}

## Kernels it shows

${shows || 'It draws no registry kernel chosen by name.'}
`;
}

/** The index of the views. */
export function viewIndex(views) {
  return `---
title: Views
---

# Views

Each view is one module (\`wasm/views/<view>/\`) drawn in three places from the same code: a playground tab,
an embedded \`<softscope-widget>\`, and a headless SVG/PNG (\`softscope figure\`). Its schema is its state.

${views.map((v) => `- [${v.label}](./${v.id}.md) (\`${v.id}\`): ${md(v.summary)}`).join('\n')}
`;
}
