/**
 * The blocks the plugin builds are valid for the newest block library, not only for the
 * WordPress 6.1 of the test site: a post with every shape the plugin builds (paragraphs with
 * inline markup, headings of each level a section can hold, ordered, unordered and nested lists,
 * quotes of paragraphs, of bare text and of a list, tables with head, body and foot, wrappers,
 * the FAQ, the sources list, an inline image) is written through the plugin's route on the real
 * WordPress of test/e2e/wordpress/peer.sh, and its stored content is parsed by the newest
 * `@wordpress/blocks` with every core block of the newest `@wordpress/block-library` registered
 * (test/support/validate-blocks.cjs): no block is invalid and none needs a deprecation. The block
 * editor of the test site (WordPress 6.1, headless Chromium) opens the same post with no invalid
 * block.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import {
  allValidatedBlocks,
  type ValidatedBlock,
  validateWithBlockLibrary,
} from '../support/block-library-validation';
import { blocksTheEditorRefuses } from './support/block-editor';
import { peer } from './support/wordpress-peer';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through npm run test:e2e (jest.e2e.config.js)`);
  return value;
};
const WP_URL = env('WP_URL');

/** Every shape Inkpress_Blocks turns HTML into, and the parts it builds itself. */
const SECTIONS = [
  {
    heading: 'Paragraphs & inline [markup]',
    html:
      '<p>Text with <strong>bold</strong>, <em>emphasis</em>, <a href="https://example.com/a?b=1&amp;c=2">a link</a>, ' +
      '<code>code</code>, H<sub>2</sub>O, x<sup>2</sup>, <s>struck</s>, <mark>marked</mark>, <abbr title="Abbr">AB</abbr>, ' +
      '<small>small</small><br>and a line break; quotes "double" and \'single\', 3 &lt; 4 &amp; 5 &gt; 2, é ü 日本.</p>' +
      'A bare run of text with <b>bold</b> and <i>italic</i> between blocks.' +
      '<div><p>Inside a div.</p><section><p>Inside a section.</p></section></div><p></p>',
  },
  {
    heading: 'Headings of every level',
    html: '<h1>An H1 becomes an H3</h1><h2>An H2 too</h2><h3>Level 3</h3><h4>Level <em>4</em></h4><h5>Level 5</h5><h6>Level 6</h6>',
  },
  {
    heading: 'Lists',
    html:
      '<ul><li>One <strong>bold</strong></li><li>Two<ul><li>Nested a</li><li>Nested b<ol><li>Deeper</li></ol></li></ul></li><li><p>A paragraph in an item</p></li></ul>' +
      '<ol><li>First</li><li>Second with <a href="https://example.com/">a link</a></li></ol>',
  },
  {
    heading: 'Quotes',
    html:
      '<blockquote><p>A quoted paragraph.</p><p>And a second one with <em>emphasis</em>.</p></blockquote>' +
      '<blockquote>Bare quoted text.</blockquote>' +
      '<blockquote><ul><li>A list in a quote</li></ul></blockquote>',
  },
  {
    heading: 'Tables',
    html:
      '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>A &amp; B</td><td><strong>1</strong></td></tr>' +
      '<tr><td>C</td><td><a href="https://example.com/t">2</a></td></tr></tbody><tfoot><tr><td>Total</td><td>3</td></tr></tfoot></table>' +
      '<table><tr><td>Rows</td><td>without a tbody</td></tr></table>',
  },
];

async function publishEveryShape(): Promise<string> {
  const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } })
    .jpeg()
    .toBuffer();
  const response = await fetch(`${WP_URL}/wp-json/inkpress/v1/posts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${env('WP_LOGIN')}:${env('WP_PASSWORD')}`).toString('base64')}`,
    },
    body: JSON.stringify({
      article_uuid: randomUUID(),
      title: 'Every block shape',
      status: 'publish',
      language: 'en',
      intro_html: '<p>The introduction, with <a href="https://example.com/intro">a link</a>.</p>',
      sections: SECTIONS,
      faq: {
        heading: 'Frequently asked questions',
        items: [
          { question: 'Is it valid?', answer: 'Yes, & it says so.' },
          { question: 'What about [brackets]?', answer: 'They stay text.' },
        ],
      },
      sources: {
        heading: 'Sources',
        items: [
          { title: 'A source with a link', url: 'https://example.com/source?x=1&y=2' },
          { title: 'A source without one', url: null },
        ],
      },
      images: [
        {
          slot: 'inline-1',
          mime_type: 'image/jpeg',
          alt: 'A blue "square"',
          after_section: 0,
          data: image.toString('base64'),
        },
      ],
      tags: [],
    }),
  });
  const body = (await response.json()) as { id?: number; code?: string; message?: string };
  if (response.status !== 201 || !body.id) {
    throw new Error(`the plugin answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return String(body.id);
}

const summary = (block: ValidatedBlock) => ({
  name: block.name,
  valid: block.valid,
  current: block.current,
  issues: block.issues,
});

describe('blocks for the newest block library', () => {
  let cmsId = '';

  it('every block the plugin builds is valid and needs no deprecation', async () => {
    cmsId = await publishEveryShape();
    const content = peer('php-eval', `echo get_post(${Number(cmsId)})->post_content;`);
    const blocks = allValidatedBlocks(await validateWithBlockLibrary(content));

    // Every shape is there.
    const names = new Set(blocks.map((block) => block.name));
    for (const name of [
      'core/paragraph',
      'core/heading',
      'core/list',
      'core/list-item',
      'core/quote',
      'core/table',
      'core/image',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('core/freeform');
    expect(names).not.toContain('core/missing');

    expect(blocks.filter((block) => !block.valid || !block.current).map(summary)).toEqual([]);
  });

  it('the block editor of WordPress 6.1 opens the same post with no invalid block (headless Chromium)', async () => {
    expect(cmsId).not.toBe('');
    const [editor] = await blocksTheEditorRefuses(
      WP_URL,
      { login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_PASSWORD') },
      [cmsId],
    );
    expect(editor?.count).toBeGreaterThan(30);
    expect(editor?.bad).toEqual([]);
  });
});
