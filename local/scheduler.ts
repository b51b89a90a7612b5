/**
 * A local stand-in for the EventBridge schedule: invokes the sweeper with a ScheduledEvent
 * shortly after start and then every `intervalSeconds`. Runs never overlap; a run that is
 * still going when the next is due makes that tick a no-op.
 */
import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { sweeper } from '../functions/routes';
import type { HandlerLoader } from './handler-loader';
import { lambdaContext } from './lambda-context';
import { LOCAL_ACCOUNT_ID, LOCAL_PREFIX, LOCAL_REGION } from './local-config';

type SweeperHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface SchedulerOptions {
  loader: HandlerLoader;
  log: (line: string) => void;
  intervalSeconds: number;
  /** Delay of the first run. */
  firstRunAfterMs?: number;
  /** Sweeper entry; defaults to the sweeper of the route table. */
  entry?: string;
  timeoutSeconds?: number;
}

export interface Scheduler {
  /** Runs the sweeper now (unless a run is in progress) and resolves when it is done. */
  runNow(): Promise<void>;
  /** Skips the runs that fall due until `resume()`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export function scheduledEvent(at: Date = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: `${at.toISOString().slice(0, 19)}Z`,
    region: LOCAL_REGION,
    resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${LOCAL_PREFIX}-sweeper`],
    detail: {},
  };
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const entry = options.entry ?? sweeper.entry;
  let running: Promise<void> | undefined;
  let stopped = false;
  let paused = false;

  const run = (): Promise<void> => {
    if (running) return running;
    const loaded = options.loader.load<SweeperHandler>(entry);
    if (loaded.status !== 'loaded') return Promise.resolve();
    running = loaded
      .handler(scheduledEvent(), lambdaContext(sweeper.name, options.timeoutSeconds ?? 300))
      .then(
        () => undefined,
        (error: unknown) =>
          options.log(`Sweeper failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const tick = () => {
    if (!stopped && !paused) void run();
  };
  const first = setTimeout(tick, options.firstRunAfterMs ?? 2_000);
  const interval =
    options.intervalSeconds > 0 ? setInterval(tick, options.intervalSeconds * 1000) : undefined;

  return {
    runNow: run,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
    },
    async stop() {
      stopped = true;
      clearTimeout(first);
      if (interval) clearInterval(interval);
      if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    },
  };
}
