/** Showing and listing articles: newest first, totals, websites and categories nested. */
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import {
  listGeneratedArticles,
  listQueuedArticles,
  showArticle,
} from '../../../functions/core/articles/read-articles';
import { createFakes, FakeDelivery } from '../../support/fakes';
import { articleInput, createDeps, generateDeps } from './helpers';

describe('reading articles', () => {
  it('lists the queue newest first, 20 a page, with the total; generated articles leave it', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(1000);
    const created = [];
    for (let n = 0; n < 25; n++) {
      created.push(
        await createArticle(createDeps(fakes), accountId, articleInput({ title: `Article ${n}` })),
      );
      fakes.time.advance(1000);
    }
    const deps = { articles: fakes.articles, websites: fakes.websites, categories: fakes.categories };

    const first = await listQueuedArticles(deps, accountId, 1);
    const second = await listQueuedArticles(deps, accountId, 2);
    expect(first.total).toBe(25);
    expect(first.items).toHaveLength(20);
    expect(first.items[0]).toMatchObject({ status: 'pending', data: { title: 'Article 24' } });
    expect(second.items.map((item) => item.data.title)).toEqual([
      'Article 4',
      'Article 3',
      'Article 2',
      'Article 1',
      'Article 0',
    ]);

    const oldest = created[0];
    if (!oldest) throw new Error('no article');
    await generateQueuedArticle(generateDeps(fakes), oldest, new FakeDelivery());
    expect((await listQueuedArticles(deps, accountId, 2)).total).toBe(24);
    const generated = await listGeneratedArticles(deps, accountId, 1);
    expect(generated).toMatchObject({ total: 1, items: [{ status: 'generated' }] });
    expect(await listGeneratedArticles(deps, accountId, 2)).toEqual({ items: [], page: 2, total: 1 });
  });

  it('shows an article with its website and category, and null once the website is deleted', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const categoryUuid = '7b0c9b4e-1d2a-4f3b-8c5d-6e7f8a9b0c1d';
    await fakes.categories.putAll([
      { websiteUuid: website.websiteUuid, categoryUuid, cmsId: '7', name: 'Bread', slug: 'bread' },
    ]);
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid, category_uuid: categoryUuid }),
    );
    const deps = { articles: fakes.articles, websites: fakes.websites, categories: fakes.categories };

    const shown = await showArticle(deps, accountId, article.articleUuid.toUpperCase());
    expect(shown.data).toMatchObject({
      website: { uuid: website.websiteUuid, url: website.url },
      category: { uuid: categoryUuid, name: 'Bread', slug: 'bread', cms_id: '7' },
    });

    await fakes.websites.delete(accountId, website.websiteUuid);
    expect((await showArticle(deps, accountId, article.articleUuid)).data).toMatchObject({ website: null });
  });
});
