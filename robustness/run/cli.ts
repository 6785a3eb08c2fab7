// Robustness: `npm run robustness -- --minutes N --seed S --faults a,b,…` for long runs (faults: a list of
// failpoint names, "all" for every one a run can enable, "none"); `--controllers off` leaves the control loops
// out; `--check <history.json>` checks a written history again and prints its smallest violating sub-histories.

import { checkHistory, explain } from '../check';
import { ALL, FAILPOINTS } from './failpoints';
import { loadHistory, runRobustness } from './run';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
  if (process.argv.includes('--help')) {
    console.log('npm run robustness -- [--minutes N] [--seed S] [--faults a,b,…|all|none] [--controllers on|off] [--crud N] [--watch N] [--no-ws-ping] [--check history.json]\n');
    for (const f of FAILPOINTS) console.log(`  ${f.name.padEnd(32)} ${f.where === 'inside' ? '(inside) ' : ''}${f.what}`);
    return 0;
  }
  const file = arg('check');
  if (file) {
    const h = loadHistory(file);
    const report = checkHistory(h);
    console.log(`${report.counts.ops} operations, ${report.counts.events} changes, ${report.counts.watchEvents} watch events: ${report.violations.length} violations, ${report.unknown.length} unknown`);
    if (report.violations.length || report.unknown.length) console.log(explain(h, report));
    return report.violations.length ? 1 : 0;
  }
  const faultsArg = arg('faults') ?? 'all';
  const faults = faultsArg === 'all' ? ALL : faultsArg === 'none' ? [] : faultsArg.split(',').map((s) => s.trim()).filter(Boolean);
  const seed = Number(arg('seed') ?? Math.floor(Math.random() * 2 ** 31));
  const minutes = Number(arg('minutes') ?? 5);
  const result = await runRobustness({
    seed, durationMs: minutes * 60_000, faults, controllers: arg('controllers') !== 'off',
    wsPing: !process.argv.includes('--no-ws-ping'),
    crudClients: arg('crud') === undefined ? undefined : Number(arg('crud')), watchClients: arg('watch') === undefined ? undefined : Number(arg('watch')),
  });
  console.log(JSON.stringify(result.stats));
  return result.violations.length || result.unknown.length ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
