/**
 * Article images: the S3 bucket (store and presigned links), and for the worker the generator
 * (OpenAI's Images API, or the offline placeholder), the guarded fetcher of client URLs and sharp.
 */
import { GuardedImageFetcher, IMAGE_FETCH_LIMITS } from '../adapters/images/guarded-image-fetcher';
import { DEFAULT_IMAGE_MODEL, OpenAiImageGenerator } from '../adapters/images/openai-image-generator';
import { PlaceholderImageGenerator } from '../adapters/images/placeholder-image-generator';
import { SharpImageProcessor } from '../adapters/images/sharp-image-processor';
import { readSecretApiKey } from '../adapters/secrets/secret-api-key';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import type { ArticleImageDeps } from '../core/articles/article-images';
import { secretsManagerClient } from '../shared/aws/secrets-manager';
import type { Config } from '../shared/config';
import { imageStore } from './image-links';

/** What making images needs (the worker). */
export function imageDeps(config: Config): ArticleImageDeps {
  const { model } = config;
  const generator = model
    ? new OpenAiImageGenerator({
        apiKey: model.secretArn
          ? () => readSecretApiKey(secretsManagerClient(), model.secretArn as string)
          : async () => model.apiKey as string,
        ...(model.baseURL ? { baseURL: model.baseURL } : {}),
        // Images take longer than text: the Images API often needs 30-60 s for one.
        timeoutMs: Math.max(model.timeoutMs, 120_000),
        maxRetries: model.maxRetries,
        model: model.imageModel ?? DEFAULT_IMAGE_MODEL,
      })
    : new PlaceholderImageGenerator();
  return {
    generator,
    fetcher: new GuardedImageFetcher({
      allowPrivate: config.allowPrivateUrls,
      resolve: systemResolver,
      ...IMAGE_FETCH_LIMITS,
    }),
    processor: new SharpImageProcessor(),
    store: imageStore(config),
  };
}
