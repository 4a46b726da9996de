// The playground as a new user meets it, in Chromium: on a phone (390 × 844)
// no view scrolls sideways, every tab is on screen and every control is at
// least 24 px; dark mode follows prefers-color-scheme and the toggle; the tabs
// follow the ARIA tab pattern and Back returns to the previous view; skip
// links lead to the figure and to the controls, and the Export bar is a few
// Tab presses from the top; axe-core finds no unnamed control, no misused
// ARIA, no text below 4.5:1 and no content outside a landmark in any view or
// in a widget.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { VIEW_IDS as VIEWS } from '../../wasm/views/index.js';
import { openPlayground, openView } from './open-playground.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// axe rules about names and ARIA (what "no unnamed controls" means, and ARIA used as specified), text contrast,
// landmarks (all content in one, each kind once), headings in order, skip links and scrollable regions the keyboard reaches
const AXE_RULES = ['button-name', 'select-name', 'label', 'input-button-name', 'aria-input-field-name', 'aria-toggle-field-name',
  'aria-allowed-attr', 'aria-required-attr', 'aria-required-children', 'aria-required-parent', 'aria-roles', 'aria-valid-attr',
  'aria-valid-attr-value', 'aria-command-name', 'aria-progressbar-name', 'link-name', 'svg-img-alt', 'role-img-alt', 'duplicate-id-aria',
  'color-contrast', 'region', 'landmark-one-main', 'landmark-unique', 'landmark-no-duplicate-banner', 'landmark-no-duplicate-contentinfo',
  'landmark-no-duplicate-main', 'landmark-banner-is-top-level', 'landmark-contentinfo-is-top-level', 'landmark-main-is-top-level',
  'landmark-complementary-is-top-level', 'heading-order', 'skip-link', 'bypass', 'scrollable-region-focusable'];

let pw, page, errors;
beforeAll(async () => {
  pw = await openPlayground({ width: 390, height: 844 });
  ({ page, errors } = pw);
});
afterAll(async () => { await pw?.close(); });

const ready = (view) => page.waitForSelector(`[data-view-figure="${view}"][data-complete="1"] svg`, { timeout: 30000 });

async function axe(context = 'document') {
  await page.evaluate(AXE);
  return page.evaluate(async ([rules, ctx]) => {
    const r = await window.axe.run(ctx === 'document' ? document : document.querySelector(ctx), { runOnly: { type: 'rule', values: rules } });
    return r.violations.map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  }, [AXE_RULES, context]);
}

describe('on a phone (390 × 844)', () => {
  it.each(VIEWS)('%s: no sideways scroll, every tab on screen, controls of 24 px and more', async (view) => {
    await openView(page, pw.server.url, view);
    const r = await page.evaluate(() => {
      const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => ({ e, r: e.getBoundingClientRect() })).filter(({ r }) => r.width > 0 && r.height > 0);
      const name = (e) => `${e.tagName.toLowerCase()}#${e.id || e.getAttribute('data-kernel') || e.textContent.trim().slice(0, 12)}`;
      return {
        scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        tabs: boxes('[role=tab]').map(({ r }) => [r.left, r.right]),
        small: boxes('button, input, select, [role=tab]').filter(({ r }) => r.width < 24 || r.height < 24).map(({ e, r }) => `${name(e)} ${Math.round(r.width)}x${Math.round(r.height)}`),
        figure: document.querySelector('[data-view-figure] svg').getBoundingClientRect().width,
      };
    });
    expect(r.scroll, 'horizontal scroll (px)').toBeLessThanOrEqual(0);
    expect(r.tabs).toHaveLength(VIEWS.length);
    for (const [l, rt] of r.tabs) { expect(l).toBeGreaterThanOrEqual(0); expect(rt).toBeLessThanOrEqual(390); }
    expect(r.small).toEqual([]);
    expect(r.figure).toBeGreaterThan(300); // the figure takes the width it has
    expect(errors).toEqual([]);
  });
});

