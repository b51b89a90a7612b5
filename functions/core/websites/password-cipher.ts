/** Encrypts site passwords at rest, bound to the website and the URL they were given for. */

/** What a ciphertext is bound to: decrypting it under another context fails. */
export interface PasswordContext {
  accountId: string;
  websiteUuid: string;
  /** The normalised site URL the password was given for. */
  url: string;
}

/** The context of ciphertexts written before the URL was part of it (context version 1). */
export type LegacyPasswordContext = Omit<PasswordContext, 'url'>;

/** Version of the context a website's ciphertext is bound to: 2 is `{accountId, websiteUuid, url}`. */
export const PASSWORD_CONTEXT_VERSION = 2;

export interface PasswordCipher {
  /** Returns the ciphertext as base64. */
  encrypt(password: string, context: PasswordContext): Promise<string>;
  decrypt(ciphertext: string, context: PasswordContext | LegacyPasswordContext): Promise<string>;
}
