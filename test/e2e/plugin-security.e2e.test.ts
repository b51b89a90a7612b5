/**
 * The Inkpress Connector plugin as an attacker meets it, against a real WordPress 6.1
 * (test/e2e/wordpress/peer.sh): every refused login looks the same, the plugin's own throttle,
 * the real password opening inkpress/v1 and nothing else, application passwords, the role's
 * capabilities, per-user idempotency, inert shortcodes, the settings page, and registration
 * through Inkpress refusing an administrator that holds the role.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { createAccount } from '../../functions/core/accounts';
import { LOGIN_FAILED_MESSAGE } from '../../functions/core/websites/site-failures';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { e2eEnv as env } from './support/test-site';
import { peer } from './support/wordpress-peer';

const WP_URL = env('WP_URL');
const STATUS = '/wp-json/inkpress/v1/status';
const LOGIN_FAILED_BODY = JSON.stringify({
  code: 'inkpress_login_failed',
  message:
    'Login failed: check the user name, the password, and that the user has only the Inkpress Editor role.',
  data: { status: 401 },
});

interface Credentials {
  login: string;
  password: string;
  /** Which header carries them: the standard one, or the plugin's own for hosts that strip it. */
  header?: 'authorization' | 'x-inkpress';
  /** Client address the peer reports to the plugin's throttle (X-Peer-Client-Address). */
  address?: string;
}

interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

const basic = ({ login, password }: Credentials) =>
  `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`;

