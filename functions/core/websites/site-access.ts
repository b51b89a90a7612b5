/**
 * How Inkpress logs in to a registered site: its URL, login and the password decrypted under the
 * context the ciphertext was bound to. A record from before the URL was part of the context
 * (no `passwordContextVersion`) is decrypted the old way, encrypted again bound to its URL and
 * stored, so each old record migrates on its first read.
 */
import type { SiteAccess } from './cms-client';
import { PASSWORD_CONTEXT_VERSION, type PasswordCipher } from './password-cipher';
import type { WebsiteStore } from './ports';
import type { Website } from './website';

export interface SiteAccessDeps {
  cipher: PasswordCipher;
  websites: Pick<WebsiteStore, 'replacePasswordCiphertext'>;
}

export async function siteAccessOf(deps: SiteAccessDeps, website: Website): Promise<SiteAccess> {
  const { accountId, websiteUuid, url } = website;
  if (website.passwordContextVersion === PASSWORD_CONTEXT_VERSION) {
    const password = await deps.cipher.decrypt(website.passwordCiphertext, { accountId, websiteUuid, url });
    return { url, login: website.login, password };
  }
  const password = await deps.cipher.decrypt(website.passwordCiphertext, { accountId, websiteUuid });
  const passwordCiphertext = await deps.cipher.encrypt(password, { accountId, websiteUuid, url });
  // Conditional on the old ciphertext: credentials updated meanwhile are never overwritten.
  await deps.websites.replacePasswordCiphertext(
    accountId,
    websiteUuid,
    { passwordCiphertext, passwordContextVersion: PASSWORD_CONTEXT_VERSION },
    website.passwordCiphertext,
  );
  return { url, login: website.login, password };
}
