/**
 * The article's images as they travel to the site: their bytes read from the image store and sent
 * inside the post request (never a URL the site must fetch). An image the store no longer has
 * (expired) is left out. Once the post is on the site, the stored images start their expiry.
 */
import type { Article } from '../articles/article';
import type { ImageStore } from '../images/ports';
import type { CmsImage } from '../websites/cms-client';

export type PostImageStore = Pick<ImageStore, 'get' | 'markPublished'>;

/** The featured image first, then the inline ones, with their bytes. */
export async function postImagesOf(store: PostImageStore | undefined, article: Article): Promise<CmsImage[]> {
  const images = article.images ?? [];
  if (!store || images.length === 0) return [];
  const loaded = await Promise.all(
    images.map(async (image) => {
      const bytes = await store.get(image.key);
      if (!bytes) return undefined;
      const sent: CmsImage = { slot: image.slot, bytes, mimeType: image.mimeType, alt: image.alt };
      if (image.afterSection !== undefined) sent.afterSection = image.afterSection;
      return sent;
    }),
  );
  return loaded.filter((image): image is CmsImage => image !== undefined);
}

/** Tags the article's stored images as published (the bucket's lifecycle rule expires them 30 days on). */
export async function markImagesPublished(
  store: PostImageStore | undefined,
  article: Article,
  publishedAt: string,
): Promise<void> {
  const images = article.images ?? [];
  if (!store || images.length === 0) return;
  await store.markPublished(
    images.map((image) => ({ key: image.key, mimeType: image.mimeType })),
    publishedAt,
  );
}
