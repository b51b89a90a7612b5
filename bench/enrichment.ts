/**
 * Issue 26's time goal: a generation with a featured image, 2 inline images and 5 internal links
 * takes at most 1.1x the wall time of the same article without them. The worker's use case with
 * the real openai client (text and Images API) against the fake model at a fixed latency, sharp
 * converting each image, and the site's links chosen from an index of 40 posts; the article
 * stores are the in-memory fakes (what is timed is the generation, not DynamoDB).
 */

import { OpenAiImageGenerator } from '../functions/adapters/images/openai-image-generator';
import { SharpImageProcessor } from '../functions/adapters/images/sharp-image-processor';
import { OpenAiModelProvider } from '../functions/adapters/model/openai-article-model';
import { createArticle } from '../functions/core/articles/create-article';
import { generateQueuedArticle } from '../functions/core/articles/generate-article';
import { siteForGeneration } from '../functions/core/websites/site-index';
import { startFakeOpenAi } from '../test/support/fake-openai-server';
import { createFakes, FakeDelivery, sitePost } from '../test/support/fakes';
import { FakeImageFetcher, FakeImageStore } from '../test/support/fakes/fake-images';
import { articleInput, createDeps } from '../test/unit/use-cases/helpers';

const MODEL_LATENCY_MS = Number(process.env.BENCH_ENRICHMENT_MODEL_LATENCY_MS ?? '1000');
const ROUNDS = 3;

const TOPICS = [
  'rye flour',
  'starter feeding',
  'baking stones',
  'proofing baskets',
  'scoring dough',
  'bread crust',
  'hydration levels',
  'whole wheat bread',
  'bread flour protein',
  'dutch oven baking',
  'cold retard',
  'levain build',
  'autolyse method',
  'stretch and fold',
  'bread crumb',
  'banneton care',
  'oven spring',
  'sourdough discard',
  'spelt bread',
  'bread storage',
];

export async function enrichmentBench(): Promise<void> {
  const fake = await startFakeOpenAi({ latencyMs: MODEL_LATENCY_MS });
  const settings = { apiKey: async () => 'bench', baseURL: fake.baseURL, timeoutMs: 60_000, maxRetries: 0 };
  const models = new OpenAiModelProvider({
    ...settings,
    providerModels: { 'gpt-3.5-turbo': 'bench-model', 'gpt-4': 'bench-model' },
  });
  const images = {
    generator: new OpenAiImageGenerator({ ...settings, model: 'gpt-image-1' }),
    fetcher: new FakeImageFetcher(),
    processor: new SharpImageProcessor(),
    store: new FakeImageStore(),
  };
  console.log(
    `\nSite enrichment (fake model and Images API ${MODEL_LATENCY_MS} ms per call, sharp, 40 indexed posts, h2_count 5, median of ${ROUNDS})`,
  );
  console.log('article                              | wall ms | images | links | ratio');
  try {
    const generate = async (fields: Record<string, unknown>) => {
      const fakes = createFakes();
      const accountId = await fakes.account(1000);
      const website = await fakes.website(accountId);
      fakes.indexSource.posts = TOPICS.flatMap((topic, n) => [
        sitePost(2 * n + 1, {
          title: `A guide to ${topic}`,
          focusKeyword: topic,
          url: `${website.url}/${n}/`,
        }),
        sitePost(2 * n + 2, { title: `${topic} mistakes`, url: `${website.url}/${n}-mistakes/` }),
      ]);
      const { websites, cipher, siteIndex, indexSource, clock } = fakes;
      const article = await createArticle(
        { ...createDeps(fakes), siteIndex },
        accountId,
        articleInput({
          keyword: 'sourdough bread',
          h2_count: 5,
          website_uuid: website.websiteUuid,
          allow_same_topic: 1,
          ...fields,
        }),
      );
      // The index is built at registration, not during the timed generation.
      await siteForGeneration({ websites, cipher, siteIndex, indexSource, clock }, article);
      const started = performance.now();
      const result = await generateQueuedArticle(
        {
          articles: fakes.articles,
          models,
          clock,
          websites,
          images,
          siteLinks: (of) => siteForGeneration({ websites, cipher, siteIndex, indexSource, clock }, of),
        },
        article,
        new FakeDelivery(),
      );
      const wall = performance.now() - started;
      if (result.outcome !== 'generated') throw new Error(`generation ${result.outcome}: ${result.failure}`);
      const stored = fakes.articles.row(article)?.article;
      return { wall, images: stored?.images?.length ?? 0, links: stored?.seo?.internalLinks?.length ?? 0 };
    };
    const median = async (fields: Record<string, unknown>) => {
      const runs = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await generate(fields));
      return runs.sort((a, b) => a.wall - b.wall)[Math.floor(ROUNDS / 2)] ?? runs[0];
    };
    const plain = await median({ internal_links: 0 });
    const enriched = await median({ featured_image: 'generate', inline_images: 2, internal_links: 5 });
    const row = (name: string, run: typeof plain, ratio: string) =>
      console.log(
        `${name.padEnd(36)} | ${run?.wall.toFixed(0).padStart(7)} | ${String(run?.images).padStart(6)} | ${String(run?.links).padStart(5)} | ${ratio}`,
      );
    row('no image, no link', plain, '1.00');
    row(
      'featured + 2 inline images, 5 links',
      enriched,
      `${((enriched?.wall ?? 0) / (plain?.wall ?? 1)).toFixed(2)} (goal <= 1.10)`,
    );
  } finally {
    await fake.close();
  }
}
