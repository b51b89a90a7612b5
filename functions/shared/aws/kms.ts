/** The KMS client, created once per process on first use (endpoint: `AWS_ENDPOINT_URL_KMS`). */
import { KMSClient } from '@aws-sdk/client-kms';

let kms: KMSClient | undefined;

export function kmsClient(): KMSClient {
  kms ??= new KMSClient({});
  return kms;
}
