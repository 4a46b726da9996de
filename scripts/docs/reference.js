// The reference pages: the JS API from its types (wasm/api/index.d.ts), the
// CLI from each command's --help, the C API from softscope.h by its sections.
// The sources are quoted as they are (code blocks), grouped into sections.
import { md, codeBlock } from './text.js';

/**
 * index.d.ts as sections: a `// ---- title ----` banner starts a group; each
 * top-level `export` declaration, with the comment lines right above it, is
 * one entry. Returns [{ title, entries: [{ name, code }] }].
 */
export function dtsSections(source, firstTitle = 'The API object and its types') {
  const lines = String(source).split('\n');
  const groups = [{ title: firstTitle, entries: [] }];
  let pending = [], current = null;
  const flush = () => { if (current) groups.at(-1).entries.push(current); current = null; };
  for (const line of lines) {
    const banner = /^\/\/ -{2,} (.*?) -*$/.exec(line);
    if (banner) {
      flush();
      pending = [];
      groups.push({ title: banner[1].replace(/\s*\(.*\)$/, ''), entries: [] });
      continue;
    }
    // an exported declaration, or a block that augments other types (the
    // element's tag in HTMLElementTagNameMap, React's JSX): named for what it extends
    const decl = /^export (?:default |declare )?(?:interface|type|function|class|const)\s+(\w+)/.exec(line)
      ?? /^declare (global|module '[^']+')/.exec(line);
    if (decl) {
      flush();
      current = { name: decl[1].replace(/^module '(.*)'$/, "module '$1'"), code: [...pending, line] };
      pending = [];
      continue;
    }
    if (/^(\/\/|\/\*| \*)/.test(line)) { // a top-level comment: the next declaration's
      flush();
      pending.push(line);
      continue;
    }
    if (current) current.code.push(line);
    else pending = []; // imports, re-exports, blank lines between comments and code
  }
  flush();
  return groups.filter((g) => g.entries.length).map((g) => ({ ...g, entries: g.entries.map((e) => ({ ...e, code: e.code.join('\n').trim() })) }));
}

/**
 * The package's typed entry points, from package.json's "exports": [{ specifier
 * ('softscope', 'softscope/analysis', ...), file (the .d.ts, relative to the
 * package root) }], in the order package.json lists them. Wildcard entries
 * (./views/*) are left out: each view's own types are on its view page.
 */
export function typedEntries(pkg) {
  const out = [];
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    if (key.includes('*') || typeof target !== 'object' || !target.types) continue;
    out.push({ specifier: pkg.name + key.slice(1), file: target.types.replace(/^\.\//, '') });
  }
  return out;
}

/** The JS reference: modules = [{ specifier, file, text (the .d.ts) }], one section each. */
export function jsPage(modules) {
  const section = ({ specifier, file, text }, i) => {
    const groups = dtsSections(text, i === 0 ? undefined : 'Types');
    return `## ${md(specifier)}\n\n\`import … from '${specifier}'\` (types: \`${file}\`)\n\n`
      + groups.map((g) => `### ${md(g.title)}\n\n${g.entries.map((e) => `#### ${e.name}\n\n${codeBlock('ts', e.code)}`).join('\n\n')}`).join('\n\n');
  };
  return `---
title: JS API reference
---

# JS API reference

The package's types, one section per entry point of \`package.json\`'s \`exports\`, as they are (kernel
and parameter names are literal unions generated from the registry: \`wasm/dist/registry.d.ts\`). The
[JS API guide](../guide/js-api.md) shows them in use.

${modules.map(section).join('\n\n')}
`;
}

/** The CLI page. helps: { overview, commands: [{ name, summary, help }] }. */
export function cliPage({ overview, commands }) {
  return `---
title: CLI reference
---

# CLI reference

\`npx softscope <command> --help\` prints what each section below shows; the [CLI guide](../guide/cli.md) has examples.

${codeBlock('text', overview)}

${commands.map((c) => `## ${c.name}\n\n${md(c.summary)}\n\n${codeBlock('text', c.help)}`).join('\n\n')}
`;
}

/** The commands listed by `softscope --help`: [{ name, summary }]. */
export function cliCommands(overview) {
  const out = [];
  for (const line of String(overview).split('\n')) {
    const m = /^ {2}([a-z][\w-]*) +(.+)$/.exec(line);
    if (m) out.push({ name: m[1], summary: m[2] });
  }
  return out;
}

/**
 * softscope.h as sections: the comment before the first banner is the
 * introduction; each banner (a line of dashes in a comment, then a title
 * line) starts a section. Returns { intro, sections: [{ title, code }] }.
 */
export function headerSections(source) {
  const lines = String(source).split('\n');
  const isRule = (l) => /^\/\* -{20,} \*\/$/.test(l.trim());
  const starts = [];
  for (let i = 0; i < lines.length; i++) if (isRule(lines[i]) && /^\/\* /.test(lines[i + 1] ?? '')) starts.push(i);
  const introEnd = lines.findIndex((l) => l.startsWith(' */'));
  const intro = lines.slice(1, introEnd).map((l) => l.replace(/^ \* ?/, '')).join('\n');
  const sections = starts.map((s, j) => {
    const title = lines[s + 1].replace(/^\/\*\s*/, '').replace(/\s*\*\/\s*$/, '').trim();
    const body = lines.slice(s + 2, starts[j + 1] ?? lines.length).join('\n').replace(/\n#ifdef __cplusplus\n\}[\s\S]*$/, '').trim();
    return { title, code: body };
  });
  // between the introduction and the first banner: the version, limits and statuses
  const first = lines.findIndex((l, i) => i > introEnd && l.startsWith('#define SS_VERSION'));
  if (first > 0 && starts.length) sections.unshift({ title: 'Version, limits and statuses', code: lines.slice(first, starts[0]).join('\n').trim() });
  return { intro, sections };
}

export function cPage(header) {
  const { intro, sections } = headerSections(header);
  return `---
title: C API reference
---

# C API reference

\`core/include/softscope.h\`, section by section (the [C API guide](../guide/c-api.md) has an example).

${codeBlock('text', intro)}

${sections.map((s) => `## ${md(s.title)}\n\n${codeBlock('c', s.code)}`).join('\n\n')}
`;
}
