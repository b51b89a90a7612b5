/**
 * A create request as the use case takes it: the client's fields with its website profile's
 * defaults for the options it omitted, parsed together by the create schema (so a default is
 * checked, and priced, exactly as if the client had sent it), and what the article copies of the
 * profile.
 */
import { ValidationError } from '../errors';
import { parseOrThrow } from '../schema-helpers';
import type { SiteProfileStore } from '../websites/ports';
import { type ArticleProfile, articleProfileOf, withProfileDefaults } from '../websites/site-profile';
import { type CreateArticleInput, createArticleSchema } from './create-article-input';

export interface CreateArticleRequest {
  input: CreateArticleInput;
  /** Options the profile gave (the client omitted them). */
  fromProfile: string[];
  /** Voice, audience, facts and banned phrases, copied onto the article. */
  profile?: ArticleProfile;
}

export interface CreateRequestDeps {
  profiles: Pick<SiteProfileStore, 'get'>;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Parses a create: with a `website_uuid` of the account that has a profile, its defaults apply. */
export async function parseCreateArticleRequest(
  deps: CreateRequestDeps,
  accountId: string,
  fields: Record<string, unknown>,
): Promise<CreateArticleRequest> {
  const website = typeof fields.website_uuid === 'string' ? fields.website_uuid.trim().toLowerCase() : '';
  // Only the account's own websites have a profile for it (an unknown one is refused later).
  const profile = UUID_PATTERN.test(website) ? await deps.profiles.get(accountId, website) : undefined;
  const { fields: merged, fromProfile } = withProfileDefaults(fields, profile);
  let input: CreateArticleInput;
  try {
    input = parseOrThrow(createArticleSchema(), merged);
  } catch (error) {
    if (!(error instanceof ValidationError) || fromProfile.length === 0) throw error;
    throw fromProfileErrors(error, fromProfile);
  }
  const copied = articleProfileOf(profile);
  return { input, fromProfile, ...(copied ? { profile: copied } : {}) };
}

/**
 * What two copies of one create (same Idempotency-Key) must share: what the client sent, as
 * parsed; a profile changed between them does not make them two requests.
 */
export function createRequestFingerprint(request: CreateArticleRequest): unknown {
  if (request.fromProfile.length === 0) return request.input;
  const sent: Record<string, unknown> = { ...request.input };
  for (const name of request.fromProfile) delete sent[name];
  return sent;
}

/**
 * A create's error, with a refused value that came from the profile named as the profile's: for
 * the rules checked after the parse (`resolveRequest`: sources, images), e.g. a default
 * inline_images over the h2_count the client sent. Any other error is returned as it is.
 */
export function namingProfileDefaults(
  error: unknown,
  request: Pick<CreateArticleRequest, 'fromProfile'>,
): unknown {
  if (!(error instanceof ValidationError) || request.fromProfile.length === 0) return error;
  return fromProfileErrors(error, request.fromProfile);
}

/** A default no longer valid (the profile was stored under older rules) is named as one. */
function fromProfileErrors(error: ValidationError, fromProfile: string[]): ValidationError {
  const fieldErrors: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(error.fieldErrors)) {
    fieldErrors[field] = fromProfile.includes(field)
      ? messages.map((message) => `${message} (This value is the website profile's default.)`)
      : messages;
  }
  return new ValidationError(fieldErrors);
}
