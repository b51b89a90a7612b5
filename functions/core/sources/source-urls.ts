/** The `sources` field of a create: up to MAX_SOURCES http(s) URLs, as a list, repeated fields or one per line. */
import * as z from 'zod/mini';
import { formText, givenOnce } from '../schema-helpers';
import { UndecodableText } from '../undecodable-text';
import { comparableUrl } from './citations';

export const MAX_SOURCES = 10;
export const MAX_SOURCE_URL_LENGTH = 2000;

/** Why one URL is refused, or undefined when it is a usable http(s) address. */
export function sourceUrlProblem(url: string): string | undefined {
  if (url.length > MAX_SOURCE_URL_LENGTH) {
    return `Each source may be at most ${MAX_SOURCE_URL_LENGTH} characters long.`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `The source "${url.slice(0, 100)}" is not a valid URL.`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `The source "${url.slice(0, 100)}" must be an https URL.`;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'A source may not contain a user name or password.';
  }
  if (parsed.hostname === '') return `The source "${url.slice(0, 100)}" must name a host.`;
  return undefined;
}

/**
 * The field: one text (a URL, or several one per line) or a list of texts (a JSON array, or the
 * field repeated in a form). Blank lines are ignored and repeated URLs kept once; more than
 * MAX_SOURCES, or any URL that is not a valid http(s) address, is a 422 on `sources`.
 * (Plain http is refused by the use case unless private addresses are allowed: local mode.)
 */
export function sourcesField() {
  const texts = z.union(
    [formText('sources', { lineBreaks: true }), z.array(formText('sources', { lineBreaks: true }))],
    {
      error: (issue) =>
        issue.input instanceof UndecodableText
          ? 'The sources must be valid UTF-8 text.'
          : Array.isArray(issue.input)
            ? 'Each source must be a URL (text).'
            : givenOnce('sources', 'URL per line, or a list of URLs'),
    },
  );
  return z.pipe(
    texts,
    z.transform((value: string | string[], context) => {
      const lines = (Array.isArray(value) ? value : [value])
        .flatMap((text) => text.split(/\r\n|\r|\n/))
        .map((line) => line.trim())
        .filter((line) => line !== '');
      const urls: string[] = [];
      const seen = new Set<string>();
      for (const line of lines) {
        const problem = sourceUrlProblem(line);
        if (problem !== undefined) {
          context.issues.push({ code: 'custom', message: problem, input: line });
          return [];
        }
        const key = comparableUrl(line) ?? line;
        if (!seen.has(key)) {
          seen.add(key);
          urls.push(line);
        }
      }
      if (urls.length > MAX_SOURCES) {
        context.issues.push({
          code: 'custom',
          message: `The sources field may contain at most ${MAX_SOURCES} URLs.`,
          input: value,
        });
      }
      return urls;
    }),
  );
}
