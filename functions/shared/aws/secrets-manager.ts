/** The Secrets Manager client, created once per process on first use (endpoint: `AWS_ENDPOINT_URL_SECRETS_MANAGER`). */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let secretsManager: SecretsManagerClient | undefined;

export function secretsManagerClient(): SecretsManagerClient {
  secretsManager ??= new SecretsManagerClient({});
  return secretsManager;
}
