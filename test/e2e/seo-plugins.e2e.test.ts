/**
 * SEO plugins get what they expect, on the real WordPress of test/e2e/wordpress/peer.sh with
 * stand-ins that make the plugin see each SEO plugin as active (the test site cannot install
 * them: no network; the stand-ins define each plugin's constant or class and, for Yoast SEO, Rank
 * Math and All in One SEO, print their schema graph through the filters those plugins document).
 * Posts go straight to the plugin's route. Checked: the SEO title (the article title cut at a
 * word, at most 60 characters), the description and the focus keyword where each plugin keeps
 * them (a comma in the keyword never makes two keywords where the field is a list); no second
 * meta description from the plugin's fallback; one Article and one FAQPage on the page, the
 * FAQPage in AIOSEO's graph; All in One SEO written through its own model when it is there, its
 * table otherwise, with no SHOW TABLES per request; `printed_by` null and nothing added when the
 * host's schema output is off; the plugin's strings through its text domain; passwords with
 * quotes and backslashes through both login headers and both ways WordPress hashes them.
 */
import { randomUUID } from 'node:crypto';
import { peer } from './support/wordpress-peer';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through npm run test:e2e (jest.e2e.config.js)`);
  return value;
};
const WP_URL = env('WP_URL');

const TITLE = 'Sourdough starter care: feeding schedules, flour choices and troubleshooting for beginners';
/** At most 60 characters, cut after the last whole word (and its trailing comma). */
const SEO_TITLE = 'Sourdough starter care: feeding schedules, flour choices and';
const FOCUS = 'paris, france';
const DESCRIPTION = 'How to keep a sourdough starter alive in Paris, France: feeding, flour and fixes.';

function wpJson<T>(code: string): T {
  return JSON.parse(peer('php-eval', code)) as T;
}

const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

interface Published {
  status: number;
  id: number;
  site: {
    seo: { adapter: string; meta_description: boolean; focus_keyword: boolean; title: boolean };
    schema: { printed_by: string | null; types: string[] };
  };
}

async function publish(): Promise<Published> {
  const response = await fetch(`${WP_URL}/wp-json/inkpress/v1/posts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: basic(env('WP_LOGIN'), env('WP_PASSWORD')),
    },
    body: JSON.stringify({
      article_uuid: randomUUID(),
      title: TITLE,
      status: 'publish',
      language: 'en',
      intro_html: '<p>Intro.</p>',
      sections: [{ heading: 'Feeding', html: '<p>Feed it daily.</p>' }],
      faq: { heading: 'FAQ', items: [{ question: 'How often?', answer: 'Daily.' }] },
      meta_description: DESCRIPTION,
      focus_keyword: FOCUS,
      tags: [],
    }),
  });
  const body = (await response.json()) as Omit<Published, 'status'>;
  expect(response.status).toBe(201);
  return { status: response.status, ...body };
}

function jsonLd(html: string): { scripts: string[]; nodes: Record<string, unknown>[] } {
  const matches = [...html.matchAll(/<script type="application\/ld\+json"([^>]*)>([\s\S]*?)<\/script>/g)];
  return {
    scripts: matches.map((match) => /class="([^"]*)"/.exec(match[1] ?? '')?.[1] ?? ''),
    nodes: matches.flatMap((match) => {
      const data = JSON.parse(match[2] ?? '{}');
      return (data['@graph'] ?? [data]) as Record<string, unknown>[];
    }),
  };
}

const page = async (id: number) => (await fetch(`${WP_URL}/?p=${id}`)).text();
const metaDescriptions = (html: string) => html.match(/<meta name="description"/g)?.length ?? 0;
const types = (nodes: Record<string, unknown>[], type: string) =>
  nodes.filter((node) => node['@type'] === type).length;

function setOptions(options: Record<string, string>): void {
  peer(
    'php-eval',
    Object.entries(options)
      .map(([name, value]) => `update_option(${JSON.stringify(name)}, ${JSON.stringify(value)});`)
      .join(' '),
  );
}

const PEER_OPTIONS = [
  'inkpress_peer_seo_stub',
  'inkpress_peer_schema_off',
  'inkpress_peer_aioseo_saved',
  'inkpress_peer_log_show_tables',
  'inkpress_peer_show_tables',
  'inkpress_peer_translate',
  'inkpress_connector_aioseo_table',
];

