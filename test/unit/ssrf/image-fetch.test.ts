/** Client image URLs through the SSRF guard and the content check: hostile servers get no image. */
import sharp from 'sharp';
import {
  GuardedImageFetcher,
  IMAGE_FETCH_LIMITS,
} from '../../../functions/adapters/images/guarded-image-fetcher';
import {
  MAX_IMAGE_HEIGHT,
  SharpImageProcessor,
  sniffImageFormat,
} from '../../../functions/adapters/images/sharp-image-processor';
import { systemResolver } from '../../../functions/adapters/wordpress/ssrf-guard';
import { ImageUnavailableError } from '../../../functions/core/images/ports';
import { httpsServedAsHttp } from '../../support/https-as-http';
import { type LocalHttpServer, startLocalHttpServer } from '../../support/local-http-server';

let server: LocalHttpServer;
let png: Buffer;

beforeAll(async () => {
  png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#a33' } })
    .png()
    .toBuffer();
  server = await startLocalHttpServer((request, response) => {
    if (request.url === '/down.png') {
      // An https image redirecting down to plain http.
      response.writeHead(302, { Location: `http://127.0.0.1:${new URL(server.url).port}/photo.png` }).end();
    } else if (request.url === '/slow.png') {
      setTimeout(() => response.writeHead(200, { 'Content-Type': 'image/png' }).end(png), 2_000);
    } else {
      response.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
    }
  });
});

afterAll(() => server.close());

const fetcher = (allowPrivate: boolean, totalTimeoutMs: number = IMAGE_FETCH_LIMITS.totalTimeoutMs) =>
  new GuardedImageFetcher({ ...IMAGE_FETCH_LIMITS, totalTimeoutMs, allowPrivate, resolve: systemResolver });

describe('client image URLs', () => {
  it('are refused on a private address when deployed (and over plain http)', async () => {
    await expect(fetcher(false).fetch(`${server.url}/photo.png`)).rejects.toThrow(ImageUnavailableError);
    await expect(
      fetcher(false).fetch(`https://127.0.0.1:${new URL(server.url).port}/photo.png`),
    ).rejects.toThrow(/blocked/);
    await expect(fetcher(false).fetch('https://169.254.169.254/latest/meta-data')).rejects.toThrow(/blocked/);
  });

  it('are refused when deployed if a redirect goes down to http', async () => {
    const served = httpsServedAsHttp();
    try {
      // Every address allowed: only the scheme of the second hop refuses it.
      const deployed = new GuardedImageFetcher({
        ...IMAGE_FETCH_LIMITS,
        allowPrivate: false,
        isAllowedAddress: () => true,
        resolve: systemResolver,
      });
      const https = `https://127.0.0.1:${new URL(server.url).port}`;
      expect(await deployed.fetch(`${https}/photo.png`)).toEqual(png);
      await expect(deployed.fetch(`${https}/down.png`)).rejects.toThrow(
        /Only https addresses are fetched, not http:/,
      );
    } finally {
      served.mockRestore();
    }
  });

  it('are read where private addresses are allowed (local mode)', async () => {
    expect(await fetcher(true).fetch(`${server.url}/photo.png`)).toEqual(png);
  });

  it('give up on a server slower than the time limit', async () => {
    await expect(fetcher(true, 300).fetch(`${server.url}/slow.png`)).rejects.toThrow(/timeout/);
  });

  it('take only JPEG, PNG, WebP and GIF, told by their bytes', async () => {
    expect(sniffImageFormat(png)).toBe('png');
    expect(sniffImageFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(sniffImageFormat(Buffer.from('<?xml version="1.0"?><svg/>'))).toBeUndefined();
    const processor = new SharpImageProcessor();
    await expect(processor.prepare(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).rejects.toThrow(
      ImageUnavailableError,
    );
    // PNG magic followed by garbage: not decodable.
    await expect(processor.prepare(Buffer.concat([png.subarray(0, 8), Buffer.alloc(100)]))).rejects.toThrow(
      ImageUnavailableError,
    );
    const small = await processor.prepare(png);
    expect(small.width).toBe(40);
    expect(['image/webp', 'image/jpeg']).toContain(small.mimeType);
  });

  it('fit a very tall image inside 1200 x 4800, where WebP can encode it', async () => {
    const processor = new SharpImageProcessor();
    const sizes: [number, number][] = [
      [300, 20_000],
      [1, 40_000],
    ];
    for (const [width, height] of sizes) {
      const tall = await sharp({ create: { width, height, channels: 3, background: '#3a3' } })
        .png()
        .toBuffer();
      const prepared = await processor.prepare(tall);
      expect(prepared.height).toBe(MAX_IMAGE_HEIGHT);
      expect(prepared.width).toBe(Math.max(1, Math.round((width * MAX_IMAGE_HEIGHT) / height)));
      expect(await sharp(prepared.bytes).metadata()).toMatchObject({ height: MAX_IMAGE_HEIGHT });
    }
  });

  it('keep the JPEG when WebP cannot encode the image', async () => {
    const webp = jest.spyOn(sharp.prototype, 'webp').mockImplementation(() => {
      throw new Error('Processed image is too large for the WebP format');
    });
    try {
      const prepared = await new SharpImageProcessor().prepare(png);
      expect(prepared.mimeType).toBe('image/jpeg');
      expect(sniffImageFormat(prepared.bytes)).toBe('jpeg');
    } finally {
      webp.mockRestore();
    }
  });
});
