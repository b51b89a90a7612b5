/** Images beside the sections, with the image ports faked: stored, priced, refunded once when missing. */

import { inlineSections, produceArticleImages } from '../../../functions/core/articles/article-images';
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { MAX_GENERATION_ATTEMPTS } from '../../../functions/core/articles/lifecycle-policy';
import { ValidationError } from '../../../functions/core/errors';
import type { PreparedImage } from '../../../functions/core/images/ports';
import { publishArticle } from '../../../functions/core/publishing/publish-article';
import { createFakes, FakeDelivery } from '../../support/fakes';
import { fakeImageDeps } from '../../support/fakes/fake-images';
import { articleInput, createDeps, generateDeps, PRICE, publishDeps } from './helpers';

async function setUp(fields: Record<string, unknown>, credits = 100) {
  const fakes = createFakes();
  const images = fakeImageDeps();
  const accountId = await fakes.account(credits);
  const article = await createArticle(createDeps(fakes), accountId, articleInput(fields));
  const generate = () =>
    generateQueuedArticle({ ...generateDeps(fakes), images }, article, new FakeDelivery());
  return { fakes, images, accountId, article, generate };
}

/** The model answers the outline and fails every section (a provider answering 500 for each). */
function failingSections(fakes: ReturnType<typeof createFakes>) {
  return {
    modelFor: async (aiModel: Parameters<typeof fakes.models.modelFor>[0], signal?: AbortSignal) => ({
      ...(await fakes.models.modelFor(aiModel, signal)),
      write: async () => {
        throw new Error('InternalServerError: 500 The server had an error while processing your request.');
      },
    }),
  };
}

/** Runs every attempt of an article whose sections always fail; the outcome of the last one. */
async function failEveryAttempt(setUpResult: Awaited<ReturnType<typeof setUp>>) {
  const { fakes, images, article } = setUpResult;
  const outcomes: string[] = [];
  for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
    const deps = { ...generateDeps(fakes), models: failingSections(fakes), images };
    outcomes.push((await generateQueuedArticle(deps, article, new FakeDelivery())).outcome);
  }
  return outcomes;
}

