/**
 * Loads a function's `handler` export from its entry file (a path of the route table), the way
 * Lambda loads a bundle: once, on first use. A missing entry file is not an error locally (the
 * function may not be written yet): callers get `missing` and may try again later.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './local-config';

export type LoadedHandler<H> =
  | { status: 'loaded'; handler: H }
  | { status: 'missing'; file: string }
  | { status: 'failed'; file: string; error: Error };

export class HandlerLoader {
  private readonly loaded = new Map<string, unknown>();
  private readonly reported = new Set<string>();

  constructor(private readonly log: (line: string) => void) {}

  load<H>(entry: string): LoadedHandler<H> {
    const cached = this.loaded.get(entry);
    if (cached) return { status: 'loaded', handler: cached as H };
    const file = path.resolve(repoRoot, entry);
    if (!existsSync(file)) {
      this.reportOnce(
        `missing:${entry}`,
        `${entry} does not exist yet; its function is skipped until it does.`,
      );
      return { status: 'missing', file };
    }
    try {
      // require() rather than import(): tsx and ts-jest both compile TypeScript entries this way.
      const module = require(file) as { handler?: unknown };
      if (typeof module.handler !== 'function')
        throw new Error(`${entry} does not export a handler function.`);
      this.loaded.set(entry, module.handler);
      return { status: 'loaded', handler: module.handler as H };
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      this.reportOnce(`failed:${entry}:${error.message}`, `${entry} could not be loaded: ${error.message}`);
      return { status: 'failed', file, error };
    }
  }

  private reportOnce(key: string, line: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log(line);
  }
}