async function call(
  path: string,
  credentials?: Credentials,
  init: { method?: string; json?: unknown; rawAuthorization?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (credentials) {
    headers[credentials.header === 'x-inkpress' ? 'X-Inkpress-Authorization' : 'Authorization'] =
      basic(credentials);
    if (credentials.address) headers['X-Peer-Client-Address'] = credentials.address;
  }
  if (init.rawAuthorization) headers['X-Inkpress-Authorization'] = init.rawAuthorization;
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${WP_URL}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    redirect: 'manual',
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

const php = (code: string) => peer('php-eval', code).trim();
const resetThrottle = () => php('Inkpress_Throttle::reset_all();');
const authLog = (): string[] =>
  JSON.parse(php("echo wp_json_encode( get_option( 'inkpress_peer_auth_log', array() ) );"));
const clearAuthLog = () => php("delete_option( 'inkpress_peer_auth_log' );");

const editor = (): Credentials => ({ login: env('WP_LOGIN'), password: env('WP_PASSWORD') });
const editorApp = (): Credentials => ({ login: env('WP_LOGIN'), password: env('WP_APP_PASSWORD') });

let accountId: string;

beforeAll(async () => {
  await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Plugin security', credits: 10 },
  );
  accountId = account.accountId;
});

beforeEach(() => {
  resetThrottle();
  clearAuthLog();
});

afterAll(() => {
  // The other e2e files share this peer.
  resetThrottle();
});

describe('every refused login looks the same', () => {
  it('answers unknown users, wrong passwords, users without the role and users with more power alike', async () => {
    const refused: [string, Credentials | undefined, { rawAuthorization?: string }?][] = [
      ['the Inkpress user, wrong password', { login: env('WP_LOGIN'), password: 'wrong password' }],
      ['an unknown user', { login: 'nobody-here', password: 'wrong password' }],
      ['an unknown e-mail address', { login: 'nobody@example.test', password: 'wrong password' }],
      [
        'the administrator, right password',
        { login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_PASSWORD') },
      ],
      ['the administrator, wrong password', { login: env('WP_ADMIN_LOGIN'), password: 'wrong password' }],
      [
        'a subscriber, right password',
        { login: env('WP_SUBSCRIBER_LOGIN'), password: env('WP_SUBSCRIBER_PASSWORD') },
      ],
      ['a subscriber, wrong password', { login: env('WP_SUBSCRIBER_LOGIN'), password: 'wrong password' }],
      [
        'an author, right password, in the custom header',
        { login: env('WP_PLAIN_LOGIN'), password: env('WP_PLAIN_PASSWORD'), header: 'x-inkpress' },
      ],
      [
        'an administrator holding the role, right password',
        { login: env('WP_ROLE_ADMIN_LOGIN'), password: env('WP_ROLE_ADMIN_PASSWORD') },
      ],
      [
        'an administrator holding the role, its application password',
        { login: env('WP_ROLE_ADMIN_LOGIN'), password: env('WP_ROLE_ADMIN_APP_PASSWORD') },
      ],
      [
        'an editor holding the role, right password',
        { login: env('WP_ROLE_EDITOR_LOGIN'), password: env('WP_ROLE_EDITOR_PASSWORD') },
      ],
      ['an empty password', { login: env('WP_LOGIN'), password: '' }],
      ['a malformed custom header', undefined, { rawAuthorization: 'Basic not-base64!' }],
      ['no credentials at all', undefined],
    ];
    const answers: [string, number, string, string | null][] = [];
    for (const [label, credentials, init] of refused) {
      const answer = await call(STATUS, credentials, init);
      answers.push([label, answer.status, answer.body, answer.headers.get('content-type')]);
    }
    for (const [label, status, body, contentType] of answers) {
      expect([label, status, body, contentType]).toEqual([
        label,
        401,
        LOGIN_FAILED_BODY,
        'application/json; charset=UTF-8',
      ]);
    }
    // The same on the other routes and through ?rest_route=.
    const admin = { login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_PASSWORD') };
    for (const path of ['/?rest_route=/inkpress/v1/status', '/wp-json/inkpress/v1/categories']) {
      expect(await call(path, admin)).toMatchObject({ status: 401, body: LOGIN_FAILED_BODY });
    }
    expect(
      await call('/wp-json/inkpress/v1/posts', admin, {
        json: {
          article_uuid: 'b3a4c1e2-0000-4000-8000-000000000001',
          title: 'T',
          content: 'C',
          status: 'draft',
        },
      }),
    ).toMatchObject({ status: 401, body: LOGIN_FAILED_BODY });
  });

  it("checks every attempt through the site's own login hooks, and reports a refused right password as a failed login", async () => {
    await call(STATUS, { login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_PASSWORD') });
    await call(STATUS, { login: 'nobody-here', password: 'x' });
    expect(await call(STATUS, editor())).toMatchObject({ status: 200 });
    expect(authLog()).toEqual([
      `authenticate ${env('WP_ADMIN_LOGIN')}`,
      `wp_login_failed ${env('WP_ADMIN_LOGIN')}`,
      'authenticate nobody-here',
      'wp_login_failed nobody-here',
      `authenticate ${env('WP_LOGIN')}`,
    ]);
  });
});

describe('the login throttle', () => {
  it('answers the 6th attempt for a user from one address with 429 and Retry-After, whatever the password, without checking it', async () => {
    const subscriber = env('WP_SUBSCRIBER_LOGIN');
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await call(STATUS, { login: subscriber, password: `wrong ${attempt}` })).toMatchObject({
        status: 401,
        body: LOGIN_FAILED_BODY,
      });
    }
    const checkedBefore = authLog().filter((line) => line === `authenticate ${subscriber}`).length;
    expect(checkedBefore).toBe(5);

    for (const password of ['wrong 6', env('WP_SUBSCRIBER_PASSWORD')]) {
      const throttled = await call(STATUS, { login: subscriber, password });
      expect(throttled.status).toBe(429);
      const retryAfter = Number(throttled.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(JSON.parse(throttled.body)).toEqual({
        code: 'inkpress_throttled',
        message: 'Too many failed logins for this user from this address; try again later.',
        data: { status: 429, retry_after: retryAfter },
      });
    }
    // Spelling variants of the name share its failures.
    expect((await call(STATUS, { login: subscriber.toUpperCase(), password: 'x' })).status).toBe(429);
    // The throttled attempts never reached wp_authenticate.
    expect(authLog().filter((line) => line === `authenticate ${subscriber}`)).toHaveLength(checkedBefore);

    // Another user name from the same address is unaffected.
    expect(await call(STATUS, editor())).toMatchObject({ status: 200 });
    // The same user name from another address is checked as usual.
    expect(await call(STATUS, { login: subscriber, password: 'x', address: '198.51.100.7' })).toMatchObject({
      status: 401,
      body: LOGIN_FAILED_BODY,
    });
  });

  it('never locks the Inkpress user out from another address', async () => {
    const attacker = { login: env('WP_LOGIN'), password: 'guess', address: '203.0.113.9' };
    for (let attempt = 1; attempt <= 5; attempt++) expect((await call(STATUS, attacker)).status).toBe(401);
    expect((await call(STATUS, attacker)).status).toBe(429);
    // IPv6 addresses count per /64: the attacker's neighbour addresses are throttled too.
    const v6 = { ...attacker, address: '2001:db8:1:2::10' };
    for (let attempt = 1; attempt <= 5; attempt++) expect((await call(STATUS, v6)).status).toBe(401);
    expect((await call(STATUS, { ...v6, address: '2001:db8:1:2:ffff::1' })).status).toBe(429);

    expect(await call(STATUS, editor())).toMatchObject({ status: 200 });
    expect(await call(STATUS, { ...editor(), address: '2001:db8:1:3::10' })).toMatchObject({ status: 200 });
  });

  it('forgets the failures after a successful login', async () => {
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect((await call(STATUS, { ...editor(), password: 'typo' })).status).toBe(401);
    }
    expect((await call(STATUS, editor())).status).toBe(200);
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect((await call(STATUS, { ...editor(), password: 'typo' })).status).toBe(401);
    }
    expect((await call(STATUS, editor())).status).toBe(200);
  });
});

describe("the Inkpress user's real password", () => {
  it('opens the inkpress/v1 routes on REST requests, through either header and either URL form', async () => {
    for (const path of [STATUS, '/?rest_route=/inkpress/v1/status', '/wp-json/inkpress/v1/categories']) {
      for (const header of ['authorization', 'x-inkpress'] as const) {
        expect([path, header, (await call(path, { ...editor(), header })).status]).toEqual([
          path,
          header,
          200,
        ]);
      }
    }
  });

  it('opens nothing of the core REST API, and cannot mint an application password', async () => {
    const countAppPasswords = () =>
      Number(
        php(
          `echo count( WP_Application_Passwords::get_user_application_passwords( ${env('WP_EDITOR_USER_ID')} ) );`,
        ),
      );
    const before = countAppPasswords();
    for (const header of ['authorization', 'x-inkpress'] as const) {
      expect((await call('/wp-json/wp/v2/users/me', { ...editor(), header })).status).toBe(401);
      expect((await call('/?rest_route=/wp/v2/users/me', { ...editor(), header })).status).toBe(401);
      expect(
        (
          await call(
            '/wp-json/wp/v2/users/me/application-passwords',
            { ...editor(), header },
            { json: { name: 'stolen' } },
          )
        ).status,
      ).toBe(401);
      // A draft through core would bypass the plugin's rules.
      expect(
        (
          await call(
            '/wp-json/wp/v2/posts',
            { ...editor(), header },
            { json: { title: 'x', status: 'draft' } },
          )
        ).status,
      ).toBe(401);
    }
    expect(countAppPasswords()).toBe(before);
  });

  it('logs nobody in on a non-REST URL carrying a stray ?rest_route=', async () => {
    const ajax = (action: string, header: 'authorization' | 'x-inkpress') =>
      fetch(`${WP_URL}/wp-admin/admin-ajax.php?rest_route=/inkpress/v1/status`, {
        method: 'POST',
        headers: {
          [header === 'x-inkpress' ? 'X-Inkpress-Authorization' : 'Authorization']: basic(editor()),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ action, _nonce: 'x' }).toString(),
      });
    for (const header of ['authorization', 'x-inkpress'] as const) {
      // admin-ajax answers the heartbeat of a logged-in user with fresh nonces.
      const heartbeat = await ajax('heartbeat', header);
      expect(heartbeat.status).toBe(200);
      expect(await heartbeat.json()).toEqual({ 'wp-auth-check': false, server_time: expect.any(Number) });
      // An action that exists only for logged-in users is unknown to a visitor.
      const onlyForUsers = await ajax('sample-permalink', header);
      expect([onlyForUsers.status, await onlyForUsers.text()]).toEqual([400, '0']);

      const admin = await call('/wp-admin/?rest_route=/inkpress/v1/status', { ...editor(), header });
      expect([admin.status, admin.headers.get('location')]).toEqual([
        302,
        expect.stringContaining('/wp-login.php'),
      ]);
    }
  });
});

describe('application passwords', () => {
  it('keep working for the Inkpress user, on inkpress/v1 and, as WordPress intends, on the core API', async () => {
    for (const header of ['authorization', 'x-inkpress'] as const) {
      const answer = await call(STATUS, { ...editorApp(), header });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).user.login).toBe(env('WP_LOGIN'));
    }
    const me = await call('/wp-json/wp/v2/users/me', editorApp());
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).id).toBe(Number(env('WP_EDITOR_USER_ID')));
  });
});

