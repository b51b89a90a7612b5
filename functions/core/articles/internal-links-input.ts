/** `internal_links` of a create: 0-10; 3 by default with a website, 0 without; more than 0 needs a website. */
import { ValidationError } from '../errors';
import type { CreateArticleInput } from './create-article-input';

export const DEFAULT_INTERNAL_LINKS = 3;

/**
 * The links a create asks for: its `internal_links`, or undefined for the default (3 with a
 * website, decided at generation); 0 without a website.
 */
export function linksRequested(
  input: Pick<CreateArticleInput, 'internal_links' | 'website_uuid'>,
): number | undefined {
  if (!input.website_uuid) {
    if ((input.internal_links ?? 0) > 0) {
      throw ValidationError.forField(
        'internal_links',
        'The internal_links field needs a website_uuid (links point to posts of that website).',
      );
    }
    return 0;
  }
  return input.internal_links;
}
