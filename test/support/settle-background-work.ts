/**
 * After each test file: waits for the article tools' set-up that writing an article schedules
 * (write-article.ts) to finish, so that nothing requires a module after Jest tore the file's
 * environment down (Jest then sets the exit code to 1 although every test passed). At most a
 * second, on the real clock: under fake timers that set-up never starts, so nothing loads late.
 */
const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;

afterAll(async () => {
  const settled = (globalThis as Record<symbol, unknown>)[Symbol.for('inkpress.articleToolsSettled')];
  if (!(settled instanceof Promise)) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([settled, new Promise((resolve) => (timer = realSetTimeout(resolve, 1000)))]);
  realClearTimeout(timer);
});