describe('registration through Inkpress', () => {
  const register = (login: string, password: string, account = accountId) =>
    createWebsiteHandler(
      apiEvent('create-website', {
        accountId: account,
        ...multipartBody({ url: `${WP_URL}/`, login, password }),
      }),
    );
  const newAccount = async () =>
    (
      await createAccount(
        { accounts: deps.accountStore(), tokens: deps.tokenStore() },
        { name: 'Plugin security', credits: 0 },
      )
    ).account.accountId;
  const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

  it.each([
    ['an administrator holding the role', 'WP_ROLE_ADMIN_LOGIN', 'WP_ROLE_ADMIN_PASSWORD'],
    ['an editor holding the role', 'WP_ROLE_EDITOR_LOGIN', 'WP_ROLE_EDITOR_PASSWORD'],
    ['the administrator', 'WP_ADMIN_LOGIN', 'WP_ADMIN_PASSWORD'],
  ])('refuses %s (right password) with the message of any failed login', async (_label, login, password) => {
    const response = await register(env(login), env(password));
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({
      login: [LOGIN_FAILED_MESSAGE],
      password: [LOGIN_FAILED_MESSAGE],
    });
  });

  it('lets one account fail a login twice, never the five that make the site pause it', async () => {
    const account = await newAccount();
    // A user no other test of this file registers: Inkpress also counts 3 per site and user.
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect((await register(env('WP_SUBSCRIBER_LOGIN'), `wrong ${attempt}`, account)).statusCode).toBe(422);
    }
    const capped = await register(env('WP_SUBSCRIBER_LOGIN'), 'wrong 3', account);
    expect(body(capped).errors.login).toEqual([
      expect.stringMatching(/^The site refused this login \(or is checking it\) 2 times/),
    ]);
    // The site counted two failures: the right password still logs in (and is refused for its role).
    const right = await register(env('WP_SUBSCRIBER_LOGIN'), env('WP_SUBSCRIBER_PASSWORD'));
    expect(body(right).errors).toEqual({ login: [LOGIN_FAILED_MESSAGE], password: [LOGIN_FAILED_MESSAGE] });
  });

  it('lets 20 parallel registrations with wrong passwords and spellings of the login cost the site 2 failed logins at most; the right password works at once', async () => {
    const login = env('WP_LOGIN');
    const spellings = [
      login,
      login.toUpperCase(),
      ` ${login}`,
      `${login.slice(0, 2)}<b>${login.slice(2)}</b>`,
      `${login.slice(0, 2)}%41${login.slice(2)}`,
      `${login.slice(0, 2)}&amp;${login.slice(2)}`,
      login.replace(/e/g, 'é'),
    ];
    const account = await newAccount();

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        register(spellings[n % spellings.length] ?? login, `wrong ${n}`, account),
      ),
    );

    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(20).fill(422));
    expect(authLog().filter((line) => line.startsWith('wp_login_failed')).length).toBeLessThanOrEqual(2);
    // The site did not pause the login: its owner registers it, and the plugin lets it in.
    expect((await register(login, env('WP_PASSWORD'), await newAccount())).statusCode).toBe(201);
    expect((await call(STATUS, editor())).status).toBe(200);
  });

  it('refuses a login with a colon with a 422 on login, calling no site', async () => {
    const response = await register(`${env('WP_LOGIN')}:x`, env('WP_PASSWORD'));
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({ login: ['The login may not contain a colon (:).'] });
    expect(authLog()).toEqual([]);
  });

  it('says logins for the user are paused once the site throttles them (failures from elsewhere at our address)', async () => {
    // Inkpress itself stops at 3 failed logins per site and user (any account): five come from
    // another client at the same address.
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(
        (await call(STATUS, { login: env('WP_ROLE_ADMIN_LOGIN'), password: `wrong ${attempt}` })).status,
      ).toBe(401);
    }
    const response = await register(
      env('WP_ROLE_ADMIN_LOGIN'),
      env('WP_ROLE_ADMIN_PASSWORD'),
      await newAccount(),
    );
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({
      login: [
        expect.stringMatching(
          /^The site has paused logins for this user for now, after repeated failed logins: try again in 1?\d minutes?\.$/,
        ),
      ],
    });
  });
});

