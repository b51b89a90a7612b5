/** A function's configuration: what its route-table access declares, validated once, one error naming the variable. */
import { authorizer, functionNamed, generationWorker } from '../../../functions/routes';
import { ConfigError, generationTimings, loadConfig } from '../../../functions/shared/config';

const API_ENV = { RATE_LIMITS_TABLE: 'limits', WEBSITES_TABLE: 'websites' };

describe('loadConfig', () => {
  it('reads what the access declares; an undeclared table is an error when used', () => {
    const config = loadConfig(API_ENV, functionNamed('ListWebsites').access);
    expect(config.tables.websites).toBe('websites');
    expect(config.rateLimit).toEqual({ ratePerSecond: 10, burst: 20 });
    expect(() => config.tables.articles).toThrow(
      new ConfigError("The articles table is not in this function's access (functions/routes.ts)."),
    );
    expect(config.generationQueueUrl).toBeUndefined();
  });

  it('names a missing variable', () => {
    expect(() => loadConfig({ RATE_LIMITS_TABLE: 'limits' }, functionNamed('ListWebsites').access)).toThrow(
      new ConfigError('Missing environment variable WEBSITES_TABLE (the websites table).'),
    );
    expect(() =>
      loadConfig(
        {
          ...API_ENV,
          ARTICLES_TABLE: 'a',
          ACCOUNTS_TABLE: 'b',
          DAILY_USAGE_TABLE: 'c',
          CATEGORIES_TABLE: 'd',
          IDEMPOTENCY_TABLE: 'e',
          SITE_INDEX_TABLE: 'f',
        },
        functionNamed('CreateArticle').access,
      ),
    ).toThrow('Missing environment variable GENERATION_QUEUE_URL (the generation queue).');
  });

  it('names a malformed variable instead of falling back', () => {
    expect(() =>
      loadConfig({ ...API_ENV, INKPRESS_RATE_LIMIT_BURST: '0' }, functionNamed('ListWebsites').access),
    ).toThrow('Environment variable INKPRESS_RATE_LIMIT_BURST must be a number >= 1, not "0".');
    expect(() =>
      loadConfig({ ...API_ENV, INKPRESS_HSTS: 'maybe' }, functionNamed('ListWebsites').access),
    ).toThrow('Environment variable INKPRESS_HSTS must be true or false, not "maybe".');
  });

  it('asks the worker for a language model unless in local mode', () => {
    const env = {
      ACCOUNTS_TABLE: 'a',
      ARTICLES_TABLE: 'b',
      WEBSITES_TABLE: 'c',
      CATEGORIES_TABLE: 'd',
      USAGE_DAYS_TABLE: 'e',
      WEBHOOKS_TABLE: 'f',
      SITE_INDEX_TABLE: 'g',
      GENERATION_QUEUE_URL: 'q',
      WEBHOOK_QUEUE_URL: 'w',
      SITE_PASSWORD_KEY_ID: 'k',
      IMAGE_BUCKET_NAME: 'i',
    };
    expect(() => loadConfig(env, generationWorker.access)).toThrow(
      'No language model configured: set OPENAI_SECRET_ARN (deployed) or OPENAI_API_KEY (local).',
    );
    expect(
      loadConfig({ ...env, INKPRESS_LOCAL_MODE: 'true' }, generationWorker.access).model,
    ).toBeUndefined();
    expect(
      loadConfig({ ...env, OPENAI_SECRET_ARN: 'arn', OPENAI_MAX_RETRIES: '1' }, generationWorker.access)
        .model,
    ).toMatchObject({ secretArn: 'arn', maxRetries: 1, timeoutMs: 40_000 });
    expect(() =>
      loadConfig({ ...env, OPENAI_API_KEY: 'k', OPENAI_MAX_RETRIES: '1.5' }, generationWorker.access),
    ).toThrow('Environment variable OPENAI_MAX_RETRIES must be an integer >= 0, not "1.5".');
  });

  it('gives the worker the deployed lease and retry delay unless the environment shortens them', () => {
    expect(generationTimings({})).toEqual({ leaseMs: 60_000, firstRetrySeconds: 30 });
    expect(
      generationTimings({ INKPRESS_GENERATION_LEASE_SECONDS: '4', INKPRESS_GENERATION_RETRY_SECONDS: '1' }),
    ).toEqual({ leaseMs: 4_000, firstRetrySeconds: 1 });
    expect(() => generationTimings({ INKPRESS_GENERATION_LEASE_SECONDS: '0' })).toThrow(
      new ConfigError(
        'Environment variable INKPRESS_GENERATION_LEASE_SECONDS must be a number >= 1, not "0".',
      ),
    );
  });

  it('gives the authorizer its token table and nothing else', () => {
    const config = loadConfig({ API_TOKENS_TABLE: 'tokens' }, authorizer.access);
    expect(config.tables.apiTokens).toBe('tokens');
    expect(config.rateLimit).toBeUndefined();
    expect(() => config.tables.accounts).toThrow(ConfigError);
  });
});
