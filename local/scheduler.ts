/**
 * A local stand-in for the EventBridge schedule: the sweeper gets a ScheduledEvent
 * `firstRunAfterMs` after start, then every `intervalSeconds` (0: only that run); a tick that
 * finds a run going does nothing. A run gets the deployed timeout (`sweeperTimeoutSeconds`):
 * past it the run is given up, as Lambda ends it, so one hanging run cannot block every later
 * one (in this process it cannot be killed: whatever it still waits for ends on its own).
 */
import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { FunctionDefinition } from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import { lambdaContext } from './lambda-context';
import { LOCAL_ACCOUNT_ID, LOCAL_PREFIX, LOCAL_REGION, loadHandler, messageOf } from './local-config';

type SweeperHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export function startScheduler(options: {
  sweeper: Pick<FunctionDefinition, 'name' | 'entry'>;
  log: (line: string) => void;
  intervalSeconds: number;
  firstRunAfterMs: number;
  /** A run's time limit (the deployed sweeper's timeout unless a test sets another). */
  timeoutSeconds?: number;
  /** The runtime's resource prefix, in the rule's ARN (default `inkpress-local`). */
  prefix?: string;
}) {
  const ruleArn = `arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${options.prefix ?? LOCAL_PREFIX}-sweeper`;
  const timeoutSeconds = options.timeoutSeconds ?? runtimeSettings.sweeperTimeoutSeconds;
  const { sweeper, log } = options;
  let running: Promise<void> | undefined;
  let paused = false;
  const tick = () => {
    if (running || paused) return;
    const at = new Date();
    const event: ScheduledEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: LOCAL_ACCOUNT_ID,
      time: `${at.toISOString().slice(0, 19)}Z`,
      region: LOCAL_REGION,
      resources: [ruleArn],
      detail: {},
    };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Task timed out after ${timeoutSeconds} seconds`)),
        timeoutSeconds * 1000,
      );
    });
    const run = (async () =>
      loadHandler<SweeperHandler>(sweeper.entry)(event, lambdaContext(sweeper.name, timeoutSeconds)))();
    run.catch(() => undefined);
    running = Promise.race([run, timedOut])
      .then(
        () => undefined,
        (error: unknown) => log(`Sweeper failed: ${messageOf(error)}`),
      )
      .finally(() => {
        clearTimeout(timer);
        running = undefined;
      });
  };
  const first = setTimeout(tick, options.firstRunAfterMs);
  const interval =
    options.intervalSeconds > 0 ? setInterval(tick, options.intervalSeconds * 1000) : undefined;
  return {
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    async stop() {
      clearTimeout(first);
      clearInterval(interval);
      paused = true;
      await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    },
  };
}
