/** Access to customer sites: the site-password cipher and the WordPress client (through the SSRF guard). */
import { DynamoLoginFailureRepository } from '../adapters/dynamodb/login-failure-repository';
import { KmsPasswordCipher } from '../adapters/kms/site-password-cipher';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS, WordPressClient } from '../adapters/wordpress/wordpress-client';
import type { CmsClient } from '../core/websites/cms-client';
import type { WebsiteDeps } from '../core/websites/create-website';
import type { PasswordCipher } from '../core/websites/password-cipher';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import { kmsClient } from '../shared/aws/kms';
import { type Config, declared } from '../shared/config';
import { categoryStore, websiteStore } from './websites';

export function passwordCipher(config: Config): PasswordCipher {
  return new KmsPasswordCipher(kmsClient(), declared(config.sitePasswordKeyId, 'The site-password key'));
}

/** Calls to customer sites through the SSRF guard; private addresses only in local mode. */
export function cmsClient(config: Config): CmsClient {
  return new WordPressClient({
    ...DEFAULT_SITE_LIMITS,
    allowPrivate: config.allowPrivateUrls,
    resolve: systemResolver,
  });
}

/** Everything the website use cases need; plain http site URLs only in local mode. */
export function websiteDeps(config: Config): WebsiteDeps {
  return {
    websites: websiteStore(config),
    categories: categoryStore(config),
    cipher: passwordCipher(config),
    cms: cmsClient(config),
    allowPlainHttp: config.allowPrivateUrls,
    loginFailures: new DynamoLoginFailureRepository(dynamoDocumentClient(), config.tables.rateLimits),
  };
}
