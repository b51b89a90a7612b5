/**
 * Files a function reads at run time instead of bundling them (`bundledFiles` in the route
 * table): copied next to its bundle at deploy, read from the repository when running from
 * source (tests, npm start). Each file is read once, on first use.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const contents = new Map<string, string>();

/** The text of `file` (relative to the repository root). */
export function readBundledFile(file: string): string {
  let text = contents.get(file);
  if (text === undefined) {
    const besideBundle = path.join(__dirname, path.basename(file));
    text = readFileSync(
      existsSync(besideBundle) ? besideBundle : path.resolve(__dirname, '..', '..', file),
      'utf8',
    );
    contents.set(file, text);
  }
  return text;
}
