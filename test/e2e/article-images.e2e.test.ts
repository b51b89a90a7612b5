/**
 * Images on the real WordPress of test/e2e/wordpress/peer.sh: an article with
 * featured_image=generate and inline_images=2 (images from the fake OpenAI server's
 * `images.generate`, alt text from its chat model) is published with a featured image whose
 * attachment has its alt text, two valid core/image blocks (the block editor in headless Chromium
 * finds no invalid block), og:image in the page head, and `publication.site` reporting the media;
 * publishing it again adds no attachment; show's `featured_image.url` is then the Media Library's.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { postImagesOf } from '../../functions/core/publishing/post-images';
import { postFor } from '../../functions/core/publishing/publish-article';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { drainQueue } from '../support/generation-queue';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { blocksTheEditorRefuses } from './support/block-editor';
import { e2eEnv as env, registerTestSite } from './support/test-site';
import { peer } from './support/wordpress-peer';

const WP_URL = env('WP_URL');

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let accountId: string;
let websiteUuid: string;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({ ...fakeModelEnv(fakeOpenAi), PUBLIC_BASE_URL: '' });
  ({ accountId, websiteUuid } = await registerTestSite('E2E images', 1000));
});

afterAll(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
  await fakeOpenAi.close();
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const showArticle = async (articleUuid: string) =>
  body(
    await showArticleHandler(
      apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    ),
  );

function wpJson<T>(code: string): T {
  return JSON.parse(peer('php-eval', code)) as T;
}

const attachmentCount = () =>
  wpJson<number>("echo wp_json_encode( (int) wp_count_posts( 'attachment' )->inherit );");

describe('images on WordPress', () => {
  let cmsId = '';
  let articleUuid = '';

  it('publishes a featured image with alt text, two core/image blocks and og:image; again adds no attachment', async () => {
    const before = attachmentCount();
    const created = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        ...multipartBody({
          keyword: 'alpine lakes',
          h2_count: '3',
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
          website_uuid: websiteUuid,
          featured_image: 'generate',
          inline_images: '2',
        }),
      }),
    );
    expect(created.statusCode).toBe(202);
    articleUuid = body(created).article_uuid;
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);

    const { data } = await showArticle(articleUuid);
    expect(data.publication.state).toBe('published');
    cmsId = data.cms_id;
    const site = data.publication.site;
    expect(site.images_uploaded).toBe(3);
    expect(site.featured_media_id).toMatch(/^\d+$/);
    expect(attachmentCount()).toBe(before + 3);

    // The featured image: the post thumbnail, with the model's alt text.
    const featured = wpJson<{ thumbnail: number; alt: string; mime: string; url: string }>(`
      $t = (int) get_post_thumbnail_id(${Number(cmsId)});
      echo wp_json_encode(array('thumbnail' => $t, 'alt' => get_post_meta($t, '_wp_attachment_image_alt', true), 'mime' => get_post_mime_type($t), 'url' => wp_get_attachment_url($t)));`);
    expect(String(featured.thumbnail)).toBe(site.featured_media_id);
    expect(featured.alt).not.toBe('');
    expect(featured.alt).toBe(data.featured_image.alt);
    expect(['image/webp', 'image/jpeg']).toContain(featured.mime);
    // Once published, show links the Media Library's copy.
    expect(data.featured_image.url).toBe(featured.url);
    expect((await fetch(featured.url)).status).toBe(200);

    // Two core/image blocks, each after its H2 section, with the attachment's class and alt.
    const blocks = wpJson<
      { name: string | null; attrs: { id?: number; sizeSlug?: string }; html: string }[]
    >(`
      echo wp_json_encode(array_values(array_map(function ($b) { return array('name' => $b['blockName'], 'attrs' => $b['attrs'], 'html' => $b['innerHTML']); }, array_filter(parse_blocks(get_post(${Number(cmsId)})->post_content), function ($b) { return null !== $b['blockName']; }))));`);
    const images = blocks.filter((block) => block.name === 'core/image');
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image.attrs.sizeSlug).toBe('large');
      expect(image.html).toMatch(
        new RegExp(
          `^<figure class="wp-block-image size-large"><img src="[^"]+" alt="[^"]+" class="wp-image-${image.attrs.id}" ?/></figure>$`,
        ),
      );
      // Each image follows a section's text: the block before it is not the H2 itself.
      const index = blocks.indexOf(image);
      expect(blocks[index - 1]?.name).not.toBe('core/heading');
    }

    // og:image in the page head (no SEO plugin on the test site).
    const page = await (await fetch(data.cms_permalink)).text();
    const og = /<meta property="og:image" content="([^"]+)"/.exec(page);
    expect(og?.[1]).toBe(featured.url);

    // Sent again with its images (a retried publication): the same post, no new attachment.
    const article = await deps.articleStore().get(accountId, articleUuid);
    if (!article) throw new Error('article missing');
    const sent = await postImagesOf(deps.publishDeps().images, article);
    expect(sent).toHaveLength(3);
    const again = await deps
      .cmsClient()
      .createPost(
        { url: WP_URL, login: env('WP_LOGIN'), password: env('WP_PASSWORD') },
        { ...postFor(article, new Date()), images: sent },
      );
    expect(again.cmsId).toBe(cmsId);
    expect(again.site?.imagesUploaded).toBe(3);
    expect(attachmentCount()).toBe(before + 3);
  });

  it('opens the post in the block editor with no invalid block (headless Chromium)', async () => {
    expect(cmsId).not.toBe('');
    const [post] = await blocksTheEditorRefuses(
      WP_URL,
      { login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_PASSWORD') },
      [cmsId],
    );
    expect(post?.names.filter((name) => name === 'core/image')).toHaveLength(2);
    expect(post?.bad).toEqual([]);
  });
});
