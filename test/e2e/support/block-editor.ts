/**
 * The block editor of the test site (WordPress 6.1) in headless Chromium: opens posts as the
 * administrator and lists the blocks it found invalid (or Classic) in each.
 */
import { chromium } from 'playwright-core';

/** What the editor holds of one post: every block's name, and those it found invalid or Classic. */
export interface EditorBlocks {
  cmsId: string;
  count: number;
  names: string[];
  bad: string[];
}

/** For each post, the blocks the editor holds and the names of those it found invalid or Classic. */
export async function blocksTheEditorRefuses(
  wpUrl: string,
  admin: { login: string; password: string },
  cmsIds: string[],
): Promise<EditorBlocks[]> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage();
    const editUrl = (cmsId: string) => `${wpUrl}/wp-admin/post.php?post=${cmsId}&action=edit`;
    const [first] = cmsIds;
    if (!first) return [];
    await page.goto(`${wpUrl}/wp-login.php?redirect_to=${encodeURIComponent(editUrl(first))}`);
    // The login page's own script selects a field 200 ms after load: filled again until both keep their values.
    for (let attempt = 0; ; attempt++) {
      await page.fill('#user_login', admin.login);
      await page.fill('#user_pass', admin.password);
      await page.waitForTimeout(250);
      const kept =
        (await page.inputValue('#user_login')) === admin.login &&
        (await page.inputValue('#user_pass')) === admin.password;
      if (kept || attempt >= 3) break;
    }
    await page.click('#wp-submit', { noWaitAfter: true });
    await page
      .waitForURL(/\/wp-admin\/post\.php/, { waitUntil: 'commit', timeout: 60_000 })
      .catch(async (error: unknown) => {
        // A refused login fails with WordPress's own message instead of a navigation timeout.
        const said = await page
          .locator('#login_error')
          .textContent({ timeout: 1_000 })
          .catch(() => null);
        throw new Error(
          `the admin login did not reach the editor (at ${page.url()}): ${said ?? String(error)}`,
        );
      });
    const results: EditorBlocks[] = [];
    for (const cmsId of cmsIds) {
      if (!page.url().startsWith(editUrl(cmsId))) await page.goto(editUrl(cmsId));
      await page.waitForFunction(
        () => {
          const data = (globalThis as unknown as { wp?: { data?: { select(store: string): unknown } } }).wp
            ?.data;
          const editor = data?.select('core/block-editor') as { getBlocks(): unknown[] } | undefined;
          return (editor?.getBlocks().length ?? 0) > 0;
        },
        undefined,
        { timeout: 60_000 },
      );
      const found = await page.evaluate(() => {
        type Block = { name: string; isValid: boolean; innerBlocks: Block[] };
        const wp = (
          globalThis as unknown as { wp: { data: { select(store: string): { getBlocks(): Block[] } } } }
        ).wp;
        const walk = (blocks: Block[]): Block[] =>
          blocks.flatMap((block) => [block, ...walk(block.innerBlocks)]);
        const all = walk(wp.data.select('core/block-editor').getBlocks());
        return {
          count: all.length,
          names: all.map((block) => block.name),
          bad: all
            .filter((block) => !block.isValid || block.name === 'core/freeform')
            .map((block) => block.name),
        };
      });
      results.push({ cmsId, ...found });
    }
    return results;
  } finally {
    await browser.close();
  }
}
