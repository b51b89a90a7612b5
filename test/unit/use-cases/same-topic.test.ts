/**
 * No second article on a topic the website covers (core/articles/same-topic.ts), and the
 * `internal_links` field of a create, against the fakes.
 */
import { errorResult } from '../../../functions/api/http/responses';
import { createArticle } from '../../../functions/core/articles/create-article';
import {
  comparableText,
  NEAR_IDENTICAL_TITLE,
  sameTopicPost,
  titleSimilarity,
} from '../../../functions/core/articles/same-topic';
import { SameTopicError, ValidationError } from '../../../functions/core/errors';
import { createFakes, sitePost } from '../../support/fakes';
import { articleInput, createDeps } from './helpers';

async function setUp() {
  const fakes = createFakes();
  const accountId = await fakes.account(100);
  const website = await fakes.website(accountId);
  await fakes.siteIndex.putState({ websiteUuid: website.websiteUuid, supported: true, postsIndexed: 2 });
  await fakes.siteIndex.upsert(
    website.websiteUuid,
    [
      sitePost(1, {
        title: 'Crème brûlée at home',
        focusKeyword: 'Crème Brûlée',
        url: 'https://example.com/creme/',
      }),
      sitePost(2, { title: 'The ten best baking stones of 2026 for home bakers', focusKeyword: '' }),
    ],
    '2026-01-01T00:00:00.000Z',
  );
  const deps = { ...createDeps(fakes), siteIndex: fakes.siteIndex };
  return { fakes, accountId, website, deps };
}

describe('the topic check at create', () => {
  it('refuses a create whose focus keyword a post has (any case, any accents), before any charge', async () => {
    const { fakes, accountId, website, deps } = await setUp();
    const attempt = createArticle(
      deps,
      accountId,
      articleInput({ keyword: 'CREME brulee, dessert', website_uuid: website.websiteUuid }),
    );
    await expect(attempt).rejects.toBeInstanceOf(SameTopicError);
    await expect(attempt).rejects.toThrow('https://example.com/creme/');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100);
    expect(fakes.tables.articles.size).toBe(0);
    expect(fakes.queue.sent).toEqual([]);
  });

  it('answers 409 with existing_post {id, url, title}', async () => {
    const { accountId, website, deps } = await setUp();
    const error = await createArticle(
      deps,
      accountId,
      articleInput({ keyword: 'crème brûlée', website_uuid: website.websiteUuid }),
    ).catch((caught: unknown) => caught);
    const result = errorResult(error, 'request-1');
    expect(result.statusCode).toBe(409);
    expect(result.body).toEqual({
      message: expect.stringContaining('https://example.com/creme/'),
      existing_post: { id: '1', url: 'https://example.com/creme/', title: 'Crème brûlée at home' },
    });
  });

  it('refuses a near-identical title, and lets a different one through', async () => {
    const { accountId, website, deps } = await setUp();
    await expect(
      createArticle(
        deps,
        accountId,
        articleInput({
          keyword: 'pizza stone',
          title: 'The Ten Best Baking Stones of 2026 for Home Bakers!',
          website_uuid: website.websiteUuid,
        }),
      ),
    ).rejects.toBeInstanceOf(SameTopicError);
    const article = await createArticle(
      deps,
      accountId,
      articleInput({
        keyword: 'pizza stone',
        title: 'Pizza stones for beginners',
        website_uuid: website.websiteUuid,
      }),
    );
    expect(article.state).toBe('queued');
  });

  it('allow_same_topic=1 writes it anyway (and is kept for the check at generation)', async () => {
    const { accountId, website, deps } = await setUp();
    const article = await createArticle(
      deps,
      accountId,
      articleInput({ keyword: 'crème brûlée', website_uuid: website.websiteUuid, allow_same_topic: '1' }),
    );
    expect(article).toMatchObject({ state: 'queued', allowSameTopic: true });
  });

  it('is skipped for a site without an index (plugin before 1.5) and for articles without a website', async () => {
    const { fakes, accountId, website, deps } = await setUp();
    await fakes.siteIndex.putState({ websiteUuid: website.websiteUuid, supported: false, postsIndexed: 0 });
    await expect(
      createArticle(
        deps,
        accountId,
        articleInput({ keyword: 'crème brûlée', website_uuid: website.websiteUuid }),
      ),
    ).resolves.toMatchObject({ state: 'queued' });
    await expect(
      createArticle(deps, accountId, articleInput({ keyword: 'crème brûlée' })),
    ).resolves.toMatchObject({
      state: 'queued',
    });
  });
});

