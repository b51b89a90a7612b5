/**
 * The S3 client, created once per process on first use (endpoint: `AWS_ENDPOINT_URL_S3`; an
 * emulator such as moto is addressed by path, not by a bucket host name).
 */
import { S3Client } from '@aws-sdk/client-s3';

let s3: S3Client | undefined;

export function s3Client(): S3Client {
  s3 ??= new S3Client({ forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3) });
  return s3;
}