describe('article images', () => {
  it('prices a generated featured image at 2 credits, a client URL at 1 and each inline image at 2', async () => {
    expect((await setUp({ featured_image: 'generate', inline_images: 2 })).article.estimatedCredits).toBe(
      PRICE + 2 + 4,
    );
    expect((await setUp({ featured_image: 'https://cdn.example/a.png' })).article.estimatedCredits).toBe(
      PRICE + 1,
    );
    expect((await setUp({ featured_image: 'none' })).article.estimatedCredits).toBe(PRICE);
  });

  it('makes the featured image and the inline ones, with alt text from their subject when the model has none', async () => {
    const { fakes, images, accountId, article, generate } = await setUp({
      featured_image: 'generate',
      inline_images: 2,
      title: 'Bread at home',
    });
    expect((await generate()).outcome).toBe('generated');
    const stored = fakes.articles.row(article)?.article;
    expect(stored?.images?.map((image) => [image.slot, image.afterSection, image.alt])).toEqual([
      ['featured', undefined, 'Bread at home'],
      ['inline-1', 0, stored?.images?.[1]?.alt],
      ['inline-2', 1, stored?.images?.[2]?.alt],
    ]);
    expect(stored?.images?.[1]?.alt).not.toBe('');
    expect(images.store.objects.size).toBe(3);
    expect(images.generator.prompts[0]).toContain('Bread at home');
    expect(images.generator.prompts.every((prompt) => prompt.includes('No text'))).toBe(true);
    expect(stored?.seo?.qualityWarnings).not.toContain('featured_image_unavailable');
    expect(stored?.seo?.qualityWarnings).not.toContain('inline_image_unavailable');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - PRICE - 6);
  });

  it('leaves out an image that cannot be had and gives exactly its credits back, once', async () => {
    const { fakes, images, accountId, article, generate } = await setUp({
      featured_image: 'https://cdn.example/drawing.svg',
      inline_images: 1,
    });
    images.fetcher.urls.set('https://cdn.example/drawing.svg', Buffer.from('<svg/>'));
    expect((await generate()).outcome).toBe('generated');
    // A second delivery of the same message: nothing more is refunded.
    expect((await generate()).outcome).toBe('skipped');
    const stored = fakes.articles.row(article)?.article;
    expect(stored?.images?.map((image) => image.slot)).toEqual(['inline-1']);
    expect(stored?.seo?.qualityWarnings).toEqual(['featured_image_unavailable']);
    expect(stored?.imageCreditsRefunded).toBe(1);
    expect(stored?.creditsCharged).toBe(PRICE + 2);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - PRICE - 2);
  });

  it('refunds every image when the function cannot make images at all', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ featured_image: 'generate', inline_images: 1 }),
    );
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - PRICE);
    expect(fakes.articles.row(article)?.article.seo?.qualityWarnings).toEqual([
      'featured_image_unavailable',
      'inline_image_unavailable',
    ]);
  });

  it('sends the image bytes with the post and marks them published', async () => {
    const { fakes, images, accountId } = await setUp({}, 100);
    const website = await fakes.website(accountId);
    const withSite = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid, featured_image: 'generate' }),
    );
    await generateQueuedArticle({ ...generateDeps(fakes), images }, withSite, new FakeDelivery());
    expect(await publishArticle({ ...publishDeps(fakes), images: images.store }, withSite)).toBe('published');
    const sent = [...fakes.cms.posts.values()].at(-1)?.post;
    expect(sent?.images?.map((image) => [image.slot, image.mimeType])).toEqual([['featured', 'image/webp']]);
    expect([...images.store.objects.values()].every((object) => object.publishedAt !== undefined)).toBe(true);
  });

  it('refuses a plain-http image URL when deployed, and more inline images than H2 sections', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    await expect(
      createArticle(
        createDeps(fakes),
        accountId,
        articleInput({ featured_image: 'http://cdn.example/a.png' }),
      ),
    ).rejects.toThrow(ValidationError);
    await expect(
      createArticle(
        { ...createDeps(fakes), allowPlainHttpImages: true },
        accountId,
        articleInput({ featured_image: 'http://cdn.example/a.png' }),
      ),
    ).resolves.toMatchObject({ featuredImage: 'http://cdn.example/a.png' });
    await expect(
      createArticle(createDeps(fakes), accountId, articleInput({ h2_count: 2, inline_images: 3 })),
    ).rejects.toThrow(ValidationError);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - PRICE - 1);
  });

  it('leaves no image of an article that failed for good, though its images were still being made', async () => {
    const set = await setUp({ featured_image: 'generate', inline_images: 2 });
    // The Images API answers only after the last attempt failed.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const generate = set.images.generator.generate.bind(set.images.generator);
    set.images.generator.generate = async (prompt) => {
      await answered;
      return generate(prompt);
    };
    expect(await failEveryAttempt(set)).toEqual([
      'retry_scheduled',
      'retry_scheduled',
      'retry_scheduled',
      'failed',
    ]);
    answer();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(set.images.generator.prompts.length).toBeGreaterThan(0);
    expect([...set.images.store.objects.keys()]).toEqual([]);
    expect(set.fakes.articles.row(set.article)?.article).toMatchObject({ state: 'error', creditsCharged: 0 });
    expect((await set.fakes.accounts.get(set.accountId))?.credits).toBe(100);
  });

  it('leaves no image of an article that failed for good, though its images were still being stored', async () => {
    const set = await setUp({ featured_image: 'generate', inline_images: 2 });
    // S3 takes a while to store each image: the sections have failed meanwhile.
    const put = set.images.store.put.bind(set.images.store);
    set.images.store.put = async (key: string, image: PreparedImage) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await put(key, image);
    };
    expect(await failEveryAttempt(set)).toEqual([
      'retry_scheduled',
      'retry_scheduled',
      'retry_scheduled',
      'failed',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(set.images.generator.prompts.length).toBe(3 * MAX_GENERATION_ATTEMPTS);
    expect([...set.images.store.objects.keys()]).toEqual([]);
  });

  it('spreads inline images over the sections, never two after one', () => {
    expect(inlineSections(5, 2)).toEqual([1, 3]);
    expect(inlineSections(3, 3)).toEqual([0, 1, 2]);
    expect(inlineSections(1, 1)).toEqual([0]);
    expect(inlineSections(10, 3)).toEqual([2, 5, 7]);
  });

  it("describes an image beside its conversion (sharp's CPU time is not added to the model's)", async () => {
    const images = fakeImageDeps();
    let describing!: () => void;
    const describeStarted = new Promise<void>((resolve) => {
      describing = resolve;
    });
    const converted = 'converted before the description started';
    const processor = {
      // Converts only once the description is under way (or gives up after a second).
      prepare: async (bytes: Buffer) => {
        await Promise.race([
          describeStarted,
          new Promise((_, reject) => setTimeout(() => reject(new Error(converted)), 1000).unref()),
        ]);
        return images.processor.prepare(bytes);
      },
      preview: (bytes: Buffer) => images.processor.preview(bytes),
    };
    const model = {
      describeImage: async () => {
        describing();
        return { alt: 'A round loaf cooling on a rack', usage: { promptTokens: 5, completionTokens: 7 } };
      },
    };
    const brief = {
      keyword: 'sourdough',
      focusKeyword: 'sourdough',
      language: 'en',
      languageName: 'English',
      h2Count: 2,
      needBold: false,
      faqCount: 0,
      autoTags: false,
    };
    const outcome = await produceArticleImages(
      { ...images, processor },
      model,
      brief,
      { accountId: 'account', articleUuid: 'article', h2Count: 2, featuredImage: 'generate' },
      { title: 'Sourdough at home', headings: ['Starter', 'Baking'] },
    );
    expect(outcome.failures).toEqual([]);
    expect(outcome.images.map((image) => image.alt)).toEqual(['A round loaf cooling on a rack']);
  });

  it("makes the model's alt text plain text: no markup, no control characters, entities decoded once and safe", async () => {
    const images = fakeImageDeps();
    const brief = {
      keyword: 'sourdough',
      focusKeyword: 'sourdough',
      language: 'en',
      languageName: 'English',
      h2Count: 2,
      needBold: false,
      faqCount: 0,
      autoTags: false,
    };
    const altFor = async (alt: string) => {
      const model = { describeImage: async () => ({ alt, usage: { promptTokens: 1, completionTokens: 1 } }) };
      const outcome = await produceArticleImages(
        images,
        model,
        brief,
        { accountId: 'account', articleUuid: 'article', h2Count: 2, featuredImage: 'generate' },
        { title: 'Sourdough at home', headings: ['Starter', 'Baking'] },
      );
      return outcome.images[0]?.alt;
    };
    // The tag never closes: nothing of it is text, so the subject stands in.
    expect(await altFor('<img src=x onerror=alert(1)// \u0007\u001b[31m [gallery] &lt;b&gt;')).toBe(
      'Sourdough at home',
    );
    expect(await altFor('A loaf \u0007\u001b[31m <b>crust</b> &lt;b&gt; &amp;amp; **bold**')).toBe(
      'A loaf [31m crust ‹b› &amp; bold',
    );
  });
});
