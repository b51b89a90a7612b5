/**
 * Site passwords encrypted with KMS under the site-password key, with the EncryptionContext
 * `{accountId, websiteUuid, url}`: a ciphertext copied to another website, account or URL does
 * not decrypt (records written before the URL was added decrypt with the first two only).
 * Plain passwords exist only in memory, never in logs or errors.
 */
import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type {
  LegacyPasswordContext,
  PasswordCipher,
  PasswordContext,
} from '../../core/websites/password-cipher';

export class KmsPasswordCipher implements PasswordCipher {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async encrypt(password: string, context: PasswordContext): Promise<string> {
    const { CiphertextBlob } = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(password, 'utf8'),
        EncryptionContext: encryptionContext(context),
      }),
    );
    if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    return Buffer.from(CiphertextBlob).toString('base64');
  }

  async decrypt(ciphertext: string, context: PasswordContext | LegacyPasswordContext): Promise<string> {
    const { Plaintext } = await this.client.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(ciphertext, 'base64'),
        EncryptionContext: encryptionContext(context),
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    return Buffer.from(Plaintext).toString('utf8');
  }
}

function encryptionContext(context: PasswordContext | LegacyPasswordContext): Record<string, string> {
  const bound = { accountId: context.accountId, websiteUuid: context.websiteUuid };
  return 'url' in context ? { ...bound, url: context.url } : bound;
}
