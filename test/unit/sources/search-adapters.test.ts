/**
 * The three search adapters against local servers shaped like each provider (SearXNG's JSON API,
 * Brave Search, Tavily): the query and key sent as each expects, results made plain, junk dropped;
 * and SEARCH_PROVIDER's configuration.
 */
import { BraveSearch } from '../../../functions/adapters/search/brave-search';
import { searchPolicy } from '../../../functions/adapters/search/search-http';
import { SearxngSearch } from '../../../functions/adapters/search/searxng-search';
import { TavilySearch } from '../../../functions/adapters/search/tavily-search';
import { GuardedPageFetcher } from '../../../functions/adapters/sources/page-fetcher';
import { systemResolver } from '../../../functions/adapters/wordpress/ssrf-guard';
import { generationWorker, routes } from '../../../functions/routes';
import { ConfigError, loadConfig } from '../../../functions/shared/config';
import { httpsServedAsHttp } from '../../support/https-as-http';
import { type LocalHttpServer, startLocalHttpServer } from '../../support/local-http-server';
import { type SourcePages, startSourcePages } from '../../support/source-pages';

const policy = searchPolicy({ allowPrivate: true, resolve: systemResolver });
let pages: SourcePages;
let provider: LocalHttpServer;
/** `/down` redirects to `http://` `/good`, a page. */
let redirects: LocalHttpServer;
const seen: { url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  pages = await startSourcePages();
  provider = await startLocalHttpServer((request, response, body) => {
    seen.push({ url: request.url ?? '', headers: request.headers, body });
    response.writeHead(200, { 'Content-Type': 'application/json' });
    const results = [
      {
        url: 'https://a.example/1',
        title: '<b>First</b> &amp; best',
        description: 'Snippet',
        content: 'Snippet',
      },
      { url: 'javascript:alert(1)', title: 'bad' },
      { url: 'http://plain.example/2', title: 'Plain http' },
      { title: 'no url' },
    ];
    response.end(JSON.stringify(request.url?.startsWith('/brave') ? { web: { results } } : { results }));
  });
  redirects = await startLocalHttpServer((request, response) => {
    if (request.url === '/down') {
      response.writeHead(302, { Location: `http://127.0.0.1:${new URL(redirects.url).port}/good` }).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end(
      `<html><body><article><p>${'Sourdough rises slowly because wild yeast works at its own pace. '.repeat(3)}</p></article></body></html>`,
    );
  });
});

afterAll(async () => {
  await Promise.all([pages.close(), provider.close(), redirects.close()]);
});

describe('search adapters', () => {
  it('SearXNG: its JSON API with the query and language; http(s) results only', async () => {
    const results = await new SearxngSearch(pages.url, policy).search('sourdough tips', {
      language: 'en',
      limit: 5,
    });
    expect(results.map((result) => result.url)).toEqual([
      `${pages.url}/starter`,
      `${pages.url}/baking`,
      `${pages.url}/flour`,
      `${pages.url}/hostile`,
    ]);
    expect(results[0]?.title).toBe('Sourdough starter basics');
  });

  it('Brave: the subscription token header and count; Tavily: a bearer token and a JSON body', async () => {
    const key = async () => 'secret-key';
    const brave = await new BraveSearch(key, policy, `${provider.url}/brave`).search('bread', {
      language: 'de',
      limit: 3,
    });
    // Locally (private addresses allowed) plain http results stay, as plain http sources do.
    expect(brave).toEqual([
      { url: 'https://a.example/1', title: 'First & best', snippet: 'Snippet' },
      { url: 'http://plain.example/2', title: 'Plain http', snippet: '' },
    ]);
    const braveCall = seen.find((call) => call.url.startsWith('/brave'));
    expect(braveCall?.headers['x-subscription-token']).toBe('secret-key');
    expect(braveCall?.url).toBe('/brave?q=bread&count=3&search_lang=de');

    const tavily = await new TavilySearch(key, policy, `${provider.url}/tavily`).search('bread', {
      language: 'en',
      limit: 2,
    });
    expect(tavily.map((result) => result.url)).toEqual(['https://a.example/1', 'http://plain.example/2']);
    const tavilyCall = seen.find((call) => call.url === '/tavily');
    expect(tavilyCall?.headers.authorization).toBe('Bearer secret-key');
    expect(JSON.parse(tavilyCall?.body ?? '{}')).toEqual({
      query: 'bread',
      max_results: 2,
      search_depth: 'basic',
    });
  });

  it('deployed, the page fetcher takes https only, on every hop', async () => {
    const served = httpsServedAsHttp();
    try {
      // Every address allowed: only the scheme refuses.
      const deployed = new GuardedPageFetcher({
        allowPrivate: false,
        isAllowedAddress: () => true,
        resolve: systemResolver,
      });
      const https = `https://127.0.0.1:${new URL(redirects.url).port}`;
      expect((await deployed.fetchPage(`${https}/good`)).text).toContain('wild yeast');
      await expect(deployed.fetchPage(`${https}/down`)).rejects.toThrow(
        /redirected to 127\.0\.0\.1:\d+: Only https addresses are fetched, not http:/,
      );
      await expect(deployed.fetchPage(`${redirects.url}/good`)).rejects.toThrow(
        /Only https addresses are fetched/,
      );
    } finally {
      served.mockRestore();
    }
  });

  it('deployed, Brave and Tavily results that are not https are dropped', async () => {
    const deployedPolicy = searchPolicy({
      allowPrivate: false,
      isAllowedAddress: () => true,
      resolve: systemResolver,
    });
    const served = httpsServedAsHttp();
    try {
      const https = `https://127.0.0.1:${new URL(provider.url).port}`;
      const brave = new BraveSearch(async () => 'key', deployedPolicy, `${https}/brave`);
      const tavily = new TavilySearch(async () => 'key', deployedPolicy, `${https}/tavily`);
      for (const search of [brave, tavily]) {
        expect(
          (await search.search('bread', { language: 'en', limit: 5 })).map((result) => result.url),
        ).toEqual(['https://a.example/1']);
      }
    } finally {
      served.mockRestore();
    }
  });

  it('the page fetcher reads plain text and refuses what is neither HTML nor text, and private addresses when deployed', async () => {
    const local = new GuardedPageFetcher({ allowPrivate: true, resolve: systemResolver });
    expect((await local.fetchPage(`${pages.url}/text`)).text).toContain('feed it daily');
    await expect(local.fetchPage(`${pages.url}/binary`)).rejects.toThrow(
      'not HTML or plain text (image/png)',
    );
    await expect(local.fetchPage(`${pages.url}/dead`)).rejects.toThrow('HTTP 404');
    const deployed = new GuardedPageFetcher({ allowPrivate: false, resolve: systemResolver });
    await expect(deployed.fetchPage(`${pages.url}/starter`)).rejects.toThrow(/may not be fetched/);
  });
});

