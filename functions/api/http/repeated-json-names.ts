/** Names a JSON text's top-level object holds more than once, escapes decoded (jsonc-parser's visitor). */
import { visit } from 'jsonc-parser';

export function repeatedTopLevelNames(json: string): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  let depth = 0;
  visit(json, {
    onObjectBegin: () => {
      depth++;
    },
    onObjectEnd: () => {
      depth--;
    },
    onObjectProperty: (name) => {
      if (depth !== 1) return;
      if (seen.has(name)) repeated.add(name);
      seen.add(name);
    },
  });
  return [...repeated];
}
