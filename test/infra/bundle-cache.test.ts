/**
 * The bundle cache builds the functions whose options are the same but for the entry point in one
 * esbuild build (test/support/bundle-cache.ts): each bundle it caches that way must be the one the
 * stack's build of that function alone gives, byte for byte, with the same files in it and the
 * same inputs checked for staleness (a shared chunk, a banner or any other effect of building
 * them together would change what the bundle tests read and run).
 */
import { createHash } from 'node:crypto';
import { allFunctions, type FunctionDefinition } from '../../functions/routes';
import { groupBuiltBundle, groupOf, singleBuiltBundle } from '../support/bundle-cache';

const SDK_EXTERNAL = ['@aws-sdk/*', '@smithy/*'];

/** The groups of functions built together with `external`, each once. */
function groupsOf(external: readonly string[]): FunctionDefinition[][] {
  const groups = new Map<string, FunctionDefinition[]>();
  for (const definition of allFunctions) {
    const group = groupOf(definition, external);
    groups.set(group.map((member) => member.name).join(), group);
  }
  return [...groups.values()];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('bundle cache', () => {
  it('puts every function in one group (a group of one is built alone, as the stack builds it)', () => {
    for (const external of [[], SDK_EXTERNAL]) {
      const names = groupsOf(external).flatMap((group) => group.map((member) => member.name));
      expect(names.sort()).toEqual(allFunctions.map((definition) => definition.name).sort());
    }
    expect(groupsOf([]).filter((group) => group.length > 1).length).toBeGreaterThan(0);
  });

  it.each(
    [
      ...groupsOf([]).map((group) => [group, []] as const),
      ...groupsOf(SDK_EXTERNAL).map((group) => [group, SDK_EXTERNAL] as const),
    ]
      .filter(([group]) => group.length > 1)
      .map(
        ([group, external]) =>
          [group[0]?.name, group.length, external.join(' ') || 'none', group, external] as const,
      ),
  )(
    '%s built with its group of %i (external: %s) is the bundle its own build gives',
    async (name, _size, _externalLabel, group, external) => {
      const definition = group[0] as FunctionDefinition;
      const grouped = await groupBuiltBundle(definition, external);
      const alone = await singleBuiltBundle(definition, external);
      expect(grouped.builtWith).toEqual(group.map((member) => member.name));
      expect(grouped.builtWith).toContain(name);
      expect(Buffer.byteLength(grouped.source)).toBe(Buffer.byteLength(alone.source));
      expect(sha256(grouped.source)).toBe(sha256(alone.source));
      expect(grouped.files).toEqual(alone.files);
      expect([...grouped.inputs].sort()).toEqual([...alone.inputs].sort());
    },
  );
});
