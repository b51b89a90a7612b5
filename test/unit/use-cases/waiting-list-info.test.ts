/** The `info` of a create answer says why an article waits, not only that it does. */
import { createArticle } from '../../../functions/core/articles/create-article';
import { waitingListInfo } from '../../../functions/core/articles/waiting-list-info';
import { createFakes } from '../../support/fakes';
import { articleInput, createDeps, PRICE } from './helpers';

const URL = 'https://api.example.com/v1/articles/a/show';

describe('waitingListInfo', () => {
  it('says only that a reserved article is on the waiting list', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());

    expect(await waitingListInfo(fakes, article, URL)).toBe(
      `The article is on the waiting list. Follow its progress at ${URL}`,
    );
  });

  it('names the credits an article needs and the balance that was short', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(PRICE - 1);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());

    const info = await waitingListInfo(fakes, article, URL);

    expect(info).toContain('not enough credits');
    expect(info).toContain(`it needs ${PRICE}, the account has ${PRICE - 1}`);
    expect(info).toContain('starts when credits are added');
    expect(info).toContain(URL);
  });

  it('names the daily limit and when generation starts', async () => {
    const fakes = createFakes('2026-03-01T22:30:00.000Z');
    const accountId = await fakes.account(100, 1);
    const deps = createDeps(fakes);
    await createArticle(deps, accountId, articleInput());
    const article = await createArticle(deps, accountId, articleInput());

    const info = await waitingListInfo(fakes, article, URL);

    expect(info).toContain('the daily limit of 1 article is reached');
    expect(info).toContain('it starts at 2026-03-02 00:00:00 UTC');
    expect(info).toContain(URL);
  });
});
