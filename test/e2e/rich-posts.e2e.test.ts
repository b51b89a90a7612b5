/**
 * Posts that look hand-made, against the real WordPress of test/e2e/wordpress/peer.sh: an
 * article with h2_count 3, faq_count 3 and tags, written by the offline writer and by a fake
 * model that answers in markdown and forgets the keyword, is stored as native blocks only, its
 * page carries the meta description and one JSON-LD Article plus a FAQPage, tags and excerpt
 * are on the post, the block editor (headless Chromium) finds no invalid block, republishing
 * changes nothing, and article show reports what the site kept under publication.site. The
 * SEO plugin adapters are checked against the storage each plugin documents, with stand-ins
 * that make the plugin see them as active (the test site cannot install them: no network).
 */
import { randomUUID } from 'node:crypto';
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { OpenAiModelProvider } from '../../functions/adapters/model/openai-article-model';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { generateQueuedArticle } from '../../functions/core/articles/generate-article';
import { containsKeyword, firstParagraphText } from '../../functions/core/articles/quality-gates';
import { postFor, publishArticle } from '../../functions/core/publishing/publish-article';
import type { CmsPost } from '../../functions/core/websites/cms-client';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai-server';
import { drainQueue } from '../support/generation-queue';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { blocksTheEditorRefuses } from './support/block-editor';
import { e2eEnv as env, registerTestSite } from './support/test-site';
import { peer } from './support/wordpress-peer';

const WP_URL = env('WP_URL');
const KEYWORD = 'sourdough starter';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let accountId: string;
let websiteUuid: string;
/** Posts published by this file, for the browser test. */
const published: { articleUuid: string; cmsId: string }[] = [];

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi({ sloppy: 'always' });
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
  ({ accountId, websiteUuid } = await registerTestSite('E2E rich posts', 1000));
});

afterAll(async () => {
  await fakeOpenAi.close();
  peer('php-eval', "delete_option('inkpress_peer_seo_stub');");
});

afterEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const articleFields = {
  keyword: `${KEYWORD}, rye flour`,
  h2_count: '3',
  faq_count: '3',
  tags: 'Sourdough, Baking basics, R&D',
  auto_tags: '1',
  ai_model: 'gpt-3.5-turbo',
  language: 'en',
  // Every test here writes on the same keyword for the same site.
  allow_same_topic: '1',
  // What other e2e files published is in the site's index: no links, whatever ran before
  // (site-links.e2e.test.ts tests them).
  internal_links: '0',
};

async function createArticle(): Promise<string> {
  const response = await createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...multipartBody({ ...articleFields, website_uuid: websiteUuid }),
    }),
  );
  expect(response.statusCode).toBe(202);
  return body(response).article_uuid;
}

const showArticle = async (articleUuid: string) =>
  body(
    await showArticleHandler(
      apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    ),
  );

/** Runs PHP with WordPress loaded on the peer and parses what it echoes as JSON. */
function wpJson<T>(code: string): T {
  return JSON.parse(peer('php-eval', code)) as T;
}

interface StoredBlock {
  name: string | null;
  html: string;
  inner: StoredBlock[];
}

/** The post's stored content as WordPress parses it (parse_blocks), top level with inner blocks. */
function storedBlocks(cmsId: string): StoredBlock[] {
  return wpJson<StoredBlock[]>(`
    function inkpress_e2e_blocks( $blocks ) {
      return array_map( function ( $b ) {
        return array( 'name' => $b['blockName'], 'html' => $b['innerHTML'], 'inner' => inkpress_e2e_blocks( $b['innerBlocks'] ) );
      }, $blocks );
    }
    echo wp_json_encode( inkpress_e2e_blocks( parse_blocks( get_post( ${Number(cmsId)} )->post_content ) ) );`);
}

function allBlocks(blocks: StoredBlock[]): StoredBlock[] {
  return blocks.flatMap((block) => [block, ...allBlocks(block.inner)]);
}

/** The JSON-LD nodes of a page, each script's @graph flattened. */
function jsonLdNodes(html: string): { scripts: number; nodes: Record<string, unknown>[] } {
  const scripts = [...html.matchAll(/<script type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/g)];
  const nodes = scripts.flatMap((match) => {
    const data = JSON.parse(match[1] ?? '');
    return (data['@graph'] ?? [data]) as Record<string, unknown>[];
  });
  return { scripts: scripts.length, nodes };
}

