/**
 * Image conversion with sharp: only JPEG, PNG, WebP and GIF pass, told by their first bytes
 * (never SVG or anything else, whatever its Content-Type or name); the first frame, turned
 * upright, at most 1200 px wide and 4800 px high (WebP stops at 16,383), stored as WebP or as
 * JPEG when that is smaller (or when the other cannot encode it), at most 200 KB (quality, then
 * size, lowered until it fits).
 */
import {
  type ImageProcessor,
  ImageUnavailableError,
  type PreparedImage,
  type StoredImageType,
} from '../../core/images/ports';
import { sharp } from './sharp-loader';

export const MAX_IMAGE_WIDTH = 1200;
/** A 1:4 strip at full width; far below WebP's 16,383 px, so a very tall image still encodes. */
export const MAX_IMAGE_HEIGHT = 4800;
export const MAX_IMAGE_BYTES = 200 * 1024;
/** Decoding bombs: at most 50 megapixels are read. */
const MAX_INPUT_PIXELS = 50_000_000;
const QUALITIES = [82, 72, 62, 50, 40];
const PREVIEW_WIDTH = 512;
/** Below this width an image that still does not fit in 200 KB is given up. */
const MIN_SHRUNK_WIDTH = 300;

export type RasterFormat = 'jpeg' | 'png' | 'webp' | 'gif';

interface RawPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** The raster format the bytes start with, or undefined (SVG, HTML, anything else). */
export function sniffImageFormat(bytes: Buffer): RasterFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return 'png';
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'webp';
  const head = bytes.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'gif';
  return undefined;
}

export class SharpImageProcessor implements ImageProcessor {
  async prepare(bytes: Buffer): Promise<PreparedImage> {
    const format = sniffImageFormat(bytes);
    if (!format) throw new ImageUnavailableError('The bytes are not a JPEG, PNG, WebP or GIF image.');
    try {
      const meta = await sharp()(bytes, { limitInputPixels: MAX_INPUT_PIXELS, pages: 1 }).metadata();
      if (meta.format !== format) {
        throw new ImageUnavailableError('The image does not decode as its format.');
      }
      // Fitted in its own size (1200 x 4800 at most) first, then in a box 0.8 times smaller each
      // time while it does not fit. Each box is decoded once; its qualities are encoded from the
      // same pixels.
      let width = Math.min(MAX_IMAGE_WIDTH, meta.autoOrient?.width ?? meta.width ?? MAX_IMAGE_WIDTH);
      let height = Math.min(MAX_IMAGE_HEIGHT, meta.autoOrient?.height ?? meta.height ?? MAX_IMAGE_HEIGHT);
      for (let first = true; first || width >= MIN_SHRUNK_WIDTH; first = false) {
        const pixels = await this.decode(bytes, width, height);
        for (const quality of QUALITIES) {
          const candidate = await this.encode(pixels, quality);
          if (candidate.bytes.length <= MAX_IMAGE_BYTES) return candidate;
        }
        width = Math.round(width * 0.8);
        height = Math.max(1, Math.round(height * 0.8));
      }
    } catch (error) {
      if (error instanceof ImageUnavailableError) throw error;
      throw new ImageUnavailableError(
        `The image could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    throw new ImageUnavailableError('The image does not fit in 200 KB.');
  }

  /** Read under the same rules as `prepare` (raster formats by their first bytes, first frame only). */
  async preview(bytes: Buffer): Promise<Buffer> {
    if (!sniffImageFormat(bytes)) {
      throw new ImageUnavailableError('The bytes are not a JPEG, PNG, WebP or GIF image.');
    }
    return sharp()(bytes, { limitInputPixels: MAX_INPUT_PIXELS, pages: 1, failOn: 'error' })
      .rotate()
      .resize({ width: PREVIEW_WIDTH, withoutEnlargement: true })
      .jpeg({ quality: 70 })
      .toBuffer();
  }

  /** The first frame, turned upright, inside `width` x `height`, on white: raw pixels. */
  private async decode(bytes: Buffer, width: number, height: number): Promise<RawPixels> {
    const { data, info } = await sharp()(bytes, {
      limitInputPixels: MAX_INPUT_PIXELS,
      pages: 1,
      failOn: 'error',
    })
      .rotate()
      .resize({ width, height, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  }

  /** WebP and JPEG at one quality: the smaller of the two, or the one that could encode it. */
  private async encode(pixels: RawPixels, quality: number): Promise<PreparedImage> {
    const { data, ...raw } = pixels;
    const base = () => sharp()(data, { raw });
    const [webp, jpeg] = await Promise.allSettled([
      (async () => base().webp({ quality }).toBuffer({ resolveWithObject: true }))(),
      (async () => base().jpeg({ quality, mozjpeg: true }).toBuffer({ resolveWithObject: true }))(),
    ]);
    const encoded: { mimeType: StoredImageType; data: Buffer; info: { width: number; height: number } }[] =
      [];
    if (webp.status === 'fulfilled') encoded.push({ mimeType: 'image/webp', ...webp.value });
    if (jpeg.status === 'fulfilled') encoded.push({ mimeType: 'image/jpeg', ...jpeg.value });
    // Neither encoder could: WebP's reason (the first tried) says why.
    if (webp.status === 'rejected' && jpeg.status === 'rejected') throw webp.reason;
    const best = encoded.reduce((smaller, next) => (next.data.length < smaller.data.length ? next : smaller));
    return { bytes: best.data, mimeType: best.mimeType, width: best.info.width, height: best.info.height };
  }
}
