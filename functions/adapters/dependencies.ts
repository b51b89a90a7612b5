/**
 * The composition root: each port's production implementation, created once per process on
 * first use (after the environment is set, which lets tests point it at emulators).
 */
import type { AccountStore, TokenStore } from '../core/accounts';
import type { ArticleModelProvider } from '../core/articles/article-model';
import type { CreateArticleDeps } from '../core/articles/create-article';
import type { GenerateArticleDeps } from '../core/articles/generate-article';
import type {
  ArticleStore,
  CategoryLookup,
  Clock,
  GenerationQueue,
  WebsiteLookup,
} from '../core/articles/ports';
import type { ReadArticlesDeps } from '../core/articles/read-articles';
import type { SweepArticlesDeps } from '../core/articles/sweep-articles';
import type { PublicationStore } from '../core/publishing/ports';
import type { PublishDeps } from '../core/publishing/publish-article';
import type { CmsClient } from '../core/websites/cms-client';
import type { WebsiteDeps } from '../core/websites/create-website';
import type { PasswordCipher } from '../core/websites/password-cipher';
import type { CategoryStore, WebsiteStore } from '../core/websites/ports';
import { dynamoDocumentClient, kmsClient, secretsManagerClient, sqsClient } from '../shared/aws-clients';
import { envFlag, optionalEnv, requireEnv } from '../shared/env';
import { DynamoAccountRepository } from './dynamodb/account-repository';
import { DynamoApiTokenRepository } from './dynamodb/api-token-repository';
import { DynamoArticleRepository } from './dynamodb/article-repository';
import { DynamoCategoryRepository } from './dynamodb/category-repository';
import { DynamoPublicationRepository } from './dynamodb/publication-repository';
import { tableNameOf } from './dynamodb/table-names';
import { DynamoWebsiteRepository } from './dynamodb/website-repository';
import { KmsPasswordCipher } from './kms/site-password-cipher';
import { OfflineModelProvider } from './model/offline-article-model';
import { OpenAiModelProvider } from './model/openai-article-model';
import { readSecretApiKey } from './secrets/secret-api-key';
import { SqsGenerationQueue } from './sqs/sqs-generation-queue';
import { systemResolver } from './wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS, WordPressClient } from './wordpress/wordpress-client';

function once<T>(create: () => T): () => T {
  let instance: T | undefined;
  return () => {
    instance ??= create();
    return instance;
  };
}

export const accountStore = once<AccountStore>(
  () => new DynamoAccountRepository(dynamoDocumentClient(), tableNameOf('accounts')),
);

export const tokenStore = once<TokenStore>(
  () => new DynamoApiTokenRepository(dynamoDocumentClient(), tableNameOf('apiTokens')),
);

export const websiteStore = once<WebsiteStore>(
  () => new DynamoWebsiteRepository(dynamoDocumentClient(), tableNameOf('websites')),
);

export const categoryStore = once<CategoryStore>(
  () => new DynamoCategoryRepository(dynamoDocumentClient(), tableNameOf('categories')),
);

export const articleStore = once<ArticleStore>(
  () =>
    new DynamoArticleRepository(dynamoDocumentClient(), {
      articles: tableNameOf('articles'),
      accounts: tableNameOf('accounts'),
      dailyUsage: tableNameOf('dailyUsage'),
      websites: tableNameOf('websites'),
    }),
);

export const generationQueue = once<GenerationQueue>(
  () => new SqsGenerationQueue(sqsClient(), requireEnv('GENERATION_QUEUE_URL')),
);

/**
 * The language model: OpenAI (or a compatible server at OPENAI_BASE_URL) with the key from the
 * Secrets Manager secret OPENAI_SECRET_ARN (deployed) or OPENAI_API_KEY (local); the offline
 * writer only in local mode without a key.
 */
export const modelProvider = once<ArticleModelProvider>(() => {
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
    timeoutMs: Number(optionalEnv('OPENAI_TIMEOUT_SECONDS') ?? '60') * 1000,
    maxRetries: Number(optionalEnv('OPENAI_MAX_RETRIES') ?? '2'),
    providerModels: {
      'gpt-3.5-turbo': optionalEnv('OPENAI_MODEL_GPT_3_5_TURBO') ?? 'gpt-3.5-turbo',
      'gpt-4': optionalEnv('OPENAI_MODEL_GPT_4') ?? 'gpt-4',
    },
  });
});

const systemClock: Clock = () => new Date();

const websiteLookup = (): WebsiteLookup => websiteStore();
const categoryLookup = (): CategoryLookup => categoryStore();

export function articleDeps(): Omit<CreateArticleDeps, 'onEnqueueFailure'> & ReadArticlesDeps {
  return {
    articles: articleStore(),
    accounts: accountStore(),
    websites: websiteLookup(),
    categories: categoryLookup(),
    queue: generationQueue(),
    clock: systemClock,
  };
}

export function generationDeps(): GenerateArticleDeps {
  return { articles: articleStore(), models: modelProvider(), clock: systemClock };
}

export function sweepDeps(): SweepArticlesDeps {
  return { articles: articleStore(), accounts: accountStore(), queue: generationQueue(), clock: systemClock };
}

export const passwordCipher = once<PasswordCipher>(
  () => new KmsPasswordCipher(kmsClient(), requireEnv('SITE_PASSWORD_KEY_ID')),
);

/** Calls to customer sites; private addresses only when INKPRESS_ALLOW_PRIVATE_URLS is on (local mode). */
export const cmsClient = once<CmsClient>(
  () =>
    new WordPressClient({
      ...DEFAULT_SITE_LIMITS,
      allowPrivate: envFlag('INKPRESS_ALLOW_PRIVATE_URLS', false),
      resolve: systemResolver,
    }),
);

/** Everything the website use cases need. */
export function websiteDeps(): WebsiteDeps {
  return {
    websites: websiteStore(),
    categories: categoryStore(),
    cipher: passwordCipher(),
    cms: cmsClient(),
  };
}

export const publicationStore = once<PublicationStore>(
  () => new DynamoPublicationRepository(dynamoDocumentClient(), tableNameOf('articles')),
);

/** Everything publishing (worker) and the sweeper's website work need. */
export function publishDeps(): PublishDeps {
  return {
    articles: articleStore(),
    publications: publicationStore(),
    websites: websiteStore(),
    categories: categoryStore(),
    cipher: passwordCipher(),
    cms: cmsClient(),
    clock: systemClock,
  };
}
