/** The image fields of `POST /v1/articles/create`: `featured_image` and `inline_images`. */
import * as z from 'zod/mini';
import { ValidationError } from '../errors';
import { formInteger, formText } from '../schema-helpers';
import { imageUrlOf, isFeaturedImageChoice, MAX_INLINE_IMAGES } from './article-images';

export const MAX_IMAGE_URL_LENGTH = 2000;
const CHOICE_MESSAGE = 'The featured_image must be none, generate or an https:// URL of an image.';

/** `none`, `generate` (any case) or an absolute http(s) URL; whether http is allowed is decided at create. */
export function featuredImageField() {
  return z.pipe(
    formText('featured_image').check(
      z.trim(),
      z.refine((value: string) => value.length <= MAX_IMAGE_URL_LENGTH, {
        error: `The featured_image URL may not be longer than ${MAX_IMAGE_URL_LENGTH} characters.`,
        abort: true,
      }),
    ),
    z.pipe(
      z.transform((value: string) =>
        /^(none|generate)$/i.test(value) ? value.toLowerCase() : (imageUrlOf(value)?.href ?? value),
      ),
      z.string().check(z.refine(isFeaturedImageChoice, { error: CHOICE_MESSAGE })),
    ),
  );
}

export function inlineImagesField() {
  return formInteger(0, MAX_INLINE_IMAGES, 'inline_images');
}

/**
 * The image request as stored (`none` and 0 are left out), with the rules that need more than one
 * field or the deployment: a client URL must be https (plain http only where private addresses are
 * allowed: local mode and tests), and an article has no more inline images than H2 sections.
 */
export function imageRequestOf(
  input: { featured_image?: string; inline_images?: number; h2_count: number },
  options: { allowPlainHttp: boolean },
): { featuredImage?: string; inlineImages?: number } {
  const featured = input.featured_image;
  if (featured && featured !== 'none' && featured !== 'generate') {
    const url = imageUrlOf(featured);
    if (!url || (url.protocol !== 'https:' && !options.allowPlainHttp)) {
      throw ValidationError.forField('featured_image', CHOICE_MESSAGE);
    }
  }
  const inline = input.inline_images ?? 0;
  if (inline > input.h2_count) {
    throw ValidationError.forField(
      'inline_images',
      'The inline_images may not be greater than h2_count (one image at most after each H2 section).',
    );
  }
  return {
    ...(featured && featured !== 'none' ? { featuredImage: featured } : {}),
    ...(inline > 0 ? { inlineImages: inline } : {}),
  };
}
