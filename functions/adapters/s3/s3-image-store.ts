/**
 * Article images in the private image bucket. An object's key starts with the account id. At
 * publication each object is copied onto itself with the tag `inkpress-published=true`: the copy
 * restarts its age, so the bucket's lifecycle rule (tagged objects expire after 30 days) counts
 * from the publication.
 */
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ImageLinks, ImageStore, PreparedImage } from '../../core/images/ports';

export const PUBLISHED_TAG = { key: 'inkpress-published', value: 'true' } as const;
/** How long a presigned image link works. */
export const IMAGE_LINK_SECONDS = 3600;

export class S3ImageStore implements ImageStore, ImageLinks {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, image: PreparedImage): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: image.bytes,
        ContentType: image.mimeType,
        CacheControl: 'private, max-age=3600',
      }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = await answer.Body?.transformToByteArray();
      return bytes ? Buffer.from(bytes) : undefined;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async markPublished(images: { key: string; mimeType: string }[], publishedAt: string): Promise<void> {
    await Promise.all(
      images.map(({ key, mimeType }) =>
        this.client
          .send(
            new CopyObjectCommand({
              Bucket: this.bucket,
              Key: key,
              CopySource: `${this.bucket}/${encodeURIComponent(key).replace(/%2F/g, '/')}`,
              // A copy onto itself must change something: the metadata says when it was published.
              MetadataDirective: 'REPLACE',
              Metadata: { 'published-at': publishedAt },
              ContentType: mimeType,
              CacheControl: 'private, max-age=3600',
              TaggingDirective: 'REPLACE',
              Tagging: `${PUBLISHED_TAG.key}=${PUBLISHED_TAG.value}`,
            }),
          )
          .catch((error: unknown) => {
            // Gone already: nothing left to expire.
            if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
            throw error;
          }),
      ),
    );
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.client.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: keys.map((key) => ({ Key: key })), Quiet: true },
      }),
    );
  }

  linkTo(key: string): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: IMAGE_LINK_SECONDS,
    });
  }
}