afterEach(() => {
  peer(
    'php-eval',
    `foreach (${JSON.stringify(PEER_OPTIONS).replace(/^\[/, 'array(').replace(/\]$/, ')')} as $o) { delete_option($o); } global $wpdb; $wpdb->query("DROP TABLE IF EXISTS {$wpdb->prefix}aioseo_posts");`,
  );
});

describe('SEO title, description and focus keyword where each SEO plugin keeps them', () => {
  // [adapter, description key, focus key, title key, focus as the plugin keeps it]
  const cases: [string, string | null, string | null, string | null, string][] = [
    ['yoast', '_yoast_wpseo_metadesc', '_yoast_wpseo_focuskw', '_yoast_wpseo_title', FOCUS],
    ['rank_math', 'rank_math_description', 'rank_math_focus_keyword', 'rank_math_title', 'paris france'],
    [
      'seopress',
      '_seopress_titles_desc',
      '_seopress_analysis_target_kw',
      '_seopress_titles_title',
      'paris france',
    ],
    ['the_seo_framework', '_genesis_description', null, '_genesis_title', ''],
    [
      'siteseo',
      '_siteseo_titles_desc',
      '_siteseo_analysis_target_kw',
      '_siteseo_titles_title',
      'paris france',
    ],
    ['slim_seo', 'slim_seo[description]', null, 'slim_seo[title]', ''],
    ['smartcrawl', '_wds_metadesc', '_wds_focus-keywords', '_wds_title', 'paris france'],
    ['jetpack', 'advanced_seo_description', null, 'jetpack_seo_html_title', ''],
    ['squirrly', null, null, null, ''],
  ];

  const metaOf = (id: number, key: string | null) => {
    if (key === null) return '';
    const field = /^([^[]+)\[([^\]]+)\]$/.exec(key);
    return wpJson<string>(
      field
        ? `$a = get_post_meta(${id}, '${field[1]}', true); echo wp_json_encode(is_array($a) ? (string) ($a['${field[2]}'] ?? '') : '');`
        : `echo wp_json_encode((string) get_post_meta(${id}, '${key}', true));`,
    );
  };

  it.each(cases)('%s', async (adapter, descriptionKey, focusKey, titleKey, focus) => {
    setOptions({ inkpress_peer_seo_stub: adapter });
    const { id, site } = await publish();
    expect(site.seo).toEqual({
      adapter,
      meta_description: descriptionKey !== null,
      focus_keyword: focusKey !== null,
      title: titleKey !== null,
    });
    expect(metaOf(id, descriptionKey)).toBe(descriptionKey === null ? '' : DESCRIPTION);
    expect(metaOf(id, focusKey)).toBe(focus);
    expect(metaOf(id, titleKey)).toBe(titleKey === null ? '' : SEO_TITLE);

    // The SEO plugin prints the description (from its storage or its own): ours would be a second one.
    const html = await page(id);
    expect(metaDescriptions(html)).toBe(0);
    const { scripts, nodes } = jsonLd(html);
    expect(scripts).toHaveLength(1);
    expect(types(nodes, 'Article')).toBe(1);
    expect(types(nodes, 'FAQPage')).toBe(1);
    expect(site.schema).toEqual({
      printed_by: adapter === 'yoast' || adapter === 'rank_math' ? adapter : 'inkpress',
      types: ['Article', 'FAQPage'],
    });
  });

  it('no SEO plugin: the plugin prints the one meta description, WordPress the post title', async () => {
    const { id, site } = await publish();
    expect(site.seo).toEqual({
      adapter: 'inkpress',
      meta_description: true,
      focus_keyword: true,
      title: false,
    });
    expect(metaDescriptions(await page(id))).toBe(1);
  });

  it('the SEO title is cut at a word, never past 60 characters', () => {
    const cut = wpJson<Record<string, string>>(`echo wp_json_encode(array(
      'long' => Inkpress_Seo::seo_title(${JSON.stringify(TITLE)}),
      'short' => Inkpress_Seo::seo_title('A short title'),
      'exact' => Inkpress_Seo::seo_title(str_repeat('abcd ', 11) . 'abcd z'),
      'word' => Inkpress_Seo::seo_title(str_repeat('x', 80)),
      'multibyte' => Inkpress_Seo::seo_title(str_repeat('Été ', 20)),
    ));`);
    expect(cut.long).toBe(SEO_TITLE);
    expect(cut.short).toBe('A short title');
    // 'abcd ' x 11 + 'abcd' is 59 characters, then ' z' would make 61.
    expect(cut.exact).toBe(`${'abcd '.repeat(11)}abcd`);
    expect(cut.word).toBe('x'.repeat(60));
    expect(cut.multibyte).toBe('Été '.repeat(15).trim());
  });
});

