import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PUBLISHED_TAG } from '../../functions/adapters/s3/s3-image-store';
import type { FunctionAccess } from '../../functions/routes';

/** Days a published article's images stay after its publication (the site has them then). */
export const PUBLISHED_IMAGE_DAYS = 30;

/** Where every object lives: `articles/<account id>/<article uuid>/<slot>`. */
const OBJECTS = 'articles/*';

const ACTIONS: Record<NonNullable<FunctionAccess['imageBucket']>, string[]> = {
  // Presigned GetObject links are signed with the function's own credentials.
  read: ['s3:GetObject'],
  // Store, read, tag at publication (a copy onto itself with a new tag set) and delete.
  readWrite: [
    's3:GetObject',
    's3:PutObject',
    's3:PutObjectTagging',
    's3:GetObjectTagging',
    's3:DeleteObject',
  ],
};

/**
 * The article images: private (every public access blocked), encrypted at rest, TLS only. A
 * published article's images expire 30 days after publication: the publication copies each
 * object onto itself with the tag `inkpress-published=true`, which restarts its age, and the
 * lifecycle rule expires tagged objects 30 days after that.
 */
export class ImageBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'published-article-images',
          tagFilters: { [PUBLISHED_TAG.key]: PUBLISHED_TAG.value },
          expiration: Duration.days(PUBLISHED_IMAGE_DAYS),
        },
        { id: 'incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
  }

  /** The actions `access` declares, on the article objects only. */
  grant(grantee: iam.IGrantable, access: NonNullable<FunctionAccess['imageBucket']>): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ACTIONS[access],
        resources: [this.bucket.arnForObjects(OBJECTS)],
      }),
    );
  }
}
