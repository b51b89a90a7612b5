/** The image bucket as a store and a link maker (S3 only: no image tooling). */
import { S3ImageStore } from '../adapters/s3/s3-image-store';
import { s3Client } from '../shared/aws/s3';
import { type Config, declared } from '../shared/config';

export function imageStore(config: Config): S3ImageStore {
  return new S3ImageStore(s3Client(), declared(config.imageBucketName, 'The image bucket'));
}
