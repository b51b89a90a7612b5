/**
 * The login names Inkpress counts failed logins under (wordpress-login.ts) are the ones the
 * plugin's throttle counts: compared with WordPress's own sanitize_user + mb_strtolower (PHP,
 * Debian's WordPress 6.1) for every character up to U+2FFF, spelling variants, and 3,000 random
 * strings of the characters strip_tags and the entity and octet rules look at, in each locale
 * whose rules differ.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  type AccentLocale,
  throttledLoginName,
  throttledLoginNames,
} from '../../functions/core/websites/wordpress-login';

const SCRIPT = path.join(__dirname, '..', 'support', 'php', 'sanitize-user.php');

const wordpressNames = (locale: AccentLocale, logins: string[]): string[] =>
  JSON.parse(execFileSync('php', [SCRIPT, locale], { input: JSON.stringify(logins), encoding: 'utf8' }));

/** A fixed pseudo-random sequence, so that a failure can be reproduced. */
function* randomLogins(count: number): Generator<string> {
  const alphabet = [
    'a',
    'B',
    '<',
    '>',
    '!',
    '?',
    '-',
    "'",
    '"',
    ' ',
    '\t',
    '\\',
    '(',
    ')',
    'x',
    'm',
    'l',
    'e',
    '%',
    '4',
    'f',
    '&',
    ';',
    'É',
    'ß',
    'ø',
    '·',
    '/',
  ];
  let seed = 20261127;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let n = 0; n < count; n++) {
    let login = '';
    const length = 1 + (next() % 14);
    for (let i = 0; i < length; i++) login += alphabet[next() % alphabet.length];
    yield login;
  }
}

const logins = [
  'inkpress',
  ' InkPress ',
  'ínkpréss',
  'ink<b>press</b>',
  'ink <b>press',
  'ink<script>x</script>press',
  'ink%41press',
  'ink&amp;press',
  'ink   press',
  'ink\tpress',
  '<!-- x -->inkpress',
  'ink<?php x ?>press',
  'Straße',
  'Ærø',
  'Đorđe',
  'col·legi',
  'İstanbul',
  'ΣΑΣ',
  'e\u0301ditor',
  ...Array.from({ length: 0x3000 - 0x80 }, (_, n) => 0x80 + n)
    // U+1C89/U+1C8A, letters of Unicode 16 (2024), are newer than PHP 8.2's case tables.
    .filter((code) => code !== 0x1c89 && code !== 0x1c8a)
    .map((code) => `a${String.fromCodePoint(code)}b`),
  ...randomLogins(3000),
];

describe('login names as the plugin throttle counts them', () => {
  it.each(['en_US', 'de_DE', 'da_DK', 'ca', 'sr_RS'] as const)(
    'are WordPress sanitize_user + mb_strtolower (%s)',
    (locale) => {
      const expected = wordpressNames(locale, logins);
      const mismatches = logins
        .map((login, n) => ({ login, wordpress: expected[n], inkpress: throttledLoginName(login, locale) }))
        .filter(({ wordpress, inkpress }) => wordpress !== inkpress);
      expect(mismatches).toEqual([]);
    },
  );

  it('cover every locale, with and without composing decomposed accents, and the part of the login before a colon', () => {
    expect(throttledLoginNames(' InkPress ')).toEqual(['inkpress']);
    expect(throttledLoginNames('Jürgen').sort()).toEqual(['jurgen', 'juergen'].sort());
    expect(throttledLoginNames('e\u0301ditor').sort()).toEqual(['e\u0301ditor', 'editor'].sort());
    expect(throttledLoginNames('editor:password')).toEqual(['editor']);
  });
});
