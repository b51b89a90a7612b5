/** A website's profile: stored per account, its defaults fill a create's omitted options, articles keep a copy. */

import { OfflineArticleModel } from '../../../functions/adapters/model/offline-article-model';
import type { ArticleBrief, ArticleModel } from '../../../functions/core/articles/article-model';
import { createArticle } from '../../../functions/core/articles/create-article';
import {
  createRequestFingerprint,
  namingProfileDefaults,
  parseCreateArticleRequest,
} from '../../../functions/core/articles/create-article-request';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { NotFoundError, ValidationError } from '../../../functions/core/errors';
import { putSiteProfile, showSiteProfile } from '../../../functions/core/websites/manage-site-profile';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { createDeps } from './helpers';

const profileDeps = (fakes: Fakes) => ({
  websites: fakes.websites,
  categories: fakes.categories,
  profiles: fakes.profiles,
  clock: fakes.clock,
});

async function withWebsite(credits = 100) {
  const fakes = createFakes();
  const accountId = await fakes.account(credits);
  const website = await fakes.website(accountId);
  return { fakes, accountId, website };
}

/** A create as the handler runs it: the request parsed with the profile, then the use case. */
async function create(fakes: Fakes, accountId: string, fields: Record<string, unknown>) {
  const request = await parseCreateArticleRequest(fakes, accountId, fields);
  return createArticle(createDeps(fakes), accountId, request.input, undefined, request.profile);
}

describe('GET and PUT /v1/websites/{uuid}/profile', () => {
  it('shows an empty profile until one is put, then what was put', async () => {
    const { fakes, accountId, website } = await withWebsite();
    expect((await showSiteProfile(profileDeps(fakes), accountId, website.websiteUuid)).data).toEqual({
      website_uuid: website.websiteUuid,
      voice: '',
      audience: '',
      facts: '',
      banned_phrases: [],
      defaults: {},
      updated_at: null,
    });

    const put = await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      voice: 'Warm',
      banned_phrases: ['delve'],
      defaults: { h2_count: 4, need_bold: 1 },
    });
    const shown = await showSiteProfile(profileDeps(fakes), accountId, website.websiteUuid);
    expect(shown).toEqual(put);
    expect(shown.data).toMatchObject({
      voice: 'Warm',
      banned_phrases: ['delve'],
      defaults: { h2_count: 4, need_bold: 1 },
      updated_at: '2026-03-01 10:00:00',
    });
  });

  it('is per account: another account’s website is a 404 for reading and writing', async () => {
    const { fakes, website } = await withWebsite();
    const other = await fakes.account(10);
    await expect(showSiteProfile(profileDeps(fakes), other, website.websiteUuid)).rejects.toThrow(
      NotFoundError,
    );
    await expect(
      putSiteProfile(profileDeps(fakes), other, website.websiteUuid, { voice: 'x' }),
    ).rejects.toThrow(NotFoundError);
    expect(await fakes.profiles.get(website.accountId, website.websiteUuid)).toBeUndefined();
  });

  it('refuses a default category of another website, and stores nothing', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await expect(
      putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
        defaults: { category_uuid: '6f1c2a9e-8b3d-4c5e-9a7f-1e2d3c4b5a69' },
      }),
    ).rejects.toMatchObject({ fieldErrors: { 'defaults.category_uuid': [expect.any(String)] } });
    expect(await fakes.profiles.get(accountId, website.websiteUuid)).toBeUndefined();
  });
});