describe('the role', () => {
  const capabilities = () =>
    JSON.parse(php("echo wp_json_encode( get_role( 'inkpress_editor' )->capabilities );")) as Record<
      string,
      boolean
    >;

  it.each([
    ['1.0.0', "update_option( Inkpress_Role::VERSION_OPTION, '1.0.0' );"],
    // 1.1.0 (the blocks plugin) kept 1.0.0's role and stored no role version.
    ['1.1.0', 'delete_option( Inkpress_Role::VERSION_OPTION );'],
  ])('holds exactly the capabilities publishing uses, also after an upgrade from %s', (_version, stored) => {
    expect(capabilities()).toEqual({ read: true, edit_posts: true, publish_posts: true });
    // What the older plugin left on existing sites; the next load of WordPress (here the PHP
    // CLI boot that reads the capabilities) sets them right.
    php(
      `$role = get_role( 'inkpress_editor' ); $role->add_cap( 'upload_files' ); $role->add_cap( 'edit_published_posts' ); ${stored}`,
    );
    expect(capabilities()).toEqual({ read: true, edit_posts: true, publish_posts: true });
  });

  it('is enough to publish posts with categories, new tags, an excerpt and post meta', async () => {
    const result = JSON.parse(
      php(`
        wp_set_current_user( ${env('WP_EDITOR_USER_ID')} );
        $out = array();
        foreach ( array( 'publish', 'draft' ) as $status ) {
          $id = wp_insert_post( wp_slash( array(
            'post_type' => 'post', 'post_author' => get_current_user_id(), 'post_title' => 'Caps ' . $status,
            'post_content' => '<p>Body</p>', 'post_status' => $status, 'post_excerpt' => 'Summary',
            'post_category' => array( ${env('WP_CATEGORY_NEWS_ID')} ),
            'tax_input' => array( 'post_tag' => array( 'fresh tag ' . $status ) ),
            'meta_input' => array( '_inkpress_probe' => 'yes' ),
          ) ), true );
          $out[ $status ] = is_wp_error( $id ) ? $id->get_error_message() : array(
            'status' => get_post_status( $id ), 'tags' => wp_get_post_tags( $id, array( 'fields' => 'names' ) ),
            'categories' => wp_get_post_categories( $id ), 'excerpt' => get_post( $id )->post_excerpt,
            'meta' => get_post_meta( $id, '_inkpress_probe', true ),
          );
          wp_delete_post( $id, true );
        }
        echo wp_json_encode( $out );
      `),
    );
    for (const status of ['publish', 'draft']) {
      expect(result[status]).toEqual({
        status,
        tags: [`fresh tag ${status}`],
        categories: [Number(env('WP_CATEGORY_NEWS_ID'))],
        excerpt: 'Summary',
        meta: 'yes',
      });
    }
  });
});

