/** The local sweeper schedule: a run that hangs is given up at the deployed timeout, as Lambda does. */
import { startScheduler } from '../../../local/scheduler';
import { runs } from '../../support/local-fixtures/hanging-sweeper';

describe('the local sweeper schedule', () => {
  it('gives a hanging run up at its timeout, so the next ticks run', async () => {
    const lines: string[] = [];
    const scheduler = startScheduler({
      sweeper: { name: 'HangingSweeper', entry: 'test/support/local-fixtures/hanging-sweeper.ts' },
      log: (line) => lines.push(line),
      intervalSeconds: 0.1,
      firstRunAfterMs: 10,
      timeoutSeconds: 0.3,
    });
    try {
      const deadline = Date.now() + 5_000;
      while (runs.length < 3 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await scheduler.stop();
    }
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(lines).toContain('Sweeper failed: Task timed out after 0.3 seconds');
  });
});
