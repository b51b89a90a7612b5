/** The source options of a create, checked against what this deployment can do (422s before any charge). */
import { ValidationError } from '../errors';

export interface SourcePolicy {
  /** Plain http sources allowed (local mode and tests only, like private addresses). */
  allowPlainHttp: boolean;
  /** A search provider is configured (`SEARCH_PROVIDER`), so `research=web` can run. */
  webSearch: boolean;
}

interface SourceInput {
  sources?: string[] | undefined;
  research?: 'none' | 'web' | undefined;
  require_sources?: boolean | undefined;
}

/** The article's source fields; throws a ValidationError naming the field. */
export function sourceOptions(
  input: SourceInput,
  policy: SourcePolicy = { allowPlainHttp: false, webSearch: false },
): { sources?: string[]; research?: 'web'; requireSources?: true } {
  const sources = input.sources ?? [];
  const plain = sources.find((url) => !url.toLowerCase().startsWith('https:'));
  if (plain !== undefined && !policy.allowPlainHttp) {
    throw ValidationError.forField('sources', `The source "${plain.slice(0, 100)}" must be an https URL.`);
  }
  const web = input.research === 'web';
  if (web && !policy.webSearch) {
    throw ValidationError.forField(
      'research',
      'research=web is not available: no search provider is configured (SEARCH_PROVIDER).',
    );
  }
  if (input.require_sources && sources.length === 0 && !web) {
    throw ValidationError.forField('require_sources', 'require_sources needs sources or research=web.');
  }
  return {
    ...(sources.length > 0 ? { sources } : {}),
    ...(web ? { research: 'web' as const } : {}),
    ...(input.require_sources ? { requireSources: true as const } : {}),
  };
}
