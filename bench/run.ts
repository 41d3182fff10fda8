/**
 * `npm run bench`: burn-ts beside its peers, measured in the same run. Every case of
 * bench/cases/ runs on every available implementation of bench/impls/ (case by case, so all
 * columns of a row see the same machine load); the table prints medians, spreads and burn-ts's
 * speed relative to the fastest peer. See bench/README.md.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { allCases } from './cases/index.js';
import { burnImpl } from './impls/burn.js';
import { ortImpl } from './impls/ort.js';
import { tfjsImpl } from './impls/tfjs.js';
import { torchImpl } from './impls/torch.js';
import { webgpuImpl } from './impls/burn-webgpu.js';
import { FULL_CONFIG, parseArgs, QUICK_CONFIG, USAGE } from './lib/cli.js';
import { inputValues } from './lib/data.js';
import { DATA_BENCH_KEYWORDS, runDataBench } from './cases/data.js';
import { FUSION_BENCH_KEYWORDS, runFusionBench } from './cases/fusion.js';
import { errorText } from './lib/measure.js';
import { unitOf, valueOf } from './lib/metric.js';
import { describeOutcome, ratiosToPeers, renderTable, rowValues, type CaseResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { NotAvailable, type Impl, type Outcome } from './lib/types.js';

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  const config = options.quick ? QUICK_CONFIG : FULL_CONFIG;
  const matches = (text: string, subs: readonly string[]): boolean =>
    subs.length === 0 || subs.some((s) => text.toLowerCase().includes(s.toLowerCase()));
  const cases = allCases.filter((c) => matches(`${c.id} ${c.title}`, options.filters));
  // The data-loader family (bench/cases/data.ts) measures whole epochs and prints its own table.
  const dataSelected = matches(DATA_BENCH_KEYWORDS, options.filters);
  // The fusion family (bench/cases/fusion.ts) compares fused with unfused devices in its own table.
  const fusionSelected = matches(FUSION_BENCH_KEYWORDS, options.filters);
  const runOwnTables = async (): Promise<void> => {
    if (dataSelected) await runDataBench({ quick: options.quick });
    if (fusionSelected) await runFusionBench({ quick: options.quick, filters: options.filters });
  };
  if (cases.length === 0 && !dataSelected && !fusionSelected) {
    throw new Error(`no case matches --filter ${options.filters.join(',')}`);
  }
  if (cases.length === 0) return runOwnTables();

  const all: Impl[] = [
    burnImpl({ readback: options.readback }),
    burnImpl({ readback: options.readback, engine: 'native' }),
    burnImpl({ readback: options.readback, engine: 'wasm' }),
    webgpuImpl({ readback: options.readback }),
    tfjsImpl('cpu', { readback: options.readback }),
    tfjsImpl('wasm', { readback: options.readback }),
    ortImpl(),
    torchImpl({ readback: options.readback }),
  ];
  const impls = all.filter((impl) => impl.isBurn || matches(impl.name, options.impls));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);

  const details = new Map<string, string>();
  const unavailable = new Map<string, string>();
  for (const impl of impls) {
    try {
      details.set(impl.name, await impl.init());
    } catch (e) {
      unavailable.set(impl.name, e instanceof NotAvailable ? e.message : `failed to load: ${errorText(e)}`);
    }
    log(`${impl.name}: ${details.get(impl.name) ?? `n/a (${unavailable.get(impl.name)})`}`);
  }
  // The ratio and target columns follow burn-ts's fastest engine that loaded (native, else js).
  const burnColumns = impls.filter((i) => i.isBurn);
  const burn = (burnColumns.find((i) => i.name === 'burn-ts(native)' && !unavailable.has(i.name)) ?? burnColumns[0]!)
    .name;

  const loadBefore = loadavg();
  const started = Date.now();
  const results: CaseResult[] = [];
  for (const [n, c] of cases.entries()) {
    let cached: readonly Float32Array[] | undefined;
    const inputs = (): readonly Float32Array[] => (cached ??= c.inputs.map(inputValues));
    const outcomes = new Map<string, Outcome>();
    for (const impl of impls) {
      const missing = unavailable.get(impl.name);
      const skipped = c.only && !c.only.includes(impl.name) ? 'not run for this case' : missing;
      // A short pause first: threads the previous implementation left spinning (OpenBLAS, OpenMP,
      // burn-ts's pool) would otherwise take the cores from this one on a small machine.
      if (skipped === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
      const outcome: Outcome =
        skipped !== undefined
          ? { ok: false, reason: skipped }
          : await impl.measure(c, inputs, c.measure ? { ...config, ...c.measure } : config);
      outcomes.set(impl.name, outcome);
      log(`[${n + 1}/${cases.length}] ${c.title} · ${impl.name}: ${describeOutcome(c, outcome)}`);
    }
    results.push({ case: c, outcomes });
  }
  for (const impl of impls) await impl.close();
  const seconds = (Date.now() - started) / 1000;
  const loadAfter = loadavg();

  const names = impls.map((i) => i.name);
  const cpu = cpus();
  console.log(`\n## burn-ts benchmark${options.quick ? ' (quick)' : ''}\n`);
  console.log(renderTable(results, names, burn));
  console.log('');
  console.log(
    `Values: median over ${options.quick ? 'a few' : 'repeated'} measurements, ±: half the inter-quartile range of the samples.`,
  );
  console.log(
    `Ratio: burn-ts speed ÷ fastest peer's speed (above 1: burn-ts is faster). Checksums compare every output with burn-ts's.`,
  );
  if (results.some((r) => r.case.metric.kind === 'step')) {
    console.log(
      `Training steps: forward and backward of each run timed separately; "backward ÷ forward" is the median of each run's ratio (lower is better; compare the columns).`,
    );
  }
  if (results.some((r) => r.case.metric.kind === 'rate')) {
    console.log(
      `Training throughput: images ÷ median step time; a step is forward, loss read back to the host, backward and an Adam update (higher is better).`,
    );
  }
  if (results.some((r) => r.case.metric.kind === 'decorator')) {
    console.log(
      `Autodiff decorator: time per op on Device.cpu().autodiff() minus on Device.cpu() (median of interleaved batch pairs).`,
    );
  }
  for (const name of names) console.log(`- ${name}: ${details.get(name) ?? `n/a (${unavailable.get(name)})`}`);
  console.log(
    `- machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}; load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after; ${seconds.toFixed(0)} s${options.readback ? '; --readback' : ''}`,
  );

  if (options.json) {
    const raw = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpu.length,
        model: cpu[0]?.model,
        node: process.version,
        loadavgBefore: loadBefore,
        loadavgAfter: loadAfter,
      },
      quick: options.quick,
      readback: options.readback,
      config,
      implementations: names.map((name) => ({ name, detail: details.get(name), unavailable: unavailable.get(name) })),
      results: results.map((r) => ({
        case: r.case,
        unit: unitOf(r.case).unit,
        ratiosToPeers: ratiosToPeers(r, burn),
        rows: rowValues(r),
        outcomes: Object.fromEntries(
          [...r.outcomes].map(([name, o]) => [
            name,
            o.ok
              ? { ...o, secondsPerCall: summarize(o.samples), value: valueOf(r.case, summarize(o.samples).median) }
              : o,
          ]),
        ),
      })),
    };
    writeFileSync(options.json, `${JSON.stringify(raw, null, 2)}\n`);
    console.log(`\nRaw results: ${options.json}`);
  }
  await runOwnTables();
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  console.error(USAGE);
  process.exitCode = 1;
});
