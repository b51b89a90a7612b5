/**
 * Webhook signing secrets encrypted with the service's KMS key, with the EncryptionContext
 * `{purpose, accountId, webhookUuid}`: a ciphertext decrypts only for its own endpoint, and
 * never as a site password (whose context has no `purpose`) or the other way round.
 */
import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher } from '../../core/webhooks/ports';
import { WEBHOOK_SECRET_PURPOSE } from './key-purposes';

export class KmsWebhookSecretCipher implements SecretCipher {
  /** Secrets decrypted in this process, by ciphertext: one KMS call per endpoint and cold start. */
  private readonly decrypted = new Map<string, string>();

  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async encrypt(secret: string, context: { accountId: string; webhookUuid: string }): Promise<string> {
    const { CiphertextBlob } = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(secret, 'utf8'),
        EncryptionContext: { purpose: WEBHOOK_SECRET_PURPOSE, ...context },
      }),
    );
    if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    return Buffer.from(CiphertextBlob).toString('base64');
  }

  async decrypt(ciphertext: string, context: { accountId: string; webhookUuid: string }): Promise<string> {
    const cacheKey = `${context.accountId}/${context.webhookUuid}/${ciphertext}`;
    const cached = this.decrypted.get(cacheKey);
    if (cached !== undefined) return cached;
    const { Plaintext } = await this.client.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(ciphertext, 'base64'),
        EncryptionContext: { purpose: WEBHOOK_SECRET_PURPOSE, ...context },
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    const secret = Buffer.from(Plaintext).toString('utf8');
    this.decrypted.set(cacheKey, secret);
    return secret;
  }
}