function metaDescriptionOf(html: string): string | undefined {
  const match = /<meta name="description" content="([^"]*)"/.exec(html);
  return match?.[1]
    ?.replace(/&#039;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** Everything the issue asks of a published post, checked on the site itself. */
async function expectHandMadePost(articleUuid: string) {
  const record = await showArticle(articleUuid);
  expect(record.status).toBe('generated');
  const data = record.data;
  const cmsId: string = data.cms_id;
  expect(cmsId).toMatch(/^\d+$/);
  published.push({ articleUuid, cmsId });

  // Stored content: native core blocks only; 3 sections + the FAQ's H2, and its 3 H3 questions.
  const blocks = storedBlocks(cmsId);
  const topLevel = blocks.filter((block) => block.name !== null);
  expect(blocks.filter((block) => block.name === null && block.html.trim() !== '')).toEqual([]);
  for (const block of allBlocks(blocks).filter((block) => block.name !== null)) {
    expect(block.name).toMatch(/^core\/(heading|paragraph|list|list-item|quote|table)$/);
  }
  const h2 = topLevel.filter((block) => block.name === 'core/heading' && /^<h2[ >]/.test(block.html));
  expect(h2.map((block) => block.html)).toHaveLength(4);
  expect(h2[3]?.html).toBe('<h2 class="wp-block-heading">Frequently asked questions</h2>');
  const afterFaq = topLevel.slice(topLevel.indexOf(h2[3] as StoredBlock) + 1);
  expect(afterFaq.filter((block) => /^<h3[ >]/.test(block.html))).toHaveLength(3);
  expect(data.faq).toHaveLength(3);
  expect(afterFaq.map((block) => block.name)).toEqual(
    Array.from({ length: 3 }, () => ['core/heading', 'core/paragraph']).flat(),
  );

  // No markdown anywhere; the keyword in title, first paragraph and meta description.
  const content = peer('php-eval', `echo get_post(${Number(cmsId)})->post_content;`);
  expect(content.replace(/<!--[\s\S]*?-->/g, '')).not.toMatch(/\*\*|__|```|(^|>)\s*#|(^|>)\s*[-*] /m);
  expect(content).not.toContain('wp:freeform');

  // Tags and excerpt on the post.
  const onPost = wpJson<{ tags: string[]; excerpt: string; title: string }>(
    `$p = get_post(${Number(cmsId)}); echo wp_json_encode(array('tags' => wp_get_post_tags($p->ID, array('fields' => 'names')), 'excerpt' => $p->post_excerpt, 'title' => $p->post_title));`,
  );
  // WordPress keeps term names HTML-escaped; Inkpress shows them decoded.
  const siteTags = onPost.tags.map((tag) => tag.replaceAll('&amp;', '&'));
  expect([...siteTags].sort()).toEqual([...data.tags].sort());
  expect(onPost.tags).toEqual(expect.arrayContaining(['Sourdough', 'Baking basics', 'R&amp;D']));
  // The plugin stores the excerpt's brackets as entities (shown as "[", never a shortcode).
  expect(onPost.excerpt).toBe(data.excerpt.replace(/\[/g, '&#091;').replace(/\]/g, '&#093;'));
  expect(onPost.title).toBe(data.title);

  // The page: the meta description, one Article and a FAQPage with the 3 questions.
  const page = await (await fetch(data.cms_permalink)).text();
  expect(metaDescriptionOf(page)).toBe(data.meta_description);
  const { scripts, nodes } = jsonLdNodes(page);
  expect(scripts).toBe(1);
  const articles = nodes.filter((node) => node['@type'] === 'Article');
  expect(articles).toHaveLength(1);
  expect(articles[0]).toMatchObject({
    headline: data.title,
    description: data.meta_description,
    inLanguage: 'en',
    datePublished: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    dateModified: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    keywords: expect.stringContaining(KEYWORD),
  });
  // JSON-LD is not HTML: names the site keeps escaped are decoded (`R&D`, not `R&amp;D`).
  expect(articles[0]?.keywords).toContain('R&D');
  expect(`${articles[0]?.headline} ${articles[0]?.keywords}`).not.toMatch(/&(#\d+|#x[0-9a-f]+|[a-z]+);/i);
  const faqPages = nodes.filter((node) => node['@type'] === 'FAQPage');
  expect(faqPages).toHaveLength(1);
  expect(faqPages[0]?.mainEntity).toEqual(
    data.faq.map((item: { question: string; answer: string }) => ({
      '@type': 'Question',
      name: item.question,
      acceptedAnswer: { '@type': 'Answer', text: item.answer },
    })),
  );

  // What article show reports is what the site kept.
  expect(data.publication.site).toEqual({
    post_id: cmsId,
    link: data.cms_permalink,
    status: 'publish',
    blocks: topLevel.length,
    freeform_blocks: 0,
    tags: expect.arrayContaining(siteTags),
    excerpt: 1,
    // No SEO plugin: WordPress prints the post's own title, so no SEO title was written.
    seo: { adapter: 'inkpress', meta_description: 1, focus_keyword: 1, title: 0 },
    schema: { printed_by: 'inkpress', types: ['Article', 'FAQPage'] },
    faq_questions: 3,
    // No sources and no site index links in these articles: nothing to keep or drop.
    internal_links_kept: 0,
    internal_links_dropped: 0,
    external_links_kept: 0,
    external_links_dropped: 0,
    // No image asked for.
    featured_media_id: null,
    images_uploaded: 0,
  });
  expect(data.publication.site.tags).toHaveLength(onPost.tags.length);
  return { data, cmsId, content };
}

async function expectRepublishChangesNothing(articleUuid: string, cmsId: string, content: string) {
  const before = peer('php-eval', `echo get_post(${Number(cmsId)})->post_modified_gmt;`);
  expect(await publishArticle(deps.publishDeps(), { accountId, articleUuid })).toBe('skipped');
  const article = await deps.articleStore().get(accountId, articleUuid);
  const website = await deps.websiteStore().get(accountId, websiteUuid);
  if (!article || !website) throw new Error('missing test data');
  const again = await deps
    .cmsClient()
    .createPost(
      { url: website.url, login: env('WP_LOGIN'), password: env('WP_PASSWORD') },
      postFor(article, new Date()),
    );
  expect(again).toMatchObject({ cmsId, created: false });
  expect(again.site?.blocks).toBe(article.publicationSite?.blocks);
  const count = peer(
    'php-eval',
    `echo count(get_posts(array('post_type' => 'post', 'post_status' => 'any', 'numberposts' => -1, 'meta_key' => Inkpress_Rest::uuid_meta_key(${Number(env('WP_EDITOR_USER_ID'))}), 'meta_value' => '${articleUuid}')));`,
  );
  expect(count.trim()).toBe('1');
  expect(peer('php-eval', `echo get_post(${Number(cmsId)})->post_content;`)).toBe(content);
  expect(peer('php-eval', `echo get_post(${Number(cmsId)})->post_modified_gmt;`)).toBe(before);
}

describe('posts that look hand-made', () => {
  it('offline writer: native blocks, SEO fields, FAQ schema, tags and excerpt; republishing changes nothing', async () => {
    const articleUuid = await createArticle();
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    const { data, cmsId, content } = await expectHandMadePost(articleUuid);
    expect(data.quality_warnings).toEqual([]);
    expect(containsKeyword(data.title, KEYWORD)).toBe(true);
    expect(containsKeyword(firstParagraphText(data.content), KEYWORD)).toBe(true);
    expect(containsKeyword(data.meta_description, KEYWORD)).toBe(true);
    await expectRepublishChangesNothing(articleUuid, cmsId, content);
  });

  it('a model that answers in markdown and forgets the keyword: no markdown on the site, the misses recorded', async () => {
    const articleUuid = await createArticle();
    const models = new OpenAiModelProvider({
      apiKey: async () => 'sk-test',
      baseURL: fakeOpenAi.baseURL,
      timeoutMs: 10_000,
      maxRetries: 0,
      providerModels: { 'gpt-3.5-turbo': 'fake-mini', 'gpt-4': 'fake' },
    });
    const generated = await generateQueuedArticle(
      { articles: deps.articleStore(), models, clock: () => new Date() },
      { accountId, articleUuid },
      { retryAfter: async () => undefined },
    );
    expect(generated.outcome).toBe('generated');
    expect(await publishArticle(deps.publishDeps(), { accountId, articleUuid })).toBe('published');
    const { data, cmsId, content } = await expectHandMadePost(articleUuid);
    expect(data.quality_warnings).toEqual([
      'keyword_missing_in_title',
      'keyword_missing_in_h2',
      'keyword_missing_in_first_paragraph',
      'keyword_missing_in_meta_description',
      'meta_description_too_short',
    ]);
    expect(content).toContain('<!-- wp:list -->');
    await expectRepublishChangesNothing(articleUuid, cmsId, content);
  });

  it('shortcodes in headings, FAQ, text and excerpt are stored inert and shown as text', async () => {
    const source = await deps.articleStore().get(accountId, published[0]?.articleUuid ?? '');
    const website = await deps.websiteStore().get(accountId, websiteUuid);
    if (!source || !website) throw new Error('missing test data');
    const post = postFor(
      { ...source, articleUuid: randomUUID(), slug: `brackets-${randomUUID().slice(0, 8)}` },
      new Date(),
    );
    const bracketed: CmsPost = {
      ...post,
      introHtml: `<p>Before [gallery ids="1,2"] and [embed]https://example.com/v[/embed]</p>${post.introHtml}`,
      sections: post.sections.map((section) => ({
        heading: `${section.heading} [gallery]`,
        html: `<p>In a section [audio src="x.mp3"] [x]</p>${section.html}`,
      })),
      ...(post.faq
        ? {
            faq: {
              heading: `${post.faq.heading} [gallery]`,
              items: post.faq.items.map((item) => ({
                question: `${item.question} [gallery]`,
                answer: `${item.answer} [embed]https://example.com/a[/embed]`,
              })),
            },
          }
        : {}),
      excerpt: `${post.excerpt ?? 'Summary'} [gallery]`,
    };
    const result = await deps
      .cmsClient()
      .createPost({ url: website.url, login: env('WP_LOGIN'), password: env('WP_PASSWORD') }, bracketed);
    expect(result.created).toBe(true);
    published.push({ articleUuid: bracketed.articleUuid, cmsId: result.cmsId });

    const content = peer('php-eval', `echo get_post(${Number(result.cmsId)})->post_content;`);
    expect(content.replace(/<!--[\s\S]*?-->/g, '')).not.toMatch(/[[\]]/);
    const headings = allBlocks(storedBlocks(result.cmsId)).filter((block) => block.name === 'core/heading');
    expect(headings.filter((block) => block.html.includes('&#091;gallery&#093;</h'))).toHaveLength(
      bracketed.sections.length + (bracketed.faq ? 1 + bracketed.faq.items.length : 0),
    );
    const shown = wpJson<{ content: string; excerpt: string }>(
      `add_filter('the_excerpt', 'do_shortcode'); $p = get_post(${Number(result.cmsId)}); setup_postdata($p); echo wp_json_encode(array('content' => apply_filters('the_content', $p->post_content), 'excerpt' => apply_filters('the_excerpt', $p->post_excerpt)));`,
    );
    for (const html of [shown.content, shown.excerpt]) {
      expect(html).toContain('&#091;gallery');
      expect(html).not.toMatch(/class=['"]gallery|<iframe|<audio|wp-block-embed/);
    }
  });

  it('opens every published post in the block editor with no invalid block (headless Chromium)', async () => {
    expect(published.length).toBeGreaterThanOrEqual(2);
    const posts = await blocksTheEditorRefuses(
      WP_URL,
      { login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_PASSWORD') },
      published.map(({ cmsId }) => cmsId),
    );
    expect(posts).toHaveLength(published.length);
    for (const post of posts) {
      expect(post.count).toBeGreaterThan(10);
      expect(post.bad).toEqual([]);
    }
  });
});

describe('SEO plugin adapters (stand-ins that the plugin detects; fields checked where each plugin keeps them)', () => {
  const cases = [
    ['yoast', '_yoast_wpseo_metadesc', '_yoast_wpseo_focuskw'],
    ['rank_math', 'rank_math_description', 'rank_math_focus_keyword'],
    ['aioseo', '_aioseo_description', '_aioseo_keyphrases'],
    ['seopress', '_seopress_titles_desc', '_seopress_analysis_target_kw'],
    ['the_seo_framework', '_genesis_description', null],
  ] as const;

  async function publishCopy(): Promise<{
    cmsId: string;
    site: NonNullable<Awaited<ReturnType<ReturnType<typeof deps.cmsClient>['createPost']>>['site']>;
    description: string;
  }> {
    const source = await deps.articleStore().get(accountId, published[0]?.articleUuid ?? '');
    const website = await deps.websiteStore().get(accountId, websiteUuid);
    if (!source?.seo || !website) throw new Error('missing test data');
    const copy = { ...source, articleUuid: randomUUID(), slug: `seo-${randomUUID().slice(0, 8)}` };
    const result = await deps
      .cmsClient()
      .createPost(
        { url: website.url, login: env('WP_LOGIN'), password: env('WP_PASSWORD') },
        postFor(copy, new Date()),
      );
    if (!result.site) throw new Error('no read-back');
    return { cmsId: result.cmsId, site: result.site, description: source.seo.metaDescription };
  }

  it.each(cases)(
    '%s: description and focus keyword in its post meta',
    async (adapter, descriptionKey, focusKey) => {
      peer('php-eval', `update_option('inkpress_peer_seo_stub', '${adapter}');`);
      const { cmsId, site, description } = await publishCopy();
      expect(site).toMatchObject({
        seoAdapter: adapter,
        metaDescription: true,
        focusKeyword: focusKey !== null,
        seoTitle: true,
        freeformBlocks: 0,
        schemaBy:
          adapter === 'yoast' || adapter === 'rank_math' || adapter === 'aioseo' ? adapter : 'inkpress',
      });
      const stored = wpJson<{ description: string; focus: string }>(
        `echo wp_json_encode(array('description' => get_post_meta(${cmsId}, '${descriptionKey}', true), 'focus' => ${focusKey ? `get_post_meta(${cmsId}, '${focusKey}', true)` : "''"}));`,
      );
      expect(stored.description).toBe(description);
      if (adapter === 'aioseo') expect(JSON.parse(stored.focus).focus.keyphrase).toBe(KEYWORD);
      else if (focusKey) expect(stored.focus).toBe(KEYWORD);

      const page = await (await fetch(`${WP_URL}/?p=${cmsId}`)).text();
      // The SEO plugin prints the description from its own storage: ours would be a second one.
      expect(metaDescriptionOf(page)).toBeUndefined();
      const { scripts, nodes } = jsonLdNodes(page);
      expect(scripts).toBe(1);
      expect(nodes.filter((node) => node['@type'] === 'FAQPage')).toHaveLength(1);
      expect(nodes.filter((node) => node['@type'] === 'Article')).toHaveLength(1);
      if (adapter === 'yoast') expect(page).toContain('class="yoast-schema-graph"');
      if (adapter === 'rank_math') expect(page).toContain('class="rank-math-schema"');
    },
  );

  it('aioseo with its own table: description and keyphrase in wp_aioseo_posts', async () => {
    peer(
      'php-eval',
      `global $wpdb; $wpdb->query("CREATE TABLE IF NOT EXISTS {$wpdb->prefix}aioseo_posts (id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, post_id bigint unsigned NOT NULL, title text, description text, keyphrases longtext, created datetime NOT NULL, updated datetime NOT NULL)"); delete_option('inkpress_connector_aioseo_table'); update_option('inkpress_peer_seo_stub', 'aioseo');`,
    );
    try {
      const { cmsId, site, description } = await publishCopy();
      expect(site).toMatchObject({ seoAdapter: 'aioseo', metaDescription: true, focusKeyword: true });
      const row = wpJson<{ description: string; keyphrases: string }>(
        `global $wpdb; echo wp_json_encode($wpdb->get_row($wpdb->prepare("SELECT description, keyphrases FROM {$wpdb->prefix}aioseo_posts WHERE post_id = %d", ${cmsId}), ARRAY_A));`,
      );
      expect(row.description).toBe(description);
      expect(JSON.parse(row.keyphrases).focus.keyphrase).toBe(KEYWORD);
    } finally {
      peer('php-eval', `global $wpdb; $wpdb->query("DROP TABLE IF EXISTS {$wpdb->prefix}aioseo_posts");`);
    }
  });
});
