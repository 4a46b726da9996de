// softscope figure <view>: a view's figure for a state, headless — the same
// figure component the playground draws, rendered to SVG (and to PNG by
// resvg), and the numbers it shows as CSV or JSON. The state is a playground
// link (its hash) or key=value pairs; a key that is unknown or out of range
// is an error here (exit 2), where the playground would fall back with a
// notice.
import { UsageError } from './shared.js';
import { VIEW_IDS, view, parse, stateEntries } from '../views/index.js';
import { figureFiles } from '../views/files.js';
import { svgToPng, pngPixels, PNG_SCALE, MAX_PNG_PIXELS } from '../figures/png.js';

const THEMES = ['light', 'dark'];

export const command = {
  name: 'figure',
  summary: "a view's figure as SVG or PNG, and its numbers as CSV or JSON",
  usage: 'softscope figure <view> [--state S] [--out file.svg|file.png] [--data file.csv|file.json] [--width W] [--height H] [--theme light|dark]',
  options: { state: 'value', out: 'value', data: 'value', width: 'value', height: 'value', theme: 'value', impl: 'value' },
  help: `<view>: ${VIEW_IDS.join(', ')}
--state S   the view's state: a playground link or its hash ('#view=normalizers&kernels=softmax,sparsemax'),
            or key=value pairs joined by & or spaces ('kernels=softmax,entmax15 temperature=0.5');
            unset keys take their defaults; an unknown key or a bad value exits 2
--out F     write the figure to F: .svg, or .png (rasterized by @resvg/resvg-js); without --out
            and --data the SVG goes to stdout
--data F    write the numbers the figure shows: .csv (one row per mark) or .json
            ({"view","state","build","data"}: build is the wasm build that computed the numbers,
            relaxed, simd or scalar; the same as the playground's JSON export)
--width W, --height H   size in pixels (default: the view's width, and the height it needs); a PNG is
            drawn at 2x and may have at most 32 M pixels (2 W x 2 H; e.g. 2048 x 4096), else exit 2
--theme T   light (default) or dark`,
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const v = (() => { try { return view(pos[0]); } catch (e) { throw new UsageError(e.message); } })();
    const size = (flag) => {
      if (opt[flag] === undefined) return undefined;
      const x = Number(opt[flag]);
      if (!Number.isInteger(x) || x < 200 || x > 8000) throw new UsageError(`--${flag} ${opt[flag]}: an integer number of pixels in [200, 8000]`);
      return x;
    };
    const width = size('width'), height = size('height');
    const theme = opt.theme ?? 'light';
    if (!THEMES.includes(theme)) throw new UsageError(`--theme ${theme}: light or dark`);
    for (const [flag, exts] of [['out', ['.svg', '.png']], ['data', ['.csv', '.json']]])
      if (opt[flag] !== undefined && opt[flag] !== '-' && !exts.some((e) => opt[flag].toLowerCase().endsWith(e)))
        throw new UsageError(`--${flag} ${opt[flag]}: the file name must end in ${exts.join(' or ')}`);
    const entries = stateEntries(opt.state ?? '');
    const other = entries.find(([k, val]) => k === 'view' && val !== v.id);
    if (other) throw new UsageError(`--state: the link is of view ${other[1]}, not ${v.id}`);
    const ss = await ctx.load(opt.impl);
    const { state, notices } = parse(v.schema, entries, ss, { ignore: ['view'] });
    if (notices.length) {
      const n = notices[0];
      throw new UsageError(`--state: ${n.key}=${String(n.value).slice(0, 40)}: ${n.reason}${notices.length > 1 ? ` (and ${notices.length - 1} more)` : ''}`);
    }
    // a view that times (Performance) measures first, in this process
    const data = v.measure ? v.compute(ss, state, await v.measure(state)) : v.compute(ss, state);
    const files = figureFiles(ss, v, state, data, { width, height, theme });
    if (opt.out === undefined && opt.data === undefined) { ctx.out(files.svg.trimEnd()); return; }
    if (opt.out !== undefined) {
      if (opt.out.toLowerCase().endsWith('.png')) {
        const px = pngPixels(files.width, files.height);
        if (px > MAX_PNG_PIXELS)
          throw new UsageError(`--width ${files.width} --height ${files.height}: the PNG (drawn at ${PNG_SCALE}x: ${Math.ceil(files.width * PNG_SCALE)} x ${Math.ceil(files.height * PNG_SCALE)}) would be ${(px / 2 ** 20).toFixed(0)} M pixels, more than the ${MAX_PNG_PIXELS / 2 ** 20} M a PNG may have (128 MiB); lower --width or --height, or write .svg`);
        await ctx.write(opt.out, await svgToPng(files.svg), '--out');
      } else await ctx.write(opt.out, files.svg, '--out');
    }
    if (opt.data !== undefined) await ctx.write(opt.data, opt.data.toLowerCase().endsWith('.csv') ? files.csv : files.json, '--data');
  },
};