describe('All in One SEO', () => {
  const createTable = () =>
    peer(
      'php-eval',
      `global $wpdb; $wpdb->query("CREATE TABLE IF NOT EXISTS {$wpdb->prefix}aioseo_posts (id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, post_id bigint unsigned NOT NULL, title text, description text, keyphrases longtext, twitter_use_og tinyint(1) DEFAULT 0, created datetime NOT NULL, updated datetime NOT NULL)");`,
    );
  const rowOf = (id: number) =>
    wpJson<Record<string, string> | null>(
      `global $wpdb; echo wp_json_encode($wpdb->get_row($wpdb->prepare("SELECT title, description, keyphrases FROM {$wpdb->prefix}aioseo_posts WHERE post_id = %d", ${id}), ARRAY_A));`,
    );

  it('through its own Post model when it is there (no row written behind its back), the FAQPage in its graph', async () => {
    createTable();
    setOptions({ inkpress_peer_seo_stub: 'aioseo_model' });
    const { id, site } = await publish();
    const saved = wpJson<Record<string, Record<string, unknown>>>(
      "echo wp_json_encode(get_option('inkpress_peer_aioseo_saved'));",
    );
    expect(saved[String(id)]).toMatchObject({
      title: SEO_TITLE,
      description: DESCRIPTION,
      twitter_use_og: true,
    });
    expect(JSON.parse(String(saved[String(id)]?.keyphrases)).focus.keyphrase).toBe(FOCUS);
    expect(rowOf(id)).toBeNull();
    expect(site.seo).toEqual({ adapter: 'aioseo', meta_description: true, focus_keyword: true, title: true });
    expect(site.schema).toEqual({ printed_by: 'aioseo', types: ['Article', 'FAQPage'] });

    // One Article (AIOSEO's own) and our FAQPage inside its graph: no second graph of ours.
    const { scripts, nodes } = jsonLd(await page(id));
    expect(scripts).toEqual(['aioseo-schema']);
    expect(types(nodes, 'Article')).toBe(1);
    expect(types(nodes, 'FAQPage')).toBe(1);
  });

  it('its table without the model; whether the table exists is looked up once, not per request', async () => {
    createTable();
    setOptions({ inkpress_peer_seo_stub: 'aioseo', inkpress_peer_log_show_tables: '1' });
    const first = await publish();
    expect(first.site.seo).toEqual({
      adapter: 'aioseo',
      meta_description: true,
      focus_keyword: true,
      title: true,
    });
    const row = rowOf(first.id);
    expect(row).toMatchObject({ title: SEO_TITLE, description: DESCRIPTION });
    expect(JSON.parse(row?.keyphrases ?? '{}').focus.keyphrase).toBe(FOCUS);
    const afterFirst = Number(peer('php-eval', "echo (int) get_option('inkpress_peer_show_tables');"));
    expect(afterFirst).toBeLessThanOrEqual(1);

    // Later requests (a create with its read-back, a page view, the site index) run none.
    const second = await publish();
    await page(second.id);
    await fetch(`${WP_URL}/wp-json/inkpress/v1/index?per_page=5`, {
      headers: { authorization: basic(env('WP_LOGIN'), env('WP_PASSWORD')) },
    });
    expect(Number(peer('php-eval', "echo (int) get_option('inkpress_peer_show_tables');"))).toBe(afterFirst);
  });
});

describe('the host plugin prints no schema: nothing is added and printed_by says so', () => {
  it.each(['yoast', 'rank_math', 'aioseo'])('%s', async (adapter) => {
    setOptions({ inkpress_peer_seo_stub: adapter, inkpress_peer_schema_off: '1' });
    const { id, site } = await publish();
    expect(site.schema).toEqual({ printed_by: null, types: [] });
    expect(jsonLd(await page(id)).scripts).toEqual([]);
  });
});