describe('a create of a website with a profile', () => {
  it('cannot be given a default every create would refuse: the PUT checks them with the deployment’s rules', async () => {
    const { fakes, accountId, website } = await withWebsite();
    const put = (deps: Partial<Parameters<typeof putSiteProfile>[0]>, defaults: Record<string, unknown>) =>
      putSiteProfile({ ...profileDeps(fakes), ...deps }, accountId, website.websiteUuid, { defaults });
    await expect(put({}, { research: 'web' })).rejects.toMatchObject({
      fieldErrors: {
        'defaults.research': [
          'research=web is not available: no search provider is configured (SEARCH_PROVIDER).',
        ],
      },
    });
    await expect(put({}, { require_sources: 1 })).rejects.toMatchObject({
      fieldErrors: { 'defaults.require_sources': ['require_sources needs sources or research=web.'] },
    });
    expect(await fakes.profiles.get(accountId, website.websiteUuid)).toBeUndefined();

    // With a search provider, the same defaults are stored, and a create without sources takes them.
    const searching = { sourcePolicy: { allowPlainHttp: false, webSearch: true } };
    await put(searching, { research: 'web', require_sources: 1, h2_count: 2 });
    const request = await parseCreateArticleRequest(fakes, accountId, {
      keyword: 'bread',
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      website_uuid: website.websiteUuid,
    });
    const article = await createArticle(
      { ...createDeps(fakes), ...searching },
      accountId,
      request.input,
      undefined,
      request.profile,
    );
    expect(article).toMatchObject({ research: 'web', requireSources: true });
  });

  it('says a value refused by a rule of two fields came from the profile', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      defaults: { inline_images: 3 },
    });
    const request = await parseCreateArticleRequest(fakes, accountId, {
      keyword: 'bread',
      h2_count: 2,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      website_uuid: website.websiteUuid,
    });
    const error = await createArticle(createDeps(fakes), accountId, request.input).catch((caught: unknown) =>
      namingProfileDefaults(caught, request),
    );
    expect(error).toMatchObject({
      fieldErrors: {
        inline_images: [
          "The inline_images may not be greater than h2_count (one image at most after each H2 section). (This value is the website profile's default.)",
        ],
      },
    });
    // An error on what the client sent is left as it was.
    const plain = ValidationError.forField('h2_count', 'x');
    expect(namingProfileDefaults(plain, request)).toMatchObject({ fieldErrors: { h2_count: ['x'] } });
  });

  it('takes the profile’s default for each omitted option, priced with it', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      defaults: { h2_count: 5, need_bold: 'yes', faq_count: 3, language: 'de', ai_model: 'gpt-4', draft: 1 },
    });

    // No h2_count, ai_model or language at all: the profile gives them.
    const article = await create(fakes, accountId, {
      keyword: 'Sauerteig',
      website_uuid: website.websiteUuid,
    });

    expect(article).toMatchObject({ h2Count: 5, needBold: true, faqCount: 3, language: 'de', draft: true });
    // gpt-4: 4 + 2 x 5 H2 + 1 bold + 2 for the FAQ block.
    expect(article.estimatedCredits).toBe(17);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 17);
  });

  it('keeps what the client sent over the profile', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      defaults: { h2_count: 5, need_bold: 1 },
    });
    const article = await create(fakes, accountId, {
      keyword: 'bread',
      h2_count: 2,
      need_bold: '0',
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      website_uuid: website.websiteUuid,
    });
    expect(article).toMatchObject({ h2Count: 2, needBold: false });
    expect(article.estimatedCredits).toBe(3);
  });

  it('applies no defaults without the website, or to another account', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, { defaults: { h2_count: 5 } });
    const other = await fakes.account(10);
    await expect(
      parseCreateArticleRequest(fakes, other, {
        keyword: 'bread',
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        website_uuid: website.websiteUuid,
      }),
    ).rejects.toMatchObject({ fieldErrors: { h2_count: ['The h2_count field is required.'] } });
  });

  it('copies voice, audience, facts and phrases onto the article: a later change does not reach it', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      voice: 'Warm',
      facts: 'Kit: 29 EUR',
      banned_phrases: ['delve'],
      defaults: { h2_count: 3 },
    });
    const article = await create(fakes, accountId, {
      keyword: 'bread',
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      website_uuid: website.websiteUuid,
    });

    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      voice: 'Cold',
      banned_phrases: ['bread'],
      defaults: { h2_count: 9 },
    });

    const stored = await fakes.articles.get(accountId, article.articleUuid);
    expect(stored).toMatchObject({
      h2Count: 3,
      siteProfile: { voice: 'Warm', facts: 'Kit: 29 EUR', bannedPhrases: ['delve'] },
    });
    expect(stored?.estimatedCredits).toBe(4);
  });

  it('a stored default that no longer passes is a 422 that says it is the profile’s', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await fakes.profiles.put({
      accountId,
      websiteUuid: website.websiteUuid,
      voice: '',
      audience: '',
      facts: '',
      bannedPhrases: [],
      defaults: { h2_count: 99 },
      updatedAt: '',
    });
    await expect(
      parseCreateArticleRequest(fakes, accountId, {
        keyword: 'bread',
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        website_uuid: website.websiteUuid,
      }),
    ).rejects.toThrow(ValidationError);
  });

  it('fingerprints what the client sent, so a profile change between two copies is the same request', async () => {
    const { fakes, accountId, website } = await withWebsite();
    const fields = {
      keyword: 'bread',
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      website_uuid: website.websiteUuid,
    };
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, { defaults: { h2_count: 3 } });
    const first = await parseCreateArticleRequest(fakes, accountId, fields);
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, { defaults: { h2_count: 4 } });
    const second = await parseCreateArticleRequest(fakes, accountId, fields);
    expect(createRequestFingerprint(first)).toEqual(createRequestFingerprint(second));
    // Without a profile, the fingerprint is the parsed input, as before profiles.
    const plain = await parseCreateArticleRequest(fakes, accountId, {
      ...fields,
      h2_count: 2,
      website_uuid: '',
    });
    expect(createRequestFingerprint(plain)).toBe(plain.input);
  });
});

describe('generation with a profile', () => {
  it('gives the model the voice, audience and facts in every brief', async () => {
    const { fakes, accountId, website } = await withWebsite();
    await putSiteProfile(profileDeps(fakes), accountId, website.websiteUuid, {
      voice: 'Warm',
      audience: 'Home bakers',
      facts: 'Kit: 29 EUR',
    });
    const article = await create(fakes, accountId, {
      keyword: 'bread',
      h2_count: 2,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      website_uuid: website.websiteUuid,
    });
    const briefs: ArticleBrief[] = [];
    const writer = new OfflineArticleModel();
    const recording: ArticleModel = {
      providerModel: 'recording',
      outline: (brief) => {
        briefs.push(brief);
        return writer.outline(brief);
      },
      write: (brief, part) => {
        briefs.push(brief);
        return writer.write(brief, part);
      },
      meta: (brief, outline) => {
        briefs.push(brief);
        return writer.meta(brief, outline);
      },
    };
    const result = await generateQueuedArticle(
      { articles: fakes.articles, clock: fakes.clock, models: { modelFor: async () => recording } },
      article,
      new FakeDelivery(),
    );
    expect(result.outcome).toBe('generated');
    expect(briefs.length).toBeGreaterThan(3);
    for (const brief of briefs) {
      expect(brief.siteProfile).toEqual({ voice: 'Warm', audience: 'Home bakers', facts: 'Kit: 29 EUR' });
    }
    // The offline writer follows it as far as filler can.
    const generated = await fakes.articles.get(accountId, article.articleUuid);
    expect(generated?.content).toContain('for Home bakers');
    expect(generated?.content).toContain('Kit: 29 EUR');
  });
});
