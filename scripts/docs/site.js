// The docs site as files: the hand-written pages of docs/ (guides, the home
// page, the benchmarks page with its <!-- bench:NAME --> sections filled from
// the run), and the generated pages: one per kernel, one per view, the JS, CLI
// and C references; plus the sidebar. Pure: the inputs are data, the output a
// Map of relative path -> text (scripts/gen-docs.js reads and writes files).
import { kernelPage, kernelIndex, FAMILY_TITLES } from './kernels.js';
import { viewPage, viewIndex, viewsShowing, registryShim } from './views.js';
import { jsPage, cliPage, cPage } from './reference.js';
import { benchSections, browserSections, fillSections } from '../bench/tables.js';

// The guides in reading order; a guide not listed comes after these, by name.
export const GUIDE_ORDER = ['getting-started', 'widgets', 'registry', 'js-api', 'cli', 'c-api', 'accuracy', 'adding-a-kernel', 'adding-a-view'];

const titleOf = (text, fallback) => /^---\n[\s\S]*?^title:\s*(.+)$[\s\S]*?^---/m.exec(text)?.[1].trim()
  ?? /^# (.+)$/m.exec(text)?.[1].trim() ?? fallback;

/**
 * input: { registry (JSON of build/native/registry-json), views: [{ view (a
 * module of wasm/views), description }], bench (bench.json or null),
 * benchBrowser (bench-browser.json of make bench-browser, or null), cli: {
 * overview, commands: [{ name, summary, help }] }, dts ([{ specifier, file,
 * text }]: the package's typed entry points, see typedEntries), header
 * (softscope.h text), pages: Map of docs/ path -> text (hand-written) }.
 * Returns { files: Map(path -> text), sidebar }.
 */
export function buildSite({ registry, views, bench, benchBrowser = null, cli, dts, header, pages, results = {} }) {
  const files = new Map();
  const ss = registryShim(registry);
  const kernels = registry.kernels;
  const names = kernels.map((k) => k.name);
  const modules = views.map((v) => v.view);
  const sections = bench ? { ...benchSections(bench), ...(benchBrowser ? browserSections(bench, benchBrowser) : {}) } : {};

  for (const [path, text] of pages) files.set(path, path.endsWith('.md') && bench ? fillSections(text, sections) : text);
  for (const k of kernels) files.set(`kernels/${k.name}.md`, kernelPage(k, { names, bench, shows: viewsShowing(k, modules, ss) }));
  files.set('kernels/index.md', kernelIndex(kernels));
  for (const { view, description } of views) files.set(`views/${view.id}.md`, viewPage(view, { ss, description, results: results[view.id] }));
  files.set('views/index.md', viewIndex(modules));
  files.set('reference/js.md', jsPage(dts));
  files.set('reference/cli.md', cliPage(cli));
  files.set('reference/c.md', cPage(header));

  const guides = [...pages.keys()].filter((p) => /^guide\/[^/]+\.md$/.test(p))
    .map((p) => ({ slug: p.slice(6, -3), title: titleOf(pages.get(p), p) }))
    .sort((a, b) => rank(a.slug) - rank(b.slug) || a.slug.localeCompare(b.slug));
  const fams = [...new Set(kernels.map((k) => k.family))];
  const sidebar = [
    { text: 'Guide', items: guides.map((g) => ({ text: g.title, link: `/guide/${g.slug}` })) },
    { text: 'Views', items: [{ text: 'All views', link: '/views/' }, ...modules.map((v) => ({ text: v.label, link: `/views/${v.id}` }))] },
    { text: 'Kernels', items: [{ text: `All kernels (${kernels.length})`, link: '/kernels/' },
      ...fams.map((f) => ({ text: FAMILY_TITLES[f] ?? f, collapsed: true,
        items: kernels.filter((k) => k.family === f).map((k) => ({ text: k.name, link: `/kernels/${k.name}` })) }))] },
    { text: 'Reference', items: [{ text: 'JS API', link: '/reference/js' }, { text: 'CLI', link: '/reference/cli' },
      { text: 'C API', link: '/reference/c' }] },
    ...(pages.has('benchmarks.md') ? [{ text: 'Benchmarks', link: '/benchmarks' }] : []),
  ];
  return { files, sidebar };
}

function rank(slug) {
  const i = GUIDE_ORDER.indexOf(slug);
  return i < 0 ? GUIDE_ORDER.length : i;
}
