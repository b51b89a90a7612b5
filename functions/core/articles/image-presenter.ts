/**
 * The images of an article record: `featured_image` and `images` (inline). The `url` is a
 * presigned link to the stored image (one hour), and the Media Library's URL once the site has
 * the image.
 */
import type { ImageLinks } from '../images/ports';
import type { Article } from './article';
import type { ArticleImage } from './article-images';

/** URL of each stored image by slot: the site's copy once published, a presigned link before. */
export async function imageUrlsOf(
  article: Article,
  links: ImageLinks | undefined,
): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  const onSite = new Map((article.publicationSite?.media ?? []).map((media) => [media.slot, media.url]));
  await Promise.all(
    (article.images ?? []).map(async (image) => {
      const siteUrl = onSite.get(image.slot);
      if (siteUrl) urls[image.slot] = siteUrl;
      else if (links) urls[image.slot] = await links.linkTo(image.key);
    }),
  );
  return urls;
}

function presentImage(image: ArticleImage, urls: Record<string, string>) {
  return {
    url: urls[image.slot] ?? null,
    alt: image.alt,
    width: image.width,
    height: image.height,
    mime_type: image.mimeType,
    bytes: image.bytes,
    source: image.source,
  };
}

/** `featured_image` (null without one) and `images` (inline, each with the H2 section it follows). */
export function presentImages(article: Article, urls: Record<string, string> = {}) {
  const images = article.images ?? [];
  const featured = images.find((image) => image.slot === 'featured');
  return {
    featured_image: featured ? presentImage(featured, urls) : null,
    images: images
      .filter((image) => image.slot !== 'featured')
      .map((image) => ({ ...presentImage(image, urls), after_section: (image.afterSection ?? 0) + 1 })),
  };
}

/** What a queued article asked for. */
export function presentImageRequest(article: Article) {
  return {
    featured_image: article.featuredImage ?? 'none',
    inline_images: article.inlineImages ?? 0,
  };
}
