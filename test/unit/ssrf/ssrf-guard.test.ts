import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  credentialsKept,
  guardedRequest,
  OutboundError,
  type OutboundPolicy,
} from '../../../functions/adapters/wordpress/guarded-http';
import {
  BlockedDestinationError,
  checkDestination,
  isPublicAddress,
  type Resolver,
} from '../../../functions/adapters/wordpress/ssrf-guard';

describe('isPublicAddress', () => {
  it.each([
    ['IPv4 public', '93.184.216.34'],
    ['IPv4 public (1.1.1.1)', '1.1.1.1'],
    ['IPv6 global unicast', '2606:4700:4700::1111'],
    ['IPv6 global unicast, expanded', '2a00:1450:4001:0829:0000:0000:0000:200e'],
    ['IPv4-mapped IPv6 of a public address', '::ffff:93.184.216.34'],
  ])('allows %s (%s)', (_label, address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    // IPv4, dotted
    ['loopback', '127.0.0.1'],
    ['loopback, other', '127.8.9.10'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12', '172.16.5.4'],
    ['private 172.31', '172.31.255.255'],
    ['private 192.168/16', '192.168.1.1'],
    ['link-local', '169.254.10.20'],
    ['cloud metadata', '169.254.169.254'],
    ['unspecified', '0.0.0.0'],
    ['this network 0/8', '0.1.2.3'],
    ['CGNAT', '100.64.0.1'],
    ['CGNAT top', '100.127.255.254'],
    ['multicast', '224.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['reserved 240/4', '240.0.0.1'],
    ['benchmarking 198.18/15', '198.18.0.1'],
    ['documentation 192.0.2/24', '192.0.2.10'],
    ['IETF protocol 192.0.0/24', '192.0.0.8'],
    // IPv4, other notations
    ['decimal loopback', '2130706433'],
    ['decimal metadata', '2852039166'],
    ['hex loopback', '0x7f000001'],
    ['octal loopback', '0177.0.0.1'],
    ['short loopback', '127.1'],
    ['hex-dotted private', '0xa.0.0.1'],
    // IPv6
    ['IPv6 loopback', '::1'],
    ['IPv6 loopback, bracketed', '[::1]'],
    ['IPv6 unspecified', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 link-local with zone', 'fe80::1%eth0'],
    ['IPv6 unique local', 'fc00::1'],
    ['IPv6 unique local fd', 'fd12:3456:789a::1'],
    ['AWS IPv6 metadata', 'fd00:ec2::254'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv6 documentation', '2001:db8::1'],
    ['IPv6 site-local (deprecated)', 'fec0::1'],
    ['IPv4-compatible IPv6 loopback', '::127.0.0.1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    // IPv4-mapped IPv6
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped private', '::ffff:10.1.2.3'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['IPv4-mapped metadata, expanded', '0:0:0:0:0:ffff:a9fe:a9fe'],
    ['IPv4-mapped CGNAT', '::ffff:100.64.0.1'],
    // not addresses at all
    ['empty', ''],
    ['a name', 'localhost'],
  ])('blocks %s (%s)', (_label, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('checkDestination', () => {
  const fakeResolver =
    (table: Record<string, string[]>): Resolver =>
    async (hostname) => {
      const addresses = table[hostname];
      if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const resolve = fakeResolver({
    'public.example': ['93.184.216.34'],
    'dual.example': ['93.184.216.34', '2606:2800:220:1::248'],
    'internal.example': ['10.0.0.5'],
    'metadata.example': ['169.254.169.254'],
    'loopback6.example': ['::1'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'mixed.example': ['93.184.216.34', '192.168.0.10'],
    'mixed6.example': ['2606:2800:220:1::248', 'fd00:ec2::254'],
  });
  const deny = { allowPrivate: false, resolve };

  it('returns the checked addresses of a public name, for pinning', async () => {
    await expect(checkDestination(new URL('https://dual.example/wp'), deny)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::248', family: 6 },
    ]);
  });

  it('takes a public IP literal as is, without resolving it', async () => {
    await expect(checkDestination(new URL('http://93.184.216.34/'), deny)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it.each([
    ['a name resolving to a private address', 'http://internal.example/'],
    ['a name resolving to the metadata address', 'http://metadata.example/latest/meta-data/'],
    ['a name resolving to IPv6 loopback', 'http://loopback6.example/'],
    ['a name resolving to an IPv4-mapped loopback', 'http://mapped.example/'],
    ['a name with one public and one private address', 'http://mixed.example/'],
    ['a name with one public and one private IPv6 address', 'http://mixed6.example/'],
    ['a name with a trailing dot resolving privately', 'http://internal.example./'],
    ['an IPv4 literal', 'http://127.0.0.1:8080/'],
    ['a decimal IPv4 literal', 'http://2130706433/'],
    ['a hex IPv4 literal', 'http://0x7f000001/'],
    ['an octal IPv4 literal', 'http://0177.0.0.1/'],
    ['a short IPv4 literal', 'http://127.1/'],
    ['a decimal metadata literal', 'http://2852039166/'],
    ['an IPv6 literal', 'http://[::1]/'],
    ['an IPv4-mapped IPv6 literal', 'http://[::ffff:169.254.169.254]/'],
    ['the AWS IPv6 metadata literal', 'http://[fd00:ec2::254]/'],
    ['the unspecified address', 'http://0.0.0.0/'],
    ['a CGNAT address', 'http://100.64.1.1/'],
  ])('blocks %s', async (_label, url) => {
    await expect(checkDestination(new URL(url), deny)).rejects.toBeInstanceOf(BlockedDestinationError);
  });

  it.each(['ftp://public.example/', 'file:///etc/passwd', 'gopher://public.example/'])(
    'blocks the non-http scheme of %s',
    async (url) => {
      await expect(checkDestination(new URL(url), deny)).rejects.toBeInstanceOf(BlockedDestinationError);
    },
  );

  it('lets private addresses through only when the policy allows them', async () => {
    await expect(
      checkDestination(new URL('http://internal.example/'), { allowPrivate: true, resolve }),
    ).resolves.toEqual([{ address: '10.0.0.5', family: 4 }]);
  });

  it('passes resolver failures on (they are network errors, not blocks)', async () => {
    await expect(checkDestination(new URL('http://unknown.example/'), deny)).rejects.toThrow('ENOTFOUND');
  });
});

describe('guardedRequest against a local server', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  let handler: (request: IncomingMessage, response: ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(`${request.method} ${request.url} auth=${request.headers.authorization ?? '-'}`);
      handler(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    hits.length = 0;
  });

  /** Names resolve through a fake resolver: `site.test` is this server, `evil.test` a private address. */
  const resolve: Resolver = async (hostname) => {
    if (hostname === 'site.test' || hostname === 'other.test') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  const policy = (overrides: Partial<OutboundPolicy> = {}): OutboundPolicy => ({
    allowPrivate: true,
    resolve,
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 2_000,
    maxResponseBytes: 1_000,
    maxRedirects: 3,
    ...overrides,
  });
  const get = (path: string, host = 'site.test') => ({
    method: 'GET' as const,
    url: `http://${host}:${port}${path}`,
    headers: { Authorization: 'Basic c2VjcmV0' },
  });

  it('connects to the pinned address of a name and returns the answer', async () => {
    handler = (request, response) => response.end(`host=${request.headers.host}`);
    const response = await guardedRequest(get('/hello'), policy());
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(`host=site.test:${port}`);
  });

  it('refuses a loopback site before connecting when private addresses are not allowed', async () => {
    handler = (_request, response) => response.end('should not be reached');
    await expect(guardedRequest(get('/'), policy({ allowPrivate: false }))).rejects.toMatchObject({
      failure: 'blocked',
    });
    expect(hits).toEqual([]);
  });

  /** Treats this test server's address as the only public one, so redirects elsewhere must be blocked. */
  const onlyTestServerIsPublic = (address: string) => address === '127.0.0.1';

  it.each([
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a decimal loopback literal', 'http://2130706434/'],
    ['an IPv4-mapped IPv6 literal', 'http://[::ffff:10.0.0.1]/'],
    ['a name resolving to a private address', 'http://internal.test/'],
  ])('re-checks every redirect: a redirect to %s is refused', async (_label, location) => {
    handler = (_request, response) => response.writeHead(302, { Location: location }).end();
    const resolveWithInternal: Resolver = async (hostname) =>
      hostname === 'internal.test' ? [{ address: '10.1.2.3', family: 4 }] : resolve(hostname);
    await expect(
      guardedRequest(
        get('/'),
        policy({
          allowPrivate: false,
          isAllowedAddress: onlyTestServerIsPublic,
          resolve: resolveWithInternal,
        }),
      ),
    ).rejects.toMatchObject({ failure: 'blocked' });
    expect(hits).toHaveLength(1);
  });

  it.each([
    ['a malformed address', 'http://exa mple.com/', /redirected to an invalid address/],
    [
      'a file: URL',
      'file:///etc/passwd',
      /redirected to a file: address \(only http and https are followed\)/,
    ],
    ['a javascript: URL', 'javascript:alert(1)', /redirected to a javascript: address/],
  ])('fails a redirect to %s as a bad redirect, without following it', async (_label, location, message) => {
    handler = (_request, response) => response.writeHead(302, { Location: location }).end();
    const error = await guardedRequest(get('/'), policy()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ failure: 'bad_redirect', message: expect.stringMatching(message) });
    expect(hits).toHaveLength(1);
  });

  it('resolves each hop once and connects to exactly the address it checked (no DNS rebinding gap)', async () => {
    handler = (_request, response) => response.end('pinned');
    const answers = [
      [{ address: '127.0.0.1', family: 4 as const }],
      [{ address: '10.0.0.1', family: 4 as const }],
    ];
    let calls = 0;
    const rebinding: Resolver = async () => answers[Math.min(calls++, 1)] ?? [];
    const response = await guardedRequest(
      get('/'),
      policy({ allowPrivate: false, isAllowedAddress: onlyTestServerIsPublic, resolve: rebinding }),
    );
    expect(response.body.toString()).toBe('pinned');
    expect(calls).toBe(1);
  });

  it('follows up to the redirect limit, then fails', async () => {
    handler = (request, response) => {
      const n = Number(request.url?.slice(1) ?? 0);
      response.writeHead(302, { Location: `/${n + 1}` }).end();
    };
    await expect(guardedRequest(get('/0'), policy({ maxRedirects: 3 }))).rejects.toMatchObject({
      failure: 'redirects',
    });
    expect(hits.map((hit) => hit.split(' ')[1])).toEqual(['/0', '/1', '/2', '/3']);
  });

  it('keeps credentials on a same-host redirect and drops them on a cross-host one', async () => {
    handler = (request, response) => {
      if (request.url === '/start') response.writeHead(301, { Location: '/same' }).end();
      else if (request.url === '/same')
        response.writeHead(307, { Location: `http://other.test:${port}/away` }).end();
      else response.end('done');
    };
    const response = await guardedRequest(get('/start'), policy());
    expect(response.body.toString()).toBe('done');
    expect(hits).toEqual([
      'GET /start auth=Basic c2VjcmV0',
      'GET /same auth=Basic c2VjcmV0',
      'GET /away auth=-',
    ]);
  });

  it('says where a followed redirect led when the call fails there', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    handler = (_request, response) =>
      response.writeHead(302, { Location: `http://site.test:${closedPort}/moved` }).end();
    await expect(guardedRequest(get('/start'), policy())).rejects.toMatchObject({
      failure: 'network',
      requestSent: true,
      message: `site.test:${port} redirected to site.test:${closedPort}: Could not reach site.test:${closedPort} (ECONNREFUSED)`,
    });
  });

  it('drops credentials on a redirect to another port of the same host', async () => {
    const other = createServer((request, response) => {
      hits.push(`other ${request.method} ${request.url} auth=${request.headers.authorization ?? '-'}`);
      response.end('other port');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as AddressInfo).port;
    try {
      handler = (_request, response) =>
        response.writeHead(302, { Location: `http://site.test:${otherPort}/elsewhere` }).end();
      const response = await guardedRequest(get('/start'), policy());
      expect(response.body.toString()).toBe('other port');
      expect(hits).toEqual(['GET /start auth=Basic c2VjcmV0', 'other GET /elsewhere auth=-']);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('keeps credentials only for the same host and port, never on a downgrade to http', () => {
    expect(credentialsKept(new URL('https://site.test/a'), new URL('http://site.test/b'))).toBe(false);
    expect(credentialsKept(new URL('http://site.test/a'), new URL('https://site.test/b'))).toBe(true);
    expect(credentialsKept(new URL('https://site.test/a'), new URL('https://site.test:443/b'))).toBe(true);
    expect(credentialsKept(new URL('https://site.test/a'), new URL('https://site.test:8443/b'))).toBe(false);
    expect(credentialsKept(new URL('https://site.test/a'), new URL('https://other.test/b'))).toBe(false);
  });

  it('keeps the method and body on 307/308 and switches to GET on 303', async () => {
    const bodies: string[] = [];
    handler = (request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        bodies.push(`${request.method} ${request.url} ${body}`);
        if (request.url === '/a') response.writeHead(308, { Location: '/b' }).end();
        else if (request.url === '/b') response.writeHead(303, { Location: '/c' }).end();
        else response.end('ok');
      });
    };
    await guardedRequest(
      { method: 'POST', url: `http://site.test:${port}/a`, headers: {}, body: '{"x":1}' },
      policy(),
    );
    expect(bodies).toEqual(['POST /a {"x":1}', 'POST /b {"x":1}', 'GET /c ']);
  });

  it('times out a server that never answers', async () => {
    handler = () => undefined;
    const started = Date.now();
    await expect(guardedRequest(get('/slow'), policy({ totalTimeoutMs: 300 }))).rejects.toMatchObject({
      failure: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('caps the response size', async () => {
    handler = (_request, response) => response.end('x'.repeat(5_000));
    await expect(guardedRequest(get('/big'), policy({ maxResponseBytes: 1_000 }))).rejects.toMatchObject({
      failure: 'too_large',
    });
  });

  it('reports a refused connection as a network failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await guardedRequest(
      { method: 'GET', url: `http://127.0.0.1:${closedPort}/`, headers: {} },
      policy(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ failure: 'network' });
  });

  it('reports an unknown name as unresolved (the doctor tells it apart from other network failures)', async () => {
    await expect(guardedRequest(get('/', 'nowhere.test'), policy())).rejects.toMatchObject({
      failure: 'unresolved',
    });
  });
});
