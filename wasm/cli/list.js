// softscope list [family] [--json]: the registry, one line per kernel that
// fits 100 columns (name, family, parameters with their defaults), or as JSON.
import { UsageError, toJson, table, num } from './shared.js';

export const command = {
  name: 'list',
  summary: 'the registered kernels (by family), one line each',
  usage: 'softscope list [family] [--json]',
  options: { json: 'flag', family: 'value', impl: 'value' },
  help: `family: normalizer, sampler, optimizer, quantizer, measure, loss, attention (all by default;
--family F is the same). Each line: name, family, parameters as name=default.
\`softscope describe <kernel>\` prints one kernel's full descriptor (formula, paper, ranges).
--json prints {"version","impl","build","max_n","kernels":[registry entries]}.`,
  positional: [0, 1],
  async run(ctx, { pos, opt }) {
    if (pos[0] && opt.family && pos[0] !== opt.family) throw new UsageError(`list: family "${pos[0]}" and --family ${opt.family} disagree`);
    const ss = await ctx.load(opt.impl);
    const family = pos[0] ?? opt.family;
    const list = ss.kernels(family);
    if (opt.json) {
      ctx.out(toJson({ version: ss.version, impl: ss.impl, build: ss.build, max_n: ss.maxN, kernels: list }));
      return;
    }
    const nameW = Math.max(...list.map((k) => k.name.length)), famW = Math.max(...list.map((k) => k.family.length));
    const room = 100 - nameW - famW - 4;
    const rows = list.map((k) => {
      let ps = k.params.map((p) => `${p.name}=${p.choices ? p.choices[p.default - p.min] : num(p.default, 4)}`).join(' ') || '-';
      if (ps.length > room) ps = `${ps.slice(0, room - 1)}…`;
      return [k.name, k.family, ps];
    });
    ctx.out(table(rows));
    ctx.out(`\n${list.length} kernels; softscope ${ss.version}, ${ss.impl} build. softscope describe <kernel> for one in full.`);
  },
};
