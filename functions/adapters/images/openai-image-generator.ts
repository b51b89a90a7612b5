/** Images from the OpenAI Images API (`images.generate`, `b64_json`) of the configured base URL. */
import OpenAI from 'openai';
import { type ImageGenerator, ImageUnavailableError } from '../../core/images/ports';

export const DEFAULT_IMAGE_MODEL = 'gpt-image-1';

export interface OpenAiImageSettings {
  apiKey: () => Promise<string>;
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
  /** OPENAI_IMAGE_MODEL, `gpt-image-1` by default. */
  model: string;
}

export class OpenAiImageGenerator implements ImageGenerator {
  readonly source = 'generated' as const;
  private client: Promise<OpenAI> | undefined;

  constructor(private readonly settings: OpenAiImageSettings) {}

  async generate(prompt: string): Promise<Buffer> {
    const client = await this.openai();
    let answer: OpenAI.ImagesResponse;
    try {
      answer = await client.images.generate({
        model: this.settings.model,
        prompt,
        n: 1,
        size: '1536x1024',
        // The GPT image models always answer base64 and refuse the parameter; DALL-E needs it.
        ...(this.settings.model.startsWith('dall-e') ? { response_format: 'b64_json' as const } : {}),
      });
    } catch (error) {
      // The client retried what can be retried (429, 5xx, timeouts): the image cannot be had now.
      throw new ImageUnavailableError(
        `The Images API failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const b64 = answer.data?.[0]?.b64_json;
    if (!b64) throw new ImageUnavailableError('The Images API answered without b64_json.');
    return Buffer.from(b64, 'base64');
  }

  private openai(): Promise<OpenAI> {
    this.client ??= this.settings.apiKey().then(
      (apiKey) =>
        new OpenAI({
          apiKey,
          timeout: this.settings.timeoutMs,
          maxRetries: this.settings.maxRetries,
          ...(this.settings.baseURL ? { baseURL: this.settings.baseURL } : {}),
        }),
    );
    return this.client.catch((error) => {
      this.client = undefined;
      throw error;
    });
  }
}