describe('page charsets', () => {
  const paragraph =
    'Un café crème et une baguette: le matin, la boulangerie sent le levain et la croûte dorée.';
  const html = (head: string) =>
    `<html><head>${head}<title>Café</title></head><body><article><p>${paragraph}</p><p>${paragraph}</p></article></body></html>`;
  const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
  const answers: Record<string, { type: string; body: Buffer }> = {
    '/meta-charset': { type: 'text/html', body: Buffer.from(html('<meta charset="iso-8859-1">'), 'latin1') },
    '/http-equiv': {
      type: 'text/html',
      body: Buffer.from(
        html('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'),
        'latin1',
      ),
    },
    // Latin-1 bytes said to be UTF-8: every accented letter a U+FFFD, most of the page.
    '/wrong-charset': {
      type: 'text/plain; charset=utf-8',
      body: Buffer.from('\u00e9'.repeat(200), 'latin1'),
    },
    '/utf16le-bom': {
      type: 'text/html',
      body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(html(''), 'utf16le')]),
    },
    '/utf16be-bom': {
      type: 'text/html',
      body: Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(html(''))]),
    },
    // The header's charset is taken before the page's own <meta>.
    '/header-wins': {
      type: 'text/html; charset=utf-8',
      body: Buffer.from(html('<meta charset="iso-8859-1">'), 'utf8'),
    },
  };
  let server: LocalHttpServer;
  beforeAll(async () => {
    server = await startLocalHttpServer((request, response) => {
      const answer = answers[request.url ?? ''];
      response.writeHead(200, { 'Content-Type': answer?.type ?? 'text/plain' });
      response.end(answer?.body ?? '');
    });
  });
  afterAll(() => server.close());

  it('decodes by byte order mark, then the header charset, then a <meta> in the first 1,024 bytes', async () => {
    const fetcher = new GuardedPageFetcher({ allowPrivate: true, resolve: systemResolver });
    await expect(fetcher.fetchPage(`${server.url}/wrong-charset`)).rejects.toThrow(
      'The page is not text in the charset it names: not read.',
    );
    for (const path of Object.keys(answers).filter((path) => path !== '/wrong-charset')) {
      const page = await fetcher.fetchPage(`${server.url}${path}`);
      expect([path, page.title, page.text]).toEqual([path, 'Café', `${paragraph}\n\n${paragraph}`]);
    }
  });
});

describe('SEARCH_PROVIDER', () => {
  const env = { INKPRESS_LOCAL_MODE: 'true' };
  const uses = { tables: {}, webSearch: 'uses' as const };
  const knows = { tables: {}, webSearch: 'knows' as const };
  it('the worker gets the provider and its address or key; create only learns that one is configured', () => {
    expect(generationWorker.access.webSearch).toBe('uses');
    expect(routes.find((route) => route.name === 'CreateArticle')?.access.webSearch).toBe('knows');
    expect(
      loadConfig({ ...env, SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://search:8080' }, uses).search,
    ).toEqual({
      provider: 'searxng',
      searxngUrl: 'http://search:8080',
    });
    expect(loadConfig({ ...env, SEARCH_PROVIDER: 'brave', SEARCH_SECRET_ARN: 'arn:x' }, uses).search).toEqual(
      {
        provider: 'brave',
        secretArn: 'arn:x',
      },
    );
    expect(loadConfig({ ...env, SEARCH_PROVIDER: 'tavily' }, knows).search).toEqual({ provider: 'tavily' });
    expect(loadConfig(env, uses).search).toBeUndefined();
    expect(() => loadConfig({ ...env, SEARCH_PROVIDER: 'tavily' }, uses)).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, SEARCH_PROVIDER: 'bing' }, knows)).toThrow(
      /must be one of searxng, brave, tavily/,
    );
  });
});
