// The docs generator (scripts/gen-docs.js, scripts/docs/): a kernel added to
// the registry gets its page and its sidebar entry with no hand edit; the
// plain-text formulas are typeset; every internal link of the generated
// pages has its target; the references find what their sources hold. And
// the README stays a newcomer's page that points to the docs.
import { fillClaims } from '../../scripts/claims-table.js';
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { createSoftscope } from '../../wasm/api/index.js';
import { formulaHtml } from '../../scripts/docs/formula.js';
import { buildSite } from '../../scripts/docs/site.js';
import { dtsSections, headerSections, cliCommands, jsPage } from '../../scripts/docs/reference.js';
import { readPages, viewSources, typeSources } from '../../scripts/gen-docs.js';

const ROOT = new URL('../../', import.meta.url);
const read = (p) => readFileSync(new URL(p, ROOT), 'utf8');

describe('formulaHtml: the registry\'s plain text as math', () => {
  it.each([
    ['y_i = x_i', 'y<sub>i</sub> = x<sub>i</sub>'],
    ['n^(s x_i)', 'n<sup>s x<sub>i</sub></sup>'],
    ['p_j^1.5', 'p<sub>j</sub><sup>1.5</sup>'],
    ['sum_{j<=k} z_(j)', '∑<sub>j≤k</sub> z<sub>(j)</sub>'],
    ['max(x - tau, 0)', 'max(x − τ, 0)'],
    ['lambda SM_hyp', 'λ SM<sub>hyp</sub>'],
    ['sqrt(v_hat) + eps', '√(v̂) + eps'],
    ['m <- b1 m', 'm ← b1 m'],
    ['KL(p || q)', 'KL(p ‖ q)'],
    ['H_inf(p)', 'H<sub>∞</sub>(p)'],
    ['(g - <g, y>)', '(g − ⟨g, y⟩)'],
    ['x_i != 0 and a > b', 'x<sub>i</sub> ≠ 0 and a &gt; b'],
    ['W ~ N(0, I)', 'W ∼ N(0, I)'],
  ])('%s', (text, html) => {
    expect(formulaHtml(text)).toBe(html);
  });

  it('keeps kernel names whole (their underscores are not subscripts)', () => {
    expect(formulaHtml('p = entmax_bisect(x; alpha)', { code: ['entmax_bisect'] })).toBe('p = <code>entmax_bisect</code>(x; α)');
  });

  it('never leaves a tag or a Vue interpolation from the text', () => {
    const out = formulaHtml('a <script> {{ x }} & b');
    expect(out).not.toMatch(/<script|\{\{/);
  });
});

describe('the site from the registry', () => {
  let registry, site, pages;
  const extra = {
    name: 'zz_made_up', family: 'normalizer', summary: 'A made-up normalizer for this test',
    formula: 'y_i = exp(beta x_i) / sum_j exp(beta x_j)', paper: 'Nobody 2026, \'Not a paper\'', input: 'logits', output: 'probs',
    has_backward: true, has_param_backward: false, impls: ['scalar', 'simd'], max_n: 67108864,
    params: [{ name: 'beta', type: 'float', min: 0, max: 10, min_open: true, max_open: false, default: 1, ui_min: 0.1, ui_max: 5,
      log_scale: true, help: 'inverse temperature (x < 0 allowed)' }],
  };

  beforeAll(async () => {
    const ss = await createSoftscope({ impl: 'simd' }); // its entries list the simd impl (the scalar build's do not)
    registry = { kernels: [...ss.kernels(), extra], functions: ss.functions, schedules: ss.schedules };
    pages = readPages();
    site = buildSite({
      registry, views: viewSources(), bench: JSON.parse(read('tests/bench/results/bench.json')),
      cli: { overview: 'usage: softscope <command>\n  list       the kernels\n', commands: [{ name: 'list', summary: 'the kernels', help: 'usage: softscope list' }] },
      dts: typeSources(), header: read('core/include/softscope.h'), pages,
    });
  });

  it('a kernel added to the registry gets its page, index row and sidebar entry', () => {
    const page = site.files.get('kernels/zz_made_up.md');
    expect(page).toBeDefined();
    expect(page).toContain('# zz_made_up');
    expect(page).toContain('<div class="formula">y<sub>i</sub> = exp(β x<sub>i</sub>) / ∑<sub>j</sub> exp(β x<sub>j</sub>)</div>');
    expect(page).toContain('Nobody 2026');
    // its parameter: open lower end, closed upper, default, meaning (escaped for Vue and HTML)
    expect(page).toMatch(/<code>beta<\/code><\/td><td>float<\/td><td>\(0, 10\]<\/td><td>1<\/td><td>inverse temperature \(x &lt; 0 allowed\)/);
    expect(page).toContain('VJP (backward pass): **yes**');
    expect(page).toContain('gradient with respect to its parameters: **no**');
    // a normalizer: the Normalizers view shows it, live
    expect(page).toContain('<softscope-widget view="normalizers" kernels="zz_made_up"></softscope-widget>');
    expect(page).toContain('Not in the committed benchmark run.');
    expect(site.files.get('kernels/index.md')).toContain('[zz_made_up](./zz_made_up.md)');
    expect(site.files.get('views/normalizers.md')).toContain('[zz_made_up](../kernels/zz_made_up.md)');
    const group = site.sidebar.find((g) => g.text === 'Kernels').items.find((g) => g.text === 'Normalizers');
    expect(group.items).toContainEqual({ text: 'zz_made_up', link: '/kernels/zz_made_up' });
  });

  it('regress_view_pages_read_the_registry_enums: from the registry JSON as make docs reads it (enums, no top-level schedules), the view pages list the schedules and the tasks with their defaults', () => {
    const json = { kernels: registry.kernels, functions: registry.functions, enums: { schedule: [...registry.schedules], task: ['max_retrieval', 'kv_retrieval'], positions: ['none', 'learned'] } };
    const files = buildSite({ registry: json, views: viewSources(), bench: null, cli: { overview: '', commands: [] }, dts: typeSources(), header: read('core/include/softscope.h'), pages: new Map() }).files;
    const row = (page, key) => new RegExp(`<tr><td><code>${key}</code></td>.*?</tr>`).exec(files.get(page))?.[0];
    expect(row('views/optimizers.md', 'schedule')).toContain(registry.schedules.map((x) => `<code>${x}</code>`).join(', '));
    expect(row('views/experiments.md', 'schedule')).toContain('<td><code>cosine</code></td>');
    expect(row('views/experiments.md', 'task')).toContain('<code>max_retrieval</code>, <code>kv_retrieval</code></td><td><code>max_retrieval</code>');
  });

  it('a view given a results file (make docs: --results experiments) gets it on its page widget, as an attribute; the others do not', () => {
    const files = buildSite({ registry, views: viewSources(), bench: null, cli: { overview: '', commands: [] }, dts: typeSources(),
      header: read('core/include/softscope.h'), pages: new Map(), results: { experiments: '../results/experiments.json' } }).files;
    expect(files.get('views/experiments.md')).toContain('<softscope-widget view="experiments" results="../results/experiments.json"></softscope-widget>');
    expect(files.get('views/optimizers.md')).toContain('<softscope-widget view="optimizers"></softscope-widget>');
    expect(site.files.get('views/experiments.md')).toContain('<softscope-widget view="experiments"></softscope-widget>');
  });

  it('every registry kernel has a page with its formula, accuracy and benchmark sections', () => {
    for (const k of registry.kernels) {
      const page = site.files.get(`kernels/${k.name}.md`);
      expect(page, k.name).toMatch(/## Formula[\s\S]*## Paper[\s\S]*## Parameters[\s\S]*## Accuracy[\s\S]*## Backward pass[\s\S]*## Live[\s\S]*## Benchmark/);
    }
    expect(site.files.get('kernels/softmax.md')).toContain('relative error ≤ **2e-6**');
    expect(site.files.get('kernels/top_p.md')).toContain('**bit-identical**');
    expect(site.files.get('kernels/adam.md')).toContain('<softscope-widget view="optimizers" kernels="adam">');
  });

  it('every internal Markdown link of every page has its target', () => {
    const targets = new Set([...site.files.keys()]);
    const bad = [];
    for (const [file, text] of site.files) {
      if (!file.endsWith('.md')) continue;
      for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(href) || href.startsWith('/bench/')) continue; // external, or public/ assets
        const target = new URL(href.split('#')[0] || file, `file:///site/${file}`).pathname.slice('/site/'.length);
        const md = target.endsWith('/') ? `${target}index.md` : target;
        if (!targets.has(md)) bad.push(`${file} -> ${href}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the benchmarks page is filled from the run', () => {
    const bench = site.files.get('benchmarks.md');
    expect(bench).toMatch(/<!-- bench:normalizer -->\nns per element; input: [\s\S]*\| softmax \| 2²⁰ \|/);
    expect(pages.get('benchmarks.md')).toMatch(/<!-- bench:normalizer -->\n<!-- \/bench:normalizer -->/); // the committed template holds no numbers
  });
});

describe('the references find their sources\' parts', () => {
  it('index.d.ts: createSoftscope, the Softscope interface; analysis/index.d.ts: the dispersion group', () => {
    const groups = dtsSections(read('wasm/api/index.d.ts'));
    const names = groups.flatMap((g) => g.entries.map((e) => e.name));
    expect(names).toEqual(expect.arrayContaining(['createSoftscope', 'Softscope']));
    expect(groups.flatMap((g) => g.entries).find((e) => e.name === 'Softscope').code).toMatch(/normalize<K/);
    const analysis = dtsSections(read('wasm/analysis/index.d.ts'));
    expect(analysis.find((g) => g.entries.some((e) => e.name === 'dispersionSweep')).title).toBe('the dispersion sweep');
  });

  it('the JS reference has a section per typed entry point of package.json, wildcards left out', () => {
    const entries = typeSources();
    expect(entries.map((e) => e.specifier)).toEqual(expect.arrayContaining(['softscope', 'softscope/analysis', 'softscope/state']));
    expect(entries.some((e) => e.specifier.includes('*'))).toBe(false);
    for (const e of entries) expect(existsSync(new URL(e.file, ROOT)), e.file).toBe(true);
    const page = jsPage(entries);
    for (const e of entries) expect(page).toContain(`## ${e.specifier}\n`);
    expect(page).toMatch(/## softscope\/analysis\n[\s\S]*#### dispersionSweep\n/);
    // every entry point's section has entries, the element's too: its type,
    // its tag in HTMLElementTagNameMap (declare global) and React's JSX
    for (const e of entries) expect(dtsSections(read(e.file)).flatMap((g) => g.entries).length, e.specifier).toBeGreaterThan(0);
    expect(page).toMatch(/## softscope\/embed\n[\s\S]*#### SoftscopeWidget\n[\s\S]*#### global\n[\s\S]*'softscope-widget': SoftscopeWidget/);
    expect(page).toMatch(/## softscope\/embed\/react\n[\s\S]*#### module 'react'\n/);
  });

  it('softscope.h: its sections in order, each with its declarations', () => {
    const { intro, sections } = headerSections(read('core/include/softscope.h'));
    expect(intro).toContain('Conventions');
    expect(sections[0].code).toContain('#define SS_VERSION');
    expect(sections.map((s) => s.title).slice(1, 4)).toEqual(['Statuses', 'Implementations', 'Registry']);
    expect(sections.find((s) => s.title === 'Statuses').code).toContain('typedef enum ss_status');
    expect(sections.find((s) => s.title === 'Registry').code).toContain('ss_kernel_find');
    expect(sections.at(-1).code).not.toMatch(/__cplusplus/);
  });

  it('the CLI overview: every command line', () => {
    expect(cliCommands('usage\n  list       the kernels\n  describe   one kernel\n\nsoftscope --version')).toEqual([
      { name: 'list', summary: 'the kernels' }, { name: 'describe', summary: 'one kernel' }]);
  });
});

describe('the README', () => {
  const readme = read('README.md');

  it('is under 300 lines, with the two commands and a pointer to the docs', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
    expect(readme).toContain('make play');
    expect(readme).toContain('make test');
    expect(readme).toMatch(/`make docs` builds the docs site into `build\/docs\/`/);
    expect(readme).toMatch(/<!-- bench:headline -->\n\| softmax, n = 2²⁰ \|/);
  });

  it('links only to files that exist', () => {
    for (const [, href] of readme.matchAll(/\]\(([^)\s#]+)[^)]*\)/g)) {
      if (/^[a-z]+:/.test(href)) continue;
      expect(existsSync(new URL(href, ROOT)), href).toBe(true);
    }
  });
});

describe('the claims of the Experiments view', () => {
  // docs/claims.json (scripts/claims.js) is what the README's claims table
  // reads; the guide lists each claim's runs so a reader can open them.
  const claims = JSON.parse(read('docs/claims.json')).claims;
  it('every claim of docs/claims.json has its runs in its guide (links: experiments; a language model\'s options: language), a verdict by the rule, and a row in the README', () => {
    const guide = read('docs/guide/experiments.md'), lmGuide = read('docs/guide/language.md');
    const readme = read('README.md');
    expect(claims.length).toBeGreaterThanOrEqual(6);
    for (const c of claims) {
      for (const [name, run] of Object.entries(c.runs)) {
        if (typeof run === 'string') expect(guide, `${c.id}: ${run}`).toContain(`\`${run}\``);
        else expect(lmGuide, `${c.id}: ${name}`).toContain(`${c.id}`);
      }
      if (!c.fixedSeeds) expect(c.seeds.length, c.id).toBeGreaterThanOrEqual(5);
      expect(['reproduced', 'partly', 'not reproduced'].includes(c.verdict) || c.verdict.startsWith('one seed'), `${c.id}: ${c.verdict}`).toBe(true);
      expect(c.tests.length, c.id).toBeGreaterThan(0);
    }
    // the table is what scripts/claims-table.js writes from the JSON: nothing typed by hand
    expect(fillClaims(readme, JSON.parse(read('docs/claims.json')))).toBe(readme);
    const section = readme.slice(readme.indexOf('## What the papers claim'), readme.indexOf('## The registry'));
    expect(section.split('\n').filter((l) => /^\| (?!claim|---)/.test(l)).length).toBe(claims.length);
  });
});
