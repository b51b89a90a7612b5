/**
 * Featured and inline images through the real create handler, worker and show handler against
 * DynamoDB Local, moto's S3 and the fake OpenAI server (`/v1/images/generations`): images stored
 * as WebP or JPEG within 1200 px and 200 KB with the model's alt text, shown with presigned links,
 * and an image that cannot be had (an SVG, a 20 MB image, a failing Images API) leaves the article
 * generated without it, with exactly its credits back, once, whatever the redeliveries.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import sharp from 'sharp';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { createAccount } from '../../functions/core/accounts';
import { MAX_GENERATION_ATTEMPTS } from '../../functions/core/articles/lifecycle-policy';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { lambdaContext, receive, sqsEventOf } from '../support/generation-queue';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let images: LocalHttpServer;
let photo: Buffer;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({ ...fakeModelEnv(fakeOpenAi), PUBLIC_BASE_URL: '' });
  photo = await sharp({ create: { width: 2400, height: 1600, channels: 3, background: '#3a7' } })
    .jpeg()
    .toBuffer();
  const huge = Buffer.alloc(20 * 1024 * 1024, 0xff);
  images = await startLocalHttpServer((request, response) => {
    if (request.url === '/photo.jpg') {
      response.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(photo);
    } else if (request.url === '/drawing.svg') {
      response
        .writeHead(200, { 'Content-Type': 'image/svg+xml' })
        .end(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
        );
    } else if (request.url === '/svg-as-png.png') {
      // An SVG that says it is a PNG: told apart by its bytes.
      response
        .writeHead(200, { 'Content-Type': 'image/png' })
        .end('<svg xmlns="http://www.w3.org/2000/svg"/>');
    } else if (request.url === '/huge.jpg') {
      response.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(Buffer.concat([photo, huge]));
    } else {
      response.writeHead(404).end();
    }
  });
});

afterAll(async () => {
  await images.close();
  await fakeOpenAi.close();
});

beforeEach(async () => {
  fakeOpenAi.behaviour = { latencyMs: 0 };
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const json = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const BASE = { keyword: 'sourdough bread', h2_count: '3', ai_model: 'gpt-3.5-turbo', language: 'en' };
const TEXT_PRICE = 4;

async function newAccount(credits: number) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Images', credits, dailyLimit: 1000 },
  );
  return account.accountId;
}

const create = (accountId: string, fields: Record<string, string | number>) =>
  createArticleHandler(
    apiEvent('create-article', {
      accountId,
      contentType: 'application/json',
      body: JSON.stringify({ ...BASE, ...fields }),
    }),
  );
const show = async (accountId: string, uuid: string) =>
  json(
    await showArticleHandler(apiEvent('show-article', { accountId, pathParameters: { article_uuid: uuid } })),
  );
const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;

/** Creates the article, then runs the worker on its message (twice: the second as a redelivery). */
async function generate(accountId: string, fields: Record<string, string | number>) {
  const created = await create(accountId, fields);
  expect(created.statusCode).toBe(202);
  const uuid = json(created).article_uuid as string;
  const [message] = await receive(resources.queueUrl);
  if (!message) throw new Error('no message');
  await worker(sqsEventOf([message]), lambdaContext);
  await worker(sqsEventOf([message]), lambdaContext);
  return uuid;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('article images', () => {
  it('generates a featured image and 2 inline images, stored small with alt text, shown with working links', async () => {
    const accountId = await newAccount(100);
    const uuid = await generate(accountId, { featured_image: 'generate', inline_images: 2 });
    const { data, status } = await show(accountId, uuid);
    expect(status).toBe('generated');
    expect(data.credits_used).toBe(TEXT_PRICE + 2 + 2 * 2);
    expect(await credits(accountId)).toBe(100 - TEXT_PRICE - 6);
    expect(data.quality_warnings).toEqual([]);
    expect(fakeOpenAi.imageRequests).toHaveLength(3);
    const prompt = String(fakeOpenAi.imageRequests[0]?.prompt);
    expect(prompt).toContain('sourdough bread');
    expect(prompt).toMatch(/No text/);
    expect(fakeOpenAi.imageRequests[0]?.model).toBe('gpt-image-1');

    const featured = data.featured_image;
    expect(featured).toMatchObject({ source: 'generated', width: 1200, height: 800 });
    expect(['image/webp', 'image/jpeg']).toContain(featured.mime_type);
    expect(featured.alt).toBe('A fake photograph illustrating sourdough bread, seen by the fake model');
    expect(featured.alt.length).toBeLessThanOrEqual(125);
    const bytes = await download(featured.url);
    expect(bytes.length).toBe(featured.bytes);
    expect(bytes.length).toBeLessThanOrEqual(200 * 1024);
    expect((await sharp(bytes).metadata()).width).toBe(1200);

    expect(data.images).toHaveLength(2);
    expect(data.images.map((image: { after_section: number }) => image.after_section)).toEqual([2, 3]);
    for (const image of data.images) {
      expect(image.alt).not.toBe('');
      expect((await download(image.url)).length).toBe(image.bytes);
    }
  });

  it("takes the client's image URL: fetched, resized to 1200 px and converted", async () => {
    const accountId = await newAccount(100);
    const uuid = await generate(accountId, { featured_image: `${images.url}/photo.jpg` });
    const { data } = await show(accountId, uuid);
    expect(data.featured_image).toMatchObject({ source: 'url', width: 1200, height: 800 });
    expect(await credits(accountId)).toBe(100 - TEXT_PRICE - 1);
  });

  it.each([
    ['an SVG', '/drawing.svg'],
    ['an SVG served as a PNG', '/svg-as-png.png'],
    ['a 20 MB image', '/huge.jpg'],
    ['a missing image', '/nothing.png'],
  ])('leaves the article without %s and gives its credit back once', async (_name, path) => {
    const accountId = await newAccount(100);
    const uuid = await generate(accountId, { featured_image: `${images.url}${path}` });
    const { data, status } = await show(accountId, uuid);
    expect(status).toBe('generated');
    expect(data.featured_image).toBeNull();
    expect(data.quality_warnings).toContain('featured_image_unavailable');
    // Charged 5, the image's 1 back, once (the worker ran on the message twice).
    expect(data.credits_used).toBe(TEXT_PRICE);
    expect(await credits(accountId)).toBe(100 - TEXT_PRICE);
  });

  it('refunds exactly the generated images that the Images API would not make', async () => {
    const accountId = await newAccount(100);
    fakeOpenAi.behaviour = { latencyMs: 0, failImagesWithStatus: 400 };
    const uuid = await generate(accountId, { featured_image: 'generate', inline_images: 1 });
    const { data } = await show(accountId, uuid);
    expect(data.featured_image).toBeNull();
    expect(data.images).toEqual([]);
    expect(data.quality_warnings).toEqual(
      expect.arrayContaining(['featured_image_unavailable', 'inline_image_unavailable']),
    );
    expect(await credits(accountId)).toBe(100 - TEXT_PRICE);
    const stored = await deps.articleStore().get(accountId, uuid);
    expect(stored?.imageCreditsRefunded).toBe(4);
  });

  it('leaves no image in the bucket of an article that failed for good while its images were being made', async () => {
    const accountId = await newAccount(100);
    // The outline and the images succeed (the images answer after the sections failed); every section fails.
    fakeOpenAi.behaviour = { latencyMs: 0, imageLatencyMs: 1500, failSectionsWithStatus: 500 };
    const created = await create(accountId, { featured_image: 'generate', inline_images: 2 });
    const uuid = json(created).article_uuid as string;
    const [message] = await receive(resources.queueUrl);
    if (!message) throw new Error('no message');
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      await worker(sqsEventOf([message]), lambdaContext);
    }
    const { data, status } = await show(accountId, uuid);
    expect(status).toBe('error');
    expect(await credits(accountId)).toBe(100);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const s3 = new S3Client({ forcePathStyle: true });
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: resources.imageBucket, Prefix: `articles/${accountId}/${uuid}/` }),
    );
    s3.destroy();
    expect((listed.Contents ?? []).map((object) => object.Key)).toEqual([]);
    expect(data).toBeDefined();
  });

  it('shows what a queued article asked for, priced with its images', async () => {
    const accountId = await newAccount(0);
    const uuid = json(await create(accountId, { featured_image: 'generate', inline_images: 3 })).article_uuid;
    const { data } = await show(accountId, uuid);
    expect(data).toMatchObject({
      featured_image: 'generate',
      inline_images: 3,
      estimated_credits: TEXT_PRICE + 8,
    });
  });

  it.each([
    [{ featured_image: 'ftp://example.com/a.png' }, 'featured_image'],
    [{ featured_image: 'maybe' }, 'featured_image'],
    [{ featured_image: 'https://' }, 'featured_image'],
    [{ inline_images: 4 }, 'inline_images'],
    [{ inline_images: -1 }, 'inline_images'],
    [{ inline_images: '1.5' }, 'inline_images'],
    [{ inline_images: 'two' }, 'inline_images'],
    [{ h2_count: 2, inline_images: 3 }, 'inline_images'],
  ])('refuses %j with a 422 on %s before any charge', async (fields, field) => {
    const accountId = await newAccount(100);
    const response = await create(accountId, fields as Record<string, string | number>);
    expect(response.statusCode).toBe(422);
    expect(Object.keys(json(response).errors)).toEqual([field]);
    expect(await credits(accountId)).toBe(100);
  });
});
