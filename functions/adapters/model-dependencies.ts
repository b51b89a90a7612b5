/**
 * The language model's composition root, imported only by the generation worker so that no
 * other function bundles the `openai` client.
 */
import type { ArticleModelProvider } from '../core/articles/article-model';
import type { GenerateArticleDeps } from '../core/articles/generate-article';
import { secretsManagerClient } from '../shared/aws-clients';
import { envFlag, optionalEnv } from '../shared/env';
import { articlesWithEvents, systemClock } from './dependencies';
import { OfflineModelProvider } from './model/offline-article-model';
import { OpenAiModelProvider } from './model/openai-article-model';
import { readSecretApiKey } from './secrets/secret-api-key';

let provider: ArticleModelProvider | undefined;

/**
 * Provider models behind the two `ai_model` tiers of the API. The outline uses structured
 * output (json_schema), which the original gpt-3.5-turbo and gpt-4 do not support, so each
 * tier maps to the current model of its class; operators can override both.
 */
export const DEFAULT_PROVIDER_MODELS = { 'gpt-3.5-turbo': 'gpt-4o-mini', 'gpt-4': 'gpt-4o' } as const;

/**
 * The language model: OpenAI (or a compatible server at OPENAI_BASE_URL) with the key from the
 * Secrets Manager secret OPENAI_SECRET_ARN (deployed) or OPENAI_API_KEY (local); the offline
 * writer only in local mode without a key.
 */
function createModelProvider(): ArticleModelProvider {
  const secretArn = optionalEnv('OPENAI_SECRET_ARN');
  const apiKey = optionalEnv('OPENAI_API_KEY');
  if (!secretArn && !apiKey) {
    if (envFlag('INKPRESS_LOCAL_MODE', false)) return new OfflineModelProvider();
    throw new Error(
      'No language model configured: set OPENAI_SECRET_ARN (deployed) or OPENAI_API_KEY (local).',
    );
  }
  const baseURL = optionalEnv('OPENAI_BASE_URL');
  return new OpenAiModelProvider({
    apiKey: secretArn
      ? () => readSecretApiKey(secretsManagerClient(), secretArn)
      : async () => apiKey as string,
    ...(baseURL ? { baseURL } : {}),
    timeoutMs: Number(optionalEnv('OPENAI_TIMEOUT_SECONDS') ?? '40') * 1000,
    maxRetries: Number(optionalEnv('OPENAI_MAX_RETRIES') ?? '2'),
    providerModels: {
      'gpt-3.5-turbo': optionalEnv('OPENAI_MODEL_GPT_3_5_TURBO') ?? DEFAULT_PROVIDER_MODELS['gpt-3.5-turbo'],
      'gpt-4': optionalEnv('OPENAI_MODEL_GPT_4') ?? DEFAULT_PROVIDER_MODELS['gpt-4'],
    },
  });
}

export function modelProvider(): ArticleModelProvider {
  provider ??= createModelProvider();
  return provider;
}

export function generationDeps(): GenerateArticleDeps {
  return { articles: articlesWithEvents(), models: modelProvider(), clock: systemClock };
}