describe('strings through the text domain', () => {
  it('errors and the settings page are translated where a translation exists', async () => {
    setOptions({ inkpress_peer_translate: '1' });
    const refused = await fetch(`${WP_URL}/wp-json/inkpress/v1/status`, {
      headers: { authorization: basic(env('WP_LOGIN'), 'wrong-password') },
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^\[xx\] Login failed/);
    const invalid = await fetch(`${WP_URL}/wp-json/inkpress/v1/posts`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: basic(env('WP_LOGIN'), env('WP_PASSWORD')),
      },
      body: JSON.stringify({ article_uuid: randomUUID(), title: '' }),
    });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { message: string }).message).toMatch(/^\[xx\] title is required/);

    // Every text of the settings page (user names and capability names aside) is translated.
    const html = peer(
      'php-eval',
      "require_once ABSPATH . 'wp-admin/includes/template.php'; ob_start(); Inkpress_Settings::render(); echo ob_get_clean();",
    );
    const texts = html
      .replace(/<code>[^<]*<\/code>/g, '')
      .replace(/<tr><td>[^<]*<\/td><td>[^<]*<\/td>/g, '<tr>')
      .replace(/\([a-z_, ]+\)\. /g, '')
      .split(/<[^>]+>/)
      .map((text) => text.trim())
      .filter((text) => /[A-Za-z]/.test(text) && !/^[.,]$/.test(text));
    expect(texts.length).toBeGreaterThan(8);
    expect(texts.filter((text) => !text.startsWith('[xx]'))).toEqual([]);
  });
});

describe('passwords with quotes and backslashes', () => {
  const PASSWORD_FORM = `Qu"ote'd pass-${randomUUID().slice(0, 6)}`;
  const PASSWORD_PHP = `Ba\\ck"sl'ash-${randomUUID().slice(0, 6)}`;
  let appPassword = '';

  beforeAll(async () => {
    // Set in a WordPress form would be the same: the REST API, like the profile screen, hashes
    // the password with the slashes wp_magic_quotes() adds (and refuses a backslash).
    const created = await fetch(`${WP_URL}/wp-json/wp/v2/users`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: basic(env('WP_ADMIN_LOGIN'), env('WP_ADMIN_APP_PASSWORD')),
      },
      body: JSON.stringify({
        username: 'quoteform',
        email: 'quoteform@example.test',
        password: PASSWORD_FORM,
        roles: ['inkpress_editor'],
      }),
    });
    expect(created.status).toBe(201);
    // Set from PHP (wp_set_password, WP-CLI): hashed as it is.
    appPassword = peer(
      'php-eval',
      `$id = wp_insert_user(array('user_login' => 'quotephp', 'user_email' => 'quotephp@example.test', 'user_pass' => 'x', 'role' => 'inkpress_editor'));
       wp_set_password(${JSON.stringify(PASSWORD_PHP).replace(/\$/g, '\\$')}, $id);
       echo WP_Application_Passwords::create_new_application_password($id, array('name' => 'quotes'))[0];`,
    ).trim();
  });

  const status = async (
    header: 'authorization' | 'x-inkpress-authorization',
    login: string,
    password: string,
  ) =>
    (
      await fetch(`${WP_URL}/wp-json/inkpress/v1/status`, {
        headers: { [header]: basic(login, password), 'x-peer-client-address': `198.51.100.${header.length}` },
      })
    ).status;

  it.each(['authorization', 'x-inkpress-authorization'] as const)('through %s', async (header) => {
    expect(await status(header, 'quoteform', PASSWORD_FORM)).toBe(200);
    expect(await status(header, 'quotephp', PASSWORD_PHP)).toBe(200);
    expect(await status(header, 'quotephp', appPassword)).toBe(200);
    expect(await status(header, 'quotephp', `${PASSWORD_PHP}x`)).toBe(401);
  });

  it('the password that works through Inkpress is the one wp-login.php takes', async () => {
    const login = await fetch(`${WP_URL}/wp-login.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
      },
      body: new URLSearchParams({ log: 'quoteform', pwd: PASSWORD_FORM, testcookie: '1' }).toString(),
    });
    expect(login.status).toBe(302);
    expect(login.headers.get('set-cookie') ?? '').toContain('wordpress_logged_in_');
  });
});
