/** Group commit: a lone call runs alone at once; calls arriving while others run go together. */
import { type GroupOutcome, groupedCalls, groupedCallsByKey } from '../../../functions/shared/grouped-calls';

/** A run whose groups end when the test says so, recording each group. */
function controlledRun<Item>() {
  const groups: Item[][] = [];
  const pending: (() => void)[] = [];
  const run = (items: Item[]) =>
    new Promise<GroupOutcome<string>[]>((resolve) => {
      groups.push(items);
      pending.push(() => resolve(items.map((item) => ({ value: `done ${String(item)}` }))));
    });
  const endNext = async () => {
    pending.shift()?.();
    // Let the ended group's callers and the next group start.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { run, groups, endNext };
}

describe('groupedCalls', () => {
  it('runs a lone call at once, alone', async () => {
    const { run, groups, endNext } = controlledRun<number>();
    const call = groupedCalls(run, { maxGroup: 10, inFlight: 1 });

    const answer = call(1);
    expect(groups).toEqual([[1]]);
    await endNext();

    await expect(answer).resolves.toBe('done 1');
  });

  it('sends the calls that arrive while one runs together, at most maxGroup at a time, each its own answer', async () => {
    const { run, groups, endNext } = controlledRun<number>();
    const call = groupedCalls(run, { maxGroup: 3, inFlight: 1 });

    const answers = [1, 2, 3, 4, 5, 6].map((item) => call(item));
    expect(groups).toEqual([[1]]);
    await endNext();
    expect(groups).toEqual([[1], [2, 3, 4]]);
    await endNext();
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
    await endNext();

    await expect(Promise.all(answers)).resolves.toEqual([1, 2, 3, 4, 5, 6].map((item) => `done ${item}`));
  });

  it('runs up to inFlight groups at once', async () => {
    const { run, groups } = controlledRun<number>();
    const call = groupedCalls(run, { maxGroup: 10, inFlight: 2 });

    for (const item of [1, 2, 3, 4]) void call(item);

    expect(groups).toEqual([[1], [2]]);
  });

  it('fails only the items the run answers with an error, and every item of a run that throws', async () => {
    let runs = 0;
    const call = groupedCalls<number, number>(
      async (items) => {
        runs++;
        if (items.includes(99)) throw new Error('the whole call failed');
        return items.map((item) => (item % 2 === 0 ? { value: item } : { error: new Error(`odd ${item}`) }));
      },
      { maxGroup: 10, inFlight: 1 },
    );

    const first = [call(2), call(3), call(4)];
    await expect(first[0]).resolves.toBe(2);
    await expect(first[1]).rejects.toThrow('odd 3');
    await expect(first[2]).resolves.toBe(4);
    const second = [call(6), call(99), call(8)];
    await expect(second[0]).resolves.toBe(6);
    await expect(second[1]).rejects.toThrow('the whole call failed');
    await expect(second[2]).rejects.toThrow('the whole call failed');
    expect(runs).toBe(4);
  });
});

describe('groupedCallsByKey', () => {
  it('never puts calls of two keys in one group', async () => {
    const { run, groups, endNext } = controlledRun<string>();
    const call = groupedCallsByKey((item: string) => item.split(':')[0] as string, run, {
      maxGroup: 10,
      inFlight: 1,
    });

    const answers = ['a:1', 'b:1', 'a:2', 'b:2', 'a:3'].map((item) => call(item));
    expect(groups).toEqual([['a:1'], ['b:1']]);
    await endNext();
    await endNext();
    expect(groups).toEqual([['a:1'], ['b:1'], ['a:2', 'a:3'], ['b:2']]);
    await endNext();
    await endNext();

    await expect(Promise.all(answers)).resolves.toHaveLength(5);
  });
});
