/**
 * Calls that arrive while others like them are in flight, made together (group commit): a lone
 * call runs at once, alone; calls that arrive while `inFlight` groups are running wait for one of
 * them to end and then go together, at most `maxGroup` at a time. Nothing waits on a timer, so a
 * process that serves one request at a time (a Lambda) makes exactly the calls it made before;
 * one that serves many at once (the local runtime, `npm run bench`) makes one call for many.
 */

/** What a group's run gives each of its items: a value, or the error that item's caller gets. */
export type GroupOutcome<Result> = { value: Result } | { error: unknown };

export interface GroupOptions {
  /** Items in one group, at most. */
  maxGroup: number;
  /** Groups running at once, at most. */
  inFlight: number;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (value: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * `run` takes a group's items and answers one outcome per item, in item order (an item without
 * one is an error); a `run` that throws fails every item of its group.
 */
export function groupedCalls<Item, Result>(
  run: (items: Item[]) => Promise<GroupOutcome<Result>[]>,
  options: GroupOptions,
  /** Called when the last group ends and nothing waits. */
  onIdle?: () => void,
): (item: Item) => Promise<Result> {
  const waiting: Waiting<Item, Result>[] = [];
  let running = 0;

  const start = () => {
    while (running < options.inFlight && waiting.length > 0) {
      const group = waiting.splice(0, options.maxGroup);
      running++;
      run(group.map((entry) => entry.item))
        .then(
          (outcomes) =>
            group.forEach((entry, index) => {
              const outcome = outcomes[index];
              if (outcome && 'value' in outcome) entry.resolve(outcome.value);
              else entry.reject(outcome ? outcome.error : new Error('A grouped call gave no outcome'));
            }),
          (error: unknown) => {
            for (const entry of group) entry.reject(error);
          },
        )
        .finally(() => {
          running--;
          start();
          if (running === 0) onIdle?.();
        });
    }
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      start();
    });
}

/**
 * `groupedCalls` per key (an account): calls with different keys never share a group; a key's
 * grouping is dropped when nothing of it runs or waits, so keys do not pile up in a warm process.
 */
export function groupedCallsByKey<Item, Result>(
  keyOf: (item: Item) => string,
  run: (items: Item[]) => Promise<GroupOutcome<Result>[]>,
  options: GroupOptions,
): (item: Item) => Promise<Result> {
  const groups = new Map<string, (item: Item) => Promise<Result>>();
  return (item) => {
    const key = keyOf(item);
    let grouped = groups.get(key);
    if (!grouped) {
      const created = groupedCalls(run, options, () => {
        if (groups.get(key) === created) groups.delete(key);
      });
      grouped = created;
      groups.set(key, created);
    }
    return grouped(item);
  };
}
