/** Encrypts site passwords at rest, bound to the website they belong to. */

/** What a ciphertext is bound to: decrypting it under another context fails. */
export interface PasswordContext {
  accountId: string;
  websiteUuid: string;
}

export interface PasswordCipher {
  /** Returns the ciphertext as base64. */
  encrypt(password: string, context: PasswordContext): Promise<string>;
  decrypt(ciphertext: string, context: PasswordContext): Promise<string>;
}