describe('dark mode', () => {
  it('follows prefers-color-scheme, and the toggle overrides it; figures draw on dark paper', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${pw.server.url}#view=normalizers`);
    await ready('normalizers');
    const look = () => page.evaluate(() => ({
      theme: document.documentElement.dataset.theme,
      body: getComputedStyle(document.body).backgroundColor,
      paper: document.querySelector('[data-view-figure] svg > rect').getAttribute('fill'),
    }));
    const lum = (rgb) => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; };
    const dark = await look();
    expect(dark.theme).toBe('dark');
    expect(lum(dark.body)).toBeLessThan(0.2);
    expect(dark.paper).toBe('#141821');
    await page.selectOption('#theme', 'light');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    const light = await look();
    expect(lum(light.body)).toBeGreaterThan(0.8);
    expect(light.paper).toBe('#ffffff');
    await page.selectOption('#theme', 'auto');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(errors).toEqual([]);
  });
});

describe('keyboard and screen readers', () => {
  it('tabs: arrows move between them, the panel is labelled by its tab, Back returns to the previous view', async () => {
    await page.goto(`${pw.server.url}#view=normalizers`);
    await ready('normalizers');
    await page.focus('#tab-normalizers');
    await page.keyboard.press('ArrowRight');
    await ready('dispersion');
    expect(await page.evaluate(() => document.activeElement.id)).toBe('tab-dispersion');
    expect(await page.getAttribute('#tab-dispersion', 'aria-selected')).toBe('true');
    expect(await page.getAttribute('#tab-dispersion', 'aria-controls')).toBe('panel-dispersion');
    expect(await page.getAttribute('#panel-dispersion', 'aria-labelledby')).toBe('tab-dispersion');
    await page.keyboard.press('End');
    await ready(VIEWS.at(-1));
    expect(await page.evaluate(() => location.hash)).toMatch(new RegExp(`^#view=${VIEWS.at(-1)}`));
    await page.goBack();
    await ready('dispersion');
    expect(await page.getAttribute('#tab-dispersion', 'aria-selected')).toBe('true');
    await page.goBack();
    await ready('normalizers');
    expect(await page.getAttribute('#tab-normalizers', 'aria-selected')).toBe('true');
    expect(errors).toEqual([]);
  });

  it.each(VIEWS)('%s: axe finds nothing (names, ARIA, contrast, landmarks); the figure has a live summary', async (view) => {
    await openView(page, pw.server.url, view);
    expect(await axe()).toEqual([]);
    await page.waitForFunction((v) => document.querySelector(`[data-summary="${v}"]`)?.textContent.length > 10, view, { timeout: 5000 });
    expect(await page.getAttribute(`[data-summary="${view}"]`, 'aria-live')).toBe('polite');
  });

  it.each(VIEWS)('%s: skip links to the figure and to the controls come first; the Export bar within 8 Tab presses', async (view) => {
    await page.goto('about:blank'); // a fresh document: focus starts at the top
    await openView(page, pw.server.url, view);
    const hash = await page.evaluate(() => location.hash);
    const focused = () => page.evaluate(() => {
      const e = document.activeElement;
      return { id: e.id, text: e.textContent.trim(), inFigure: !!e.closest('#view-figure'), inControls: !!e.closest('#view-controls'), inExport: !!e.closest('.export') };
    });
    let presses = 0;
    for (; presses < 60 && !(await focused()).inExport; presses++) await page.keyboard.press('Tab');
    expect(presses, 'Tab presses to the first export button').toBeLessThanOrEqual(8);

    await page.goto('about:blank');
    await openView(page, pw.server.url, view);
    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Skip to the figure');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('view-figure');
    await page.keyboard.press('Tab');
    expect((await focused()).inFigure).toBe(true);
    await page.focus('.skip-link:nth-of-type(2)');
    expect((await focused()).text).toBe('Skip to the controls');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('view-controls');
    await page.keyboard.press('Tab');
    expect((await focused()).inControls).toBe(true);
    expect(await page.evaluate(() => location.hash)).toBe(hash); // the state in the address is kept
    expect(errors).toEqual([]);
  });

  it('a widget: axe inside its shadow root finds nothing either', async () => {
    await page.goto(`${pw.server.url}#view=normalizers`);
    await ready('normalizers');
    await page.evaluate(() => { document.body.innerHTML = '<main><softscope-widget view="normalizers" controls="temperature,kernels"></softscope-widget></main>'; });
    await page.addScriptTag({ type: 'module', content: "import './embed/embed.js';" });
    await page.waitForFunction(() => document.querySelector('softscope-widget')?.complete, null, { timeout: 30000 });
    expect(await axe()).toEqual([]);
  });
});
