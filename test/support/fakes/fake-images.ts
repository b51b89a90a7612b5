/** In-memory stand-ins of the image ports: a generator, a fetcher of scripted URLs, a processor and a store. */
import type { ArticleImageDeps } from '../../../functions/core/articles/article-images';
import {
  type ImageFetcher,
  type ImageGenerator,
  type ImageLinks,
  type ImageProcessor,
  type ImageStore,
  ImageUnavailableError,
  type PreparedImage,
} from '../../../functions/core/images/ports';

export class FakeImageGenerator implements ImageGenerator {
  readonly source = 'generated' as const;
  readonly prompts: string[] = [];
  /** Prompts containing this text fail. */
  failWhen?: string;

  async generate(prompt: string): Promise<Buffer> {
    this.prompts.push(prompt);
    if (this.failWhen !== undefined && prompt.includes(this.failWhen)) {
      throw new ImageUnavailableError('The fake Images API failed.');
    }
    return Buffer.from(`generated:${prompt}`);
  }
}

export class FakeImageFetcher implements ImageFetcher {
  readonly urls = new Map<string, Buffer>();

  async fetch(url: string): Promise<Buffer> {
    const bytes = this.urls.get(url);
    if (!bytes) throw new ImageUnavailableError(`Nothing at ${url}.`);
    return bytes;
  }
}

/** Takes bytes starting with `generated:` or `image:` as images; anything else is refused. */
export class FakeImageProcessor implements ImageProcessor {
  async prepare(bytes: Buffer): Promise<PreparedImage> {
    const text = bytes.toString('utf8');
    if (!text.startsWith('generated:') && !text.startsWith('image:')) {
      throw new ImageUnavailableError('Not an image.');
    }
    return { bytes: Buffer.from(`webp:${text}`), mimeType: 'image/webp', width: 1200, height: 800 };
  }

  async preview(bytes: Buffer): Promise<Buffer> {
    await this.prepare(bytes);
    return bytes;
  }
}

export class FakeImageStore implements ImageStore, ImageLinks {
  readonly objects = new Map<string, { bytes: Buffer; mimeType: string; publishedAt?: string }>();

  async put(key: string, image: PreparedImage): Promise<void> {
    this.objects.set(key, { bytes: image.bytes, mimeType: image.mimeType });
  }

  async get(key: string): Promise<Buffer | undefined> {
    return this.objects.get(key)?.bytes;
  }

  async markPublished(images: { key: string }[], publishedAt: string): Promise<void> {
    for (const { key } of images) {
      const object = this.objects.get(key);
      if (object) object.publishedAt = publishedAt;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) this.objects.delete(key);
  }

  async linkTo(key: string): Promise<string> {
    return `https://images.example/${key}?signed=1`;
  }
}

export function fakeImageDeps(): ArticleImageDeps & {
  generator: FakeImageGenerator;
  fetcher: FakeImageFetcher;
  store: FakeImageStore;
} {
  return {
    generator: new FakeImageGenerator(),
    fetcher: new FakeImageFetcher(),
    processor: new FakeImageProcessor(),
    store: new FakeImageStore(),
  };
}
