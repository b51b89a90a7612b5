/**
 * Names a JSON text's objects hold more than once, escapes decoded (jsonc-parser's visitor), each
 * with the path of its object (`[]` the top level, `['items', 0]` the first item of `items`).
 */
import { visit } from 'jsonc-parser';

export interface RepeatedName {
  path: (string | number)[];
  name: string;
}

export function repeatedNames(json: string): RepeatedName[] {
  const seen = new Map<string, Set<string>>();
  const repeated = new Map<string, RepeatedName>();
  visit(json, {
    onObjectProperty: (name, _offset, _length, _line, _character, pathOf) => {
      const path = pathOf();
      const key = JSON.stringify(path);
      const names = seen.get(key) ?? new Set<string>();
      seen.set(key, names);
      if (names.has(name)) repeated.set(`${key}\n${name}`, { path, name });
      names.add(name);
    },
  });
  return [...repeated.values()];
}
