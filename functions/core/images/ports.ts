/** What making, converting and keeping an article's images needs from the outside world. */

/** The image could not be had (provider error after retries, a bad or unreachable URL, not an image). */
export class ImageUnavailableError extends Error {
  override readonly name = 'ImageUnavailableError';
}

/** Makes an image from a prompt: the OpenAI Images API, or the offline placeholder. */
export interface ImageGenerator {
  /** What the stored image records as its source. */
  readonly source: 'generated' | 'placeholder';
  /** The image bytes (any format the processor reads); ImageUnavailableError when none came. */
  generate(prompt: string): Promise<Buffer>;
}

/** Fetches a client's image URL through the SSRF guard, with its size and time limits. */
export interface ImageFetcher {
  /** The bytes at `url`; ImageUnavailableError when the URL may not or cannot be read. */
  fetch(url: string): Promise<Buffer>;
}

export type StoredImageType = 'image/webp' | 'image/jpeg';

export interface PreparedImage {
  bytes: Buffer;
  mimeType: StoredImageType;
  width: number;
  height: number;
}

/** Checks the bytes are an allowed raster image (by content) and makes the stored form of it. */
export interface ImageProcessor {
  /** ImageUnavailableError for anything but a JPEG, PNG, WebP or GIF, or an image it cannot fit. */
  prepare(bytes: Buffer): Promise<PreparedImage>;
  /** A small JPEG of the image, for the model to describe. */
  preview(bytes: Buffer): Promise<Buffer>;
}

/** Where an article's images live until they reach its site (S3; moto's S3 locally). */
export interface ImageStore {
  put(key: string, image: PreparedImage): Promise<void>;
  /** The stored bytes; undefined when the object is gone (expired after publication). */
  get(key: string): Promise<Buffer | undefined>;
  /** Starts the expiry after publication (the lifecycle rule counts from this mark). */
  markPublished(images: { key: string; mimeType: string }[], publishedAt: string): Promise<void>;
  delete(keys: string[]): Promise<void>;
}

/** Links a client may open for a while (presigned, one hour). */
export interface ImageLinks {
  linkTo(key: string): Promise<string>;
}