describe('the same-topic measure', () => {
  it('compares keywords without case, accents or punctuation', () => {
    expect(comparableText('  Crème-Brûlée! ')).toBe('creme brulee');
    expect(sameTopicPost([sitePost(1, { focusKeyword: 'Ça va' })], { focusKeyword: 'CA VA' })?.postId).toBe(
      '1',
    );
    expect(sameTopicPost([sitePost(1, { focusKeyword: '' })], { focusKeyword: '' })).toBeUndefined();
  });

  it('keeps the tolerance for separators: hyphens, repeated spaces and trailing punctuation', () => {
    const posts = [sitePost(1, { focusKeyword: 'Crème brûlée' })];
    for (const keyword of ['creme-brulee', 'crème  brûlée!', ' CRÈME–BRÛLÉE. ', 'creme + brulee']) {
      expect(sameTopicPost(posts, { focusKeyword: keyword })?.postId).toBe('1');
    }
    expect(comparableText('salt & pepper')).toBe(comparableText('salt + pepper'));
  });

  it('keeps "+", "#" and digits in a word: C++, C# and C are different topics', () => {
    expect(comparableText('C++ templates')).toBe('c++ templates');
    expect(comparableText('C# templates!')).toBe('c# templates');
    const posts = [sitePost(1, { focusKeyword: 'C++ templates' })];
    expect(sameTopicPost(posts, { focusKeyword: 'C# templates' })).toBeUndefined();
    expect(sameTopicPost(posts, { focusKeyword: 'C templates' })).toBeUndefined();
    expect(sameTopicPost(posts, { focusKeyword: 'c++  Templates!' })?.postId).toBe('1');
    expect(
      sameTopicPost([sitePost(2, { focusKeyword: 'F# basics' })], { focusKeyword: 'F basics' }),
    ).toBeUndefined();
    expect(
      sameTopicPost([sitePost(3, { focusKeyword: 'Web 2' })], { focusKeyword: 'Web 3' }),
    ).toBeUndefined();
    expect(titleSimilarity('Learn C++ templates', 'Learn C# templates')).toBeLessThan(NEAR_IDENTICAL_TITLE);
  });

  it('folds case fully (ß, ẞ as ss) and reads fullwidth letters as their plain ones', () => {
    const posts = [sitePost(1, { focusKeyword: 'Straße pflastern' })];
    for (const keyword of [
      'STRASSE PFLASTERN',
      'strasse pflastern',
      'STRAẞE pflastern',
      'ｓｔｒａßｅ pflastern',
    ]) {
      expect(sameTopicPost(posts, { focusKeyword: keyword })?.postId).toBe('1');
    }
    expect(comparableText('ＣＲＥＭＥ Brûlée')).toBe('creme brulee');
    expect(titleSimilarity('Die Straße pflastern', 'DIE STRASSE PFLASTERN')).toBe(1);
  });

  it(`titles are near-identical at a word-set Jaccard index of ${NEAR_IDENTICAL_TITLE} or more`, () => {
    expect(titleSimilarity('Best baking stones', 'best Baking stones!')).toBe(1);
    // 10 shared words of 11: 0.91.
    expect(
      titleSimilarity(
        'one two three four five six seven eight nine ten',
        'one two three four five six seven eight nine ten eleven',
      ),
    ).toBeGreaterThanOrEqual(NEAR_IDENTICAL_TITLE);
    expect(titleSimilarity('Best baking stones', 'Best pizza stones')).toBeLessThan(NEAR_IDENTICAL_TITLE);
  });
});

describe('internal_links on create', () => {
  it('defaults to 3 with a website and 0 without', async () => {
    const { accountId, website, deps } = await setUp();
    const linked = await createArticle(
      deps,
      accountId,
      articleInput({ keyword: 'rye', website_uuid: website.websiteUuid }),
    );
    // Undefined: the default (3) decided at generation.
    expect(linked.internalLinks).toBeUndefined();
    const alone = await createArticle(deps, accountId, articleInput({ keyword: 'rye' }));
    expect(alone.internalLinks ?? 0).toBe(0);
  });

  it('takes 0-10 and refuses more than 0 without a website, on its field, before any charge', async () => {
    const { fakes, accountId, website, deps } = await setUp();
    const ten = await createArticle(
      deps,
      accountId,
      articleInput({ keyword: 'rye', website_uuid: website.websiteUuid, internal_links: '10' }),
    );
    expect(ten.internalLinks).toBe(10);
    const credits = (await fakes.accounts.get(accountId))?.credits;
    const refused = await createArticle(
      deps,
      accountId,
      articleInput({ keyword: 'rye', internal_links: 2 }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).fieldErrors).toHaveProperty('internal_links');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(credits);
    for (const bad of ['11', '-1', '2.5', 'three']) {
      expect(() => articleInput({ internal_links: bad, website_uuid: website.websiteUuid })).toThrow();
    }
  });
});
