/** Test double of the sweeper for the local scheduler: its first run never ends, later runs return at once. */
export const runs: string[] = [];

export async function handler(): Promise<void> {
  runs.push(new Date().toISOString());
  if (runs.length === 1) await new Promise(() => undefined);
}
