/** Access to customer sites: the site-password cipher and the WordPress client (through the SSRF guard). */
import { DynamoLoginFailureRepository } from '../adapters/dynamodb/login-failure-repository';
import { KmsPasswordCipher } from '../adapters/kms/site-password-cipher';
import { WordPressConnectionProbes } from '../adapters/wordpress/connection-probes';
import type { OutboundPolicy } from '../adapters/wordpress/guarded-http';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS, WordPressClient } from '../adapters/wordpress/wordpress-client';
import type { CmsClient } from '../core/websites/cms-client';
import type { WebsiteDeps } from '../core/websites/create-website';
import type { LoginAttemptStore } from '../core/websites/login-failures';
import type { PasswordCipher } from '../core/websites/password-cipher';
import type { ConnectionProbes } from '../core/websites/ports';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import { kmsClient } from '../shared/aws/kms';
import { type Config, declared } from '../shared/config';
import { categoryStore, websiteStore } from './websites';

export function passwordCipher(config: Config): PasswordCipher {
  return new KmsPasswordCipher(kmsClient(), declared(config.sitePasswordKeyId, 'The site-password key'));
}

/** Calls to customer sites through the SSRF guard; private addresses only in local mode. */
export function cmsClient(config: Config): CmsClient {
  return new WordPressClient(sitePolicy(config));
}

/** The connection doctor's probes, under the same guard and limits. */
export function connectionProbes(config: Config): ConnectionProbes {
  return new WordPressConnectionProbes(sitePolicy(config));
}

function sitePolicy(config: Config): OutboundPolicy {
  return { ...DEFAULT_SITE_LIMITS, allowPrivate: config.allowPrivateUrls, resolve: systemResolver };
}

/** Everything the website use cases need; plain http site URLs only in local mode. */
export function websiteDeps(config: Config): WebsiteDeps {
  return {
    websites: websiteStore(config),
    categories: categoryStore(config),
    cipher: passwordCipher(config),
    cms: cmsClient(config),
    probes: connectionProbes(config),
    allowPlainHttp: config.allowPrivateUrls,
    loginFailures: loginFailureStore(config),
  };
}

/** An account's failed logins to sites (login-failures.ts), beside its rate-limit bucket. */
export function loginFailureStore(config: Config): LoginAttemptStore {
  return new DynamoLoginFailureRepository(dynamoDocumentClient(), config.tables.rateLimits);
}
