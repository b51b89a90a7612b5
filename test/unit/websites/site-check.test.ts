/** One check of a site (the hourly health check and the categories refresh): the flags it records. */

import { CmsError } from '../../../functions/core/websites/cms-client';
import { checkSite } from '../../../functions/core/websites/site-check';
import { createFakes } from '../../support/fakes';

describe('checkSite', () => {
  it('clears a stale login flag when the login works, even if reading the categories then fails', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId, { loginIsUnauthorized: true });
    // The status call logs in; the categories answer is not the plugin's.
    fakes.cms.failWith(
      null,
      new CmsError('plugin_missing', "The site's answer on categories is not the plugin's", 200),
    );

    await expect(checkSite(fakes, website, fakes.clock())).rejects.toBeInstanceOf(CmsError);
    expect(await fakes.websites.get(accountId, website.websiteUuid)).toMatchObject({
      loginIsUnauthorized: false,
      isUnreachable: true,
    });
  });

  it('keeps the login flag when a call after a working login is refused (the password revoked meanwhile)', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId, { loginIsUnauthorized: true });
    fakes.cms.failWith(
      null,
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed'),
    );

    await expect(checkSite(fakes, website, fakes.clock())).rejects.toBeInstanceOf(CmsError);
    expect(await fakes.websites.get(accountId, website.websiteUuid)).toMatchObject({
      loginIsUnauthorized: true,
    });
  });

  it('sets the login flag when the login is refused', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    fakes.cms.failWith(
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed'),
    );

    await expect(checkSite(fakes, website, fakes.clock())).rejects.toBeInstanceOf(CmsError);
    expect(await fakes.websites.get(accountId, website.websiteUuid)).toMatchObject({
      loginIsUnauthorized: true,
    });
  });
});
