import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Reads an API key from a Secrets Manager secret: either the plain key, or JSON with an
 * `apiKey` (or `OPENAI_API_KEY`) field.
 */
export async function readSecretApiKey(client: SecretsManagerClient, secretId: string): Promise<string> {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  const value = SecretString?.trim() ?? '';
  let key = value;
  if (value.startsWith('{')) {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    key = String(parsed.apiKey ?? parsed.OPENAI_API_KEY ?? '');
  }
  if (key === '' || key === 'CHANGE_ME') {
    throw new Error(
      `The secret ${secretId} holds no API key yet: set its value (see docs/operations.md, "Deploy").`,
    );
  }
  return key;
}
