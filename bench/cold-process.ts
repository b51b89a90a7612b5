/** What the end-to-end cold-start benches share: one fresh `node` process per run, and medians. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** In the fresh process: init (`require` of the bundle), then the first invocation, each timed. */
const COLD_START = `
const started = performance.now();
const { handler } = require(process.argv[1]);
const initialized = performance.now();
const remainingMs = Number(process.argv[3]);
handler(JSON.parse(process.argv[2]), { awsRequestId: 'bench', getRemainingTimeInMillis: () => remainingMs }).then((result) => {
  const done = performance.now();
  process.stdout.write(JSON.stringify({ result, init: initialized - started, first: done - initialized }));
});`;

export interface ColdRun<Result> {
  result: Result;
  /** Milliseconds of `require` (the module's init included). */
  init: number;
  /** Milliseconds of the first invocation. */
  first: number;
}

/** Loads `bundle` in a fresh process and hands it `event` (with a Lambda context of `timeoutMs`). */
export async function coldRun<Result>(
  bundle: string,
  event: unknown,
  options: { timeoutMs: number; env: NodeJS.ProcessEnv },
): Promise<ColdRun<Result>> {
  const { stdout } = await run(
    process.execPath,
    ['-e', COLD_START, bundle, JSON.stringify(event), String(options.timeoutMs)],
    { env: options.env },
  );
  return JSON.parse(stdout) as ColdRun<Result>;
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** One table row per bundle: the medians of init, the first invocation and their sum. */
export function printMedians(label: string, runs: Map<string, ColdRun<unknown>[]>): void {
  console.log(`| bundle | init | ${label} | init + ${label} |\n|---|---:|---:|---:|`);
  for (const [name, measured] of runs) {
    const init = median(measured.map((each) => each.init));
    const first = median(measured.map((each) => each.first));
    const total = median(measured.map((each) => each.init + each.first));
    console.log(`| ${name} | ${init.toFixed(1)} ms | ${first.toFixed(1)} ms | ${total.toFixed(1)} ms |`);
  }
}
