/**
 * The language model, composed only by the generation worker so that no other function bundles
 * the `openai` client.
 */
import { OfflineModelProvider } from '../adapters/model/offline-article-model';
import { OpenAiModelProvider } from '../adapters/model/openai-article-model';
import { readSecretApiKey } from '../adapters/secrets/secret-api-key';
import type { ArticleModelProvider } from '../core/articles/article-model';
import { secretsManagerClient } from '../shared/aws/secrets-manager';
import type { Config } from '../shared/config';

/**
 * Provider models behind the two `ai_model` tiers of the API. The outline uses structured
 * output (json_schema), which the original gpt-3.5-turbo and gpt-4 do not support, so each
 * tier maps to the current model of its class; operators can override both.
 */
export const DEFAULT_PROVIDER_MODELS = { 'gpt-3.5-turbo': 'gpt-4o-mini', 'gpt-4': 'gpt-4o' } as const;

/**
 * OpenAI (or a compatible server at OPENAI_BASE_URL) with the key from the Secrets Manager secret
 * (deployed) or OPENAI_API_KEY (local); the offline writer in local mode without a key.
 */
export function modelProvider(config: Config): ArticleModelProvider {
  const { model } = config;
  if (!model) return new OfflineModelProvider();
  const { secretArn, apiKey } = model;
  return new OpenAiModelProvider({
    apiKey: secretArn
      ? () => readSecretApiKey(secretsManagerClient(), secretArn)
      : async () => apiKey as string,
    ...(model.baseURL ? { baseURL: model.baseURL } : {}),
    timeoutMs: model.timeoutMs,
    maxRetries: model.maxRetries,
    providerModels: {
      'gpt-3.5-turbo': model.gpt35Turbo ?? DEFAULT_PROVIDER_MODELS['gpt-3.5-turbo'],
      'gpt-4': model.gpt4 ?? DEFAULT_PROVIDER_MODELS['gpt-4'],
    },
  });
}