describe('POST inkpress/v1/posts', () => {
  const post = (credentials: Credentials, articleUuid: string, content = '<p>Body</p>') =>
    call('/wp-json/inkpress/v1/posts', credentials, {
      json: { article_uuid: articleUuid, title: 'Scoped', content, status: 'draft' },
    });

  /** A second user with only the role (a second Inkpress account connecting the same site). */
  const second = () => {
    const credentials = { login: 'inkpress-second', password: 'second-inkpress-pass-1' };
    php(
      `if ( ! get_user_by( 'login', '${credentials.login}' ) ) { wp_insert_user( array( 'user_login' => '${credentials.login}', 'user_pass' => '${credentials.password}', 'user_email' => 'second@example.test', 'role' => 'inkpress_editor' ) ); }`,
    );
    return credentials;
  };

  it('is idempotent per user: another Inkpress user of the site gets its own post for the same article', async () => {
    const articleUuid = '3f0c2a8e-5b1d-4c6e-9a7f-0123456789ab';
    const first = await post(editor(), articleUuid);
    expect(first.status).toBe(201);
    const again = await post(editor(), articleUuid);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body).id).toBe(JSON.parse(first.body).id);

    const other = await post(second(), articleUuid);
    expect(other.status).toBe(201);
    expect(JSON.parse(other.body).id).not.toBe(JSON.parse(first.body).id);
    expect((await post(second(), articleUuid)).status).toBe(200);
  });

  it('GET posts/<uuid> reads only the post this user made; a query-string article_uuid changes nothing; no login, no read', async () => {
    const articleUuid = '5a2b3c4d-1e2f-4a3b-8c4d-5e6f7a8b9c0d';
    const made = await post(editor(), articleUuid);
    expect(made.status).toBe(201);
    const read = (credentials: Credentials | undefined, query = '') =>
      call(`/?rest_route=/inkpress/v1/posts/${articleUuid}${query}`, credentials);

    const own = await read(editor());
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body)).toMatchObject({ id: JSON.parse(made.body).id, created: false });
    // Another Inkpress user of the site: the same 404 as for an article nobody posted.
    const other = await read(second());
    expect([other.status, JSON.parse(other.body).code]).toEqual([404, 'inkpress_post_not_found']);
    const none = await call('/?rest_route=/inkpress/v1/posts/00000000-0000-4000-8000-000000000000', editor());
    expect([none.status, JSON.parse(none.body).code]).toEqual([404, 'inkpress_post_not_found']);
    // The route's own uuid is read, whatever the query string says (JSON only, no PHP notice).
    for (const query of ['&article_uuid=zzz', '&article_uuid[]=x']) {
      const answer = await read(editor(), query);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).id).toBe(JSON.parse(made.body).id);
    }
    expect((await read(undefined)).status).toBe(401);
    expect((await read({ ...editor(), password: 'wrong password' })).status).toBe(401);
    // A read creates nothing.
    expect(
      php(
        `echo count( get_posts( array( 'post_status' => 'any', 'meta_value' => '${articleUuid}', 'meta_key' => Inkpress_Rest::uuid_meta_key( ${env('WP_EDITOR_USER_ID')} ) ) ) );`,
      ),
    ).toBe('1');
  });

  it('finds a post that plugin 1.0.0 or 1.1.0 made for the same user (unscoped meta key), not for another', async () => {
    const articleUuid = '7d1e4b2a-9c3f-4a5e-8b6d-fedcba987654';
    const legacyId = Number(
      php(
        `echo wp_insert_post( array( 'post_type' => 'post', 'post_author' => ${env('WP_EDITOR_USER_ID')}, 'post_title' => 'Legacy', 'post_status' => 'draft', 'meta_input' => array( INKPRESS_CONNECTOR_UUID_META => '${articleUuid}' ) ) );`,
      ),
    );
    const answer = await post(editor(), articleUuid);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: legacyId, created: false });
    const other = await post(second(), articleUuid);
    expect(other.status).toBe(201);
    expect(JSON.parse(other.body).id).not.toBe(legacyId);
  });

  it('stores shortcodes from a content string (Inkpress before the structured post) as text that never runs', async () => {
    const answer = await post(
      editor(),
      'c0ffee00-1234-4abc-8def-000000000042',
      '<!-- wp:paragraph --><p>See [gallery ids="1,2"] and [embed]https://example.com/v[/embed]</p><!-- /wp:paragraph -->',
    );
    expect(answer.status).toBe(201);
    const id = JSON.parse(answer.body).id as number;
    const stored = php(`echo get_post( ${id} )->post_content;`);
    expect(stored).toBe(
      '<!-- wp:paragraph --><p>See &#091;gallery ids="1,2"&#093; and &#091;embed&#093;https://example.com/v&#091;/embed&#093;</p><!-- /wp:paragraph -->',
    );
    const rendered = php(`echo apply_filters( 'the_content', get_post( ${id} )->post_content );`);
    expect(rendered).not.toMatch(/gallery-|<iframe|wp-block-embed|class="gallery/);
    expect(rendered).toContain('&#091;gallery');
  });
  it('stores shortcodes of a structured post (headings, FAQ, text, excerpt) as text that never runs', async () => {
    const answer = await call('/wp-json/inkpress/v1/posts', editor(), {
      json: {
        article_uuid: 'c0ffee00-1234-4abc-8def-000000000043',
        title: 'Structured',
        intro_html: '<p>Intro [gallery ids="1,2"]</p>',
        sections: [
          {
            heading: 'Heading [gallery]',
            html: '<p>Text [audio src="x.mp3"]</p><ul><li>[gallery]</li></ul>',
          },
        ],
        faq: {
          heading: 'Questions [gallery]',
          items: [{ question: 'Why [gallery]?', answer: 'Because [gallery].' }],
        },
        excerpt: 'Summary [gallery]',
        status: 'draft',
      },
    });
    expect(answer.status).toBe(201);
    const id = JSON.parse(answer.body).id as number;
    const stored = JSON.parse(
      php(`$p = get_post( ${id} ); echo wp_json_encode( array( $p->post_content, $p->post_excerpt ) );`),
    ) as [string, string];
    expect(stored[0].replace(/<!--[\s\S]*?-->/g, '')).not.toMatch(/[[\]]/);
    for (const html of [
      '<p>Intro &#091;gallery ids="1,2"&#093;</p>',
      '<h2 class="wp-block-heading">Heading &#091;gallery&#093;</h2>',
      '<li>&#091;gallery&#093;</li>',
      '<h2 class="wp-block-heading">Questions &#091;gallery&#093;</h2>',
      '<h3 class="wp-block-heading">Why &#091;gallery&#093;?</h3>',
      '<p>Because &#091;gallery&#093;.</p>',
    ]) {
      expect(stored[0]).toContain(html);
    }
    expect(stored[1]).toBe('Summary &#091;gallery&#093;');
    // Even where a theme runs shortcodes in excerpts.
    const rendered = php(
      `add_filter( 'the_excerpt', 'do_shortcode' ); $p = get_post( ${id} ); echo apply_filters( 'the_content', $p->post_content ), apply_filters( 'the_excerpt', $p->post_excerpt );`,
    );
    expect(rendered).not.toMatch(/gallery-|<audio|class="gallery/);
    expect(rendered.match(/&#091;gallery/g)).toHaveLength(7);
  });

  it('shows each tag as the text sent, and leaves out a tag with no slug instead of attaching another tag', async () => {
    php("if ( ! term_exists( 'Alpha', 'post_tag' ) ) { wp_insert_term( 'Alpha', 'post_tag' ); }");
    const answer = await call('/wp-json/inkpress/v1/posts', editor(), {
      json: {
        article_uuid: 'c0ffee00-1234-4abc-8def-000000000044',
        title: 'Tagged',
        intro_html: '<p>Intro</p>',
        sections: [],
        // `"›` is what Inkpress leaves of `"><svg onload=…>`: sanitize_title() drops all of it.
        tags: ['"\u203A', '&lt;b&gt;bold', 'Tom & Jerry'],
        status: 'draft',
      },
    });
    expect(answer.status).toBe(201);
    const { id, site } = JSON.parse(answer.body) as { id: number; site: { tags: string[] } };
    expect([...site.tags].sort()).toEqual(['&lt;b&gt;bold', 'Tom & Jerry']);
    // As the site shows them (names are HTML): the text, not a `<b>` element, and no "Alpha".
    const shown = JSON.parse(
      php(
        `echo wp_json_encode( array_map( function ( $t ) { return esc_html( $t->name ); }, wp_get_post_tags( ${id} ) ) );`,
      ),
    ) as string[];
    expect([...shown].sort()).toEqual(['&amp;lt;b&amp;gt;bold', 'Tom &amp; Jerry']);
  });
});

describe('the settings page', () => {
  it('tells the logged-in site owner which Inkpress users hold too much power', async () => {
    const login = await fetch(`${WP_URL}/wp-login.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
      },
      body: new URLSearchParams({
        log: env('WP_ADMIN_LOGIN'),
        pwd: env('WP_ADMIN_PASSWORD'),
        testcookie: '1',
      }).toString(),
    });
    expect(login.status).toBe(302);
    const cookie = login.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const page = await fetch(`${WP_URL}/wp-admin/options-general.php?page=inkpress-connector`, {
      headers: { Cookie: cookie },
    });
    expect(page.status).toBe(200);
    const rows = [
      ...(await page.text()).matchAll(/<tr><td>([^<]+)<\/td><td>[^<]*<\/td><td>(.*?)<\/td><\/tr>/g),
    ].map((match) => [match[1], match[2]?.startsWith('Yes') ? 'yes' : (match[2] ?? '')]);
    expect(Object.fromEntries(rows)).toMatchObject({
      [env('WP_LOGIN')]: 'yes',
      [env('WP_ROLE_ADMIN_LOGIN')]: expect.stringMatching(
        /^<strong>No: this user has more power than the role<\/strong> \(unfiltered_html, manage_options, edit_users, promote_users/,
      ),
      [env('WP_ROLE_EDITOR_LOGIN')]: expect.stringMatching(
        /^<strong>No: this user has more power than the role<\/strong> \(unfiltered_html\)/,
      ),
    });
  });
});
