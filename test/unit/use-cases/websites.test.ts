/** Website use cases against the fakes: registration, new credentials, checks, delete. */
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { checkWebsites } from '../../../functions/core/publishing/sweep-publishing';
import { CmsError } from '../../../functions/core/websites/cms-client';
import { createWebsite } from '../../../functions/core/websites/create-website';
import { deleteWebsite } from '../../../functions/core/websites/delete-website';
import { siteAccessOf } from '../../../functions/core/websites/site-access';
import { updateWebsite } from '../../../functions/core/websites/update-website';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { articleInput, createDeps, generateDeps } from './helpers';

const websiteDeps = (fakes: Fakes) => ({
  websites: fakes.websites,
  categories: fakes.categories,
  cipher: fakes.cipher,
  cms: fakes.cms,
  loginFailures: fakes.loginFailures,
  now: fakes.clock,
});

const fields = { url: 'https://blog.example.com/', login: 'inkpress', password: 'secret' };

describe('website use cases', () => {
  it('registers a site once per account, its password encrypted for that site, its categories kept', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    fakes.cms.siteCategories = [
      { cmsId: '1', name: 'News', slug: 'news' },
      { cmsId: '2', name: 'Recipes', slug: 'recipes' },
    ];

    const created = await createWebsite(websiteDeps(fakes), accountId, fields);

    expect(created.data).toMatchObject({ url: 'https://blog.example.com', categories_count: 2 });
    const stored = await fakes.websites.get(accountId, created.data.uuid);
    expect(stored?.passwordCiphertext).not.toContain('secret');
    expect(stored && (await siteAccessOf(fakes, stored))).toEqual({
      url: 'https://blog.example.com',
      login: 'inkpress',
      password: 'secret',
    });
    expect(await fakes.categories.listAll(created.data.uuid)).toHaveLength(2);
    await expect(createWebsite(websiteDeps(fakes), accountId, fields)).rejects.toThrow();
    expect((await fakes.websites.list(accountId, 1, 20)).total).toBe(1);
  });

  it('stores nothing for a site whose login is refused', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    fakes.cms.failWith(new CmsError('unauthorized', 'Refused', 401));

    await expect(createWebsite(websiteDeps(fakes), accountId, fields)).rejects.toThrow();
    expect((await fakes.websites.list(accountId, 1, 20)).total).toBe(0);
  });

  it('new credentials clear the flags and bring pending publications forward', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId, { loginIsUnauthorized: true });
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid }),
    );
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    expect(fakes.articles.row(article)?.sweep?.at).not.toBe(fakes.clock().toISOString());

    const updated = await updateWebsite(
      { ...websiteDeps(fakes), publications: fakes.publications, siteIndex: fakes.siteIndex },
      accountId,
      website.websiteUuid,
      { login: 'editor', password: 'new-secret' },
    );

    expect(updated.status).toEqual({ login_is_unauthorized: 0, is_unreachable: 0 });
    const stored = await fakes.websites.get(accountId, website.websiteUuid);
    expect(stored && (await siteAccessOf(fakes, stored))).toMatchObject({
      login: 'editor',
      password: 'new-secret',
    });
  });

  it('refuses a new url with a 422 instead of ignoring it, calling no site and changing nothing', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const before = await fakes.websites.get(accountId, website.websiteUuid);
    const calls = fakes.cms.calls.length;

    await expect(
      updateWebsite(
        { ...websiteDeps(fakes), publications: fakes.publications, siteIndex: fakes.siteIndex },
        accountId,
        website.websiteUuid,
        {
          url: 'https://elsewhere.example.com',
          login: 'editor',
          password: 'new-secret',
        },
      ),
    ).rejects.toMatchObject({
      fieldErrors: {
        url: ['The url of a website cannot be changed; register the new address as a new website.'],
      },
    });
    expect(fakes.cms.calls.length).toBe(calls);
    expect(await fakes.websites.get(accountId, website.websiteUuid)).toEqual(before);
  });

  it.each([[''], ['  '], [null]])(
    'an update with a blank url (%j) changes the login as without it',
    async (url) => {
      const fakes = createFakes();
      const accountId = await fakes.account(10);
      const website = await fakes.website(accountId);
      const deps = { ...websiteDeps(fakes), publications: fakes.publications, siteIndex: fakes.siteIndex };

      const { data } = await updateWebsite(deps, accountId, website.websiteUuid, {
        url,
        login: 'editor-2',
        password: 'new-secret',
      });

      expect(data.url).toBe(website.url);
      expect((await fakes.websites.get(accountId, website.websiteUuid))?.login).toBe('editor-2');
    },
  );

  it('an update that sends back the website own url (any spelling) is taken', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const deps = { ...websiteDeps(fakes), publications: fakes.publications, siteIndex: fakes.siteIndex };
    const sameAddress = `${website.url.replace('https://', 'HTTPS://')}/`;

    const { data } = await updateWebsite(deps, accountId, website.websiteUuid, {
      url: sameAddress,
      login: 'editor-2',
      password: 'new-secret',
    });

    expect(data.url).toBe(website.url);
  });

  it('lets an account fail a site login twice per 15 minutes, so that it can never make the site pause that login for others', async () => {
    const fakes = createFakes();
    const attacker = await fakes.account(0);
    const owner = await fakes.account(0);
    const guess = (path: string, password: string) =>
      createWebsite(websiteDeps(fakes), attacker, {
        url: `https://victim.example.com/${path}`,
        login: 'Inkpress',
        password,
      });
    fakes.cms.failWith(
      new CmsError('unauthorized', 'Login failed', 401),
      new CmsError('unauthorized', 'Login failed', 401),
    );
    await expect(guess('a', 'guess-1')).rejects.toMatchObject({
      fieldErrors: { password: [expect.any(String)] },
    });
    await expect(guess('b', 'guess-2')).rejects.toMatchObject({
      fieldErrors: { password: [expect.any(String)] },
    });
    const callsBefore = fakes.cms.calls.length;

    // Other paths, spellings of the login: refused without a call to the site.
    await expect(guess('c', 'guess-3')).rejects.toMatchObject({
      fieldErrors: {
        login: [
          'The site refused this login (or is checking it) 2 times in the last 15 minutes, so Inkpress does not try it again for now (more failures would make the site pause this login for every caller): check the login and password, then try again in 15 minutes.',
        ],
      },
    });
    await expect(
      createWebsite(websiteDeps(fakes), attacker, {
        url: 'https://VICTIM.example.com/d',
        login: ' inkpress ',
        password: 'guess-4',
      }),
    ).rejects.toMatchObject({ fieldErrors: { login: [expect.any(String)] } });
    expect(fakes.cms.calls.length).toBe(callsBefore);

    // Another account's own login to the site is not held up.
    const created = await createWebsite(websiteDeps(fakes), owner, {
      url: 'https://victim.example.com',
      login: 'inkpress',
      password: 'right',
    });
    expect(created.data.url).toBe('https://victim.example.com');

    // After the window the account may try again.
    fakes.time.advance(15 * 60_000);
    await guess('e', 'right').then(() => undefined);
  });

  it('lets 20 parallel registrations of one account with wrong passwords and spellings of one login reach the site twice at most', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const refused = () => new CmsError('unauthorized', 'Login failed', 401);
    fakes.cms.failWith(...Array.from({ length: 40 }, refused));
    // One login to WordPress (sanitize_user, then lower case), as the plugin's throttle counts it.
    const spellings = [
      'inkpress',
      'InkPress',
      ' INKPRESS',
      'ínkpréss',
      'ink<b>press',
      'ink%41press',
      'ink&amp;press',
    ];

    const answers = await Promise.allSettled(
      Array.from({ length: 20 }, (_, n) =>
        createWebsite(websiteDeps(fakes), accountId, {
          url: `https://victim.example.com/${n}`,
          login: spellings[n % spellings.length],
          password: `guess-${n}`,
        }),
      ),
    );

    expect(answers.every((answer) => answer.status === 'rejected')).toBe(true);
    expect(fakes.cms.calls.filter((call) => call.kind === 'status')).toHaveLength(2);
  });

  it('caps failed logins to a site as one user at 3 across accounts, and releases the attempts the site accepted or never checked', async () => {
    const fakes = createFakes();
    const refused = () => new CmsError('unauthorized', 'Login failed', 401);
    const register = async (password: string) =>
      createWebsite(websiteDeps(fakes), await fakes.account(0), {
        url: 'https://victim.example.com',
        login: 'Inkpress',
        password,
      });
    // Paused by the site (it checked nothing), then accepted: neither counts.
    fakes.cms.failWith(new CmsError('throttled', 'Too many', 429, 'inkpress_throttled', 60));
    await expect(register('any')).rejects.toMatchObject({ fieldErrors: { login: [expect.any(String)] } });
    await register('right');
    fakes.cms.failWith(refused(), refused(), refused());
    for (const guess of ['guess-1', 'guess-2', 'guess-3']) {
      await expect(register(guess)).rejects.toMatchObject({
        fieldErrors: { password: [expect.any(String)] },
      });
    }
    const callsBefore = fakes.cms.calls.length;

    await expect(register('right')).rejects.toMatchObject({
      fieldErrors: {
        login: [
          'Logins to this site as this user failed (or are being checked) 3 times in the last 15 minutes through Inkpress, so Inkpress does not try it again for now (more failures would make the site pause this login for every caller): check the login and password, then try again in 15 minutes.',
        ],
      },
    });
    expect(fakes.cms.calls.length).toBe(callsBefore);
    // Another user of the site is not held up.
    await expect(
      createWebsite(websiteDeps(fakes), await fakes.account(0), {
        url: 'https://victim.example.com',
        login: 'someone-else',
        password: 'right',
      }),
    ).resolves.toBeDefined();
  });

  it.each(['ink:press', 'inkpress:'])(
    'refuses a login with a colon (%j), which HTTP Basic cannot carry, with a 422 on login',
    async (login) => {
      const fakes = createFakes();
      const accountId = await fakes.account(0);
      await expect(createWebsite(websiteDeps(fakes), accountId, { ...fields, login })).rejects.toMatchObject({
        fieldErrors: { login: ['The login may not contain a colon (:).'] },
      });
      const website = await fakes.website(accountId);
      await expect(
        updateWebsite(
          { ...websiteDeps(fakes), publications: fakes.publications, siteIndex: fakes.siteIndex },
          accountId,
          website.websiteUuid,
          {
            login,
            password: 'secret',
          },
        ),
      ).rejects.toMatchObject({ fieldErrors: { login: ['The login may not contain a colon (:).'] } });
      expect(fakes.cms.calls).toEqual([]);
    },
  );

  it('the hourly check flags a failing site and clears it when it answers again', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const website = await fakes.website(accountId);
    fakes.time.advance(61 * 60_000);
    fakes.cms.failWith(new CmsError('unreachable', 'Timeout'));

    expect(await checkWebsites(fakes)).toEqual({ healthy: 0, failing: 1, gone: 0, errors: 0 });
    expect((await fakes.websites.get(accountId, website.websiteUuid))?.isUnreachable).toBe(true);
    // Checked now: not due again within the hour.
    expect(await checkWebsites(fakes)).toEqual({ healthy: 0, failing: 0, gone: 0, errors: 0 });
    fakes.time.advance(61 * 60_000);
    expect(await checkWebsites(fakes)).toEqual({ healthy: 1, failing: 0, gone: 0, errors: 0 });
    expect((await fakes.websites.get(accountId, website.websiteUuid))?.isUnreachable).toBe(false);
  });

  it("keeps the site's time zone the plugin reports, refreshed by an update and the hourly check; ignores a bad one", async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const timezoneOf = async (uuid: string) => (await fakes.websites.get(accountId, uuid))?.timezone;
    fakes.cms.siteTimezone = 'Europe/Paris';

    const created = await createWebsite(websiteDeps(fakes), accountId, fields);
    expect(created.data.timezone).toBe('Europe/Paris');
    expect(await timezoneOf(created.data.uuid)).toBe('Europe/Paris');

    // The site's owner set a manual offset; the update reads it.
    fakes.cms.siteTimezone = '-05:30';
    const updated = await updateWebsite(
      { ...websiteDeps(fakes), publications: fakes.publications, siteIndex: fakes.siteIndex },
      accountId,
      created.data.uuid,
      { login: 'inkpress', password: 'secret' },
    );
    expect(updated.data.timezone).toBe('-05:30');

    // A hostile (or broken) site: what it sends is not kept, and the zone is no longer known.
    fakes.cms.siteTimezone = 'Europe/Paris"><script>';
    fakes.time.advance(61 * 60_000);
    expect(await checkWebsites(fakes)).toEqual({ healthy: 1, failing: 0, gone: 0, errors: 0 });
    expect(await timezoneOf(created.data.uuid)).toBeNull();

    fakes.cms.siteTimezone = 'America/New_York';
    fakes.time.advance(61 * 60_000);
    await checkWebsites(fakes);
    expect(await timezoneOf(created.data.uuid)).toBe('America/New_York');

    // A plugin that sends no zone: null on the record, not a 500 nor a failed registration.
    fakes.cms.siteTimezone = undefined;
    const other = await createWebsite(websiteDeps(fakes), accountId, {
      ...fields,
      url: 'https://other.example.com',
    });
    expect(other.data.timezone).toBeNull();
  });

  const indexState = { supported: true, postsIndexed: 1, indexedAt: '2026-01-01T00:00:00.000Z' };
  const indexedPost = {
    postId: '7',
    url: 'https://example.com/coffee',
    title: 'Coffee',
    excerpt: '',
    focusKeyword: '',
    categories: [],
    modifiedAt: '2026-01-01T00:00:00.000Z',
    noindex: false,
  };

  it('deletes a website with its categories and site index; its URL can be registered again', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const created = await createWebsite(websiteDeps(fakes), accountId, fields);
    await fakes.siteIndex.putState({ ...indexState, websiteUuid: created.data.uuid });
    await fakes.siteIndex.upsert(created.data.uuid, [indexedPost], fakes.clock().toISOString());

    await deleteWebsite(
      { websites: fakes.websites, categories: fakes.categories, siteIndex: fakes.siteIndex },
      accountId,
      created.data.uuid,
    );

    expect(await fakes.websites.get(accountId, created.data.uuid)).toBeUndefined();
    expect(await fakes.categories.listAll(created.data.uuid)).toEqual([]);
    expect(await fakes.siteIndex.getState(created.data.uuid)).toBeUndefined();
    expect(await fakes.siteIndex.list(created.data.uuid)).toEqual([]);
    await expect(createWebsite(websiteDeps(fakes), accountId, fields)).resolves.toBeDefined();
  });
});
