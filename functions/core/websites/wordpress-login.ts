/**
 * What a WordPress site makes of a login Inkpress sends, so that Inkpress counts its failed logins
 * exactly where the plugin's throttle (Inkpress_Throttle) does: HTTP Basic cuts the credentials
 * at the first `:`, the plugin applies WordPress's `sanitize_user` and lowercases the result
 * (`mb_strtolower`), and counts failures per result and client address. Spelling variants of one
 * user (`Editor`, ` editor`, `édítor`, `edi<b>tor`, `edi%41tor`) are one login to it, and so
 * must they be to Inkpress.
 *
 * `remove_accents` (inside `sanitize_user`) depends on the site's locale (German, Danish,
 * Catalan, Serbian and Bosnian spell a few letters out) and on PHP's intl extension (decomposed
 * accents are composed first only when it is loaded); Inkpress knows neither, so a login gets
 * every spelling a site could make of it (usually one), and each is counted.
 */
import { REMOVE_ACCENTS } from './wordpress-accents';

/** The locale rules of `remove_accents` on top of its table (WordPress 6.1). */
const LOCALE_ACCENTS = {
  en_US: {},
  // de_DE, de_CH, ... (every locale starting `de`)
  de_DE: { Ä: 'Ae', ä: 'ae', Ö: 'Oe', ö: 'oe', Ü: 'Ue', ü: 'ue', ß: 'ss' },
  da_DK: { Æ: 'Ae', æ: 'ae', Ø: 'Oe', ø: 'oe', Å: 'Aa', å: 'aa' },
  ca: { l·l: 'll' },
  // and bs_BA
  sr_RS: { Đ: 'DJ', đ: 'dj' },
} satisfies Record<string, Readonly<Record<string, string>>>;

export type AccentLocale = keyof typeof LOCALE_ACCENTS;

/** True when HTTP Basic can carry the login: the site reads the login up to the first `:`. */
export function fitsHttpBasic(login: string): boolean {
  return !login.includes(':');
}

/**
 * Every name the plugin's throttle could count this login under (usually one): `login` cut at
 * `:` as HTTP Basic does, through `sanitize_user` and `mb_strtolower`, for each locale rule and
 * with and without the intl extension's composition.
 */
export function throttledLoginNames(login: string): string[] {
  // What reaches the site: the login up to the first `:`, as UTF-8 (lone surrogates replaced).
  const sent = Buffer.from(login.split(':')[0] ?? '', 'utf8').toString('utf8');
  const names = new Set<string>();
  for (const composed of new Set([sent, sent.normalize('NFC')])) {
    for (const locale of Object.keys(LOCALE_ACCENTS) as AccentLocale[]) {
      names.add(throttledLoginName(composed, locale));
    }
  }
  return [...names];
}

/** `mb_strtolower( sanitize_user( $login ) )` on a site in `locale` (PHP without intl). */
export function throttledLoginName(login: string, locale: AccentLocale): string {
  return lowercase(sanitizeUser(login, LOCALE_ACCENTS[locale]));
}

/** WordPress's `sanitize_user( $login )` (not strict), with `remove_accents` for `locale`'s rules. */
function sanitizeUser(login: string, locale: Readonly<Record<string, string>>): string {
  let name = phpTrim(stripTags(login.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '')));
  name = removeAccents(name, locale);
  name = name.replace(/%[a-fA-F0-9]{2}/g, '');
  name = name.replace(/&[^\n]+?;/g, '');
  return phpTrim(name).replace(/[ \t\n\v\f\r]+/g, ' ');
}

function removeAccents(text: string, locale: Readonly<Record<string, string>>): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is what the function leaves alone
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  let result = text;
  for (const [from, to] of Object.entries(locale)) {
    if (from.length > 1) result = result.split(from).join(to);
  }
  return Array.from(result, (char) => locale[char] ?? REMOVE_ACCENTS[char] ?? char).join('');
}

/** PHP's `mb_strtolower` (PHP 8.2: each character on its own, no final-sigma rule). */
function lowercase(text: string): string {
  return Array.from(text, (char) => char.toLowerCase()).join('');
}

/** PHP's `trim`: spaces, tabs, line breaks, NUL and vertical tabs at both ends. */
function phpTrim(text: string): string {
  return text.replace(/^[ \t\n\r\0\v]+|[ \t\n\r\0\v]+$/g, '');
}

const isSpace = (char: string | undefined) => char !== undefined && /^[ \t\n\v\f\r]$/.test(char);

/**
 * PHP's `strip_tags` without allowed tags: text outside tags stays; a `<` followed by a space is
 * text; tags (with quoted `>` inside), `<!...>`, comments `<!-- -->` and `<? ... ?>` go, and so
 * does everything after a tag left open.
 */
function stripTags(input: string): string {
  type State = 'text' | 'tag' | 'php' | 'bang' | 'comment';
  let state: State = 'text';
  let out = '';
  let depth = 0;
  let quote = '';
  // The last character that matters inside a `<? ?>` block (a quote or `(`).
  let phpLast = '';
  let parens = 0;
  for (let i = 0; i < input.length; i++) {
    const c = input[i] as string;
    const before = input[i - 1];
    if (c === '\0') continue;
    if (c === '<') {
      if (quote) continue;
      if (state === 'text') {
        if (isSpace(input[i + 1])) out += c;
        else state = 'tag';
      } else if (state === 'tag' && !isSpace(input[i + 1])) depth++;
      continue;
    }
    if (c === '>') {
      if (depth) {
        depth--;
        continue;
      }
      if (quote) continue;
      if (state === 'tag' || state === 'bang') {
        state = 'text';
      } else if (state === 'php') {
        if (parens === 0 && phpLast !== '"' && before === '?') {
          state = 'text';
          quote = '';
        }
      } else if (state === 'comment') {
        if (before === '-' && input[i - 2] === '-') state = 'text';
      } else out += c;
      continue;
    }
    if (c === '"' || c === "'") {
      if (state === 'comment') continue;
      if (state === 'php' && before !== '\\') {
        if (phpLast === c) phpLast = '';
        else if (phpLast !== '\\') phpLast = c;
      } else if (state === 'text') out += c;
      if (state !== 'text' && (state === 'tag' || before !== '\\') && (!quote || c === quote)) {
        quote = quote ? '' : c;
      }
      continue;
    }
    if (c === '(' || c === ')') {
      if (state === 'php') {
        if (phpLast !== '"' && phpLast !== "'") {
          if (c === '(') {
            phpLast = '(';
            parens++;
          } else if (parens) parens--;
        }
      } else if (state === 'text') out += c;
      continue;
    }
    if (c === '!' && state === 'tag' && before === '<') {
      state = 'bang';
      continue;
    }
    if (c === '-' && state === 'bang' && before === '-' && input[i - 2] === '!') {
      state = 'comment';
      continue;
    }
    if (c === '?' && state === 'tag' && before === '<') {
      parens = 0;
      state = 'php';
      continue;
    }
    if ((c === 'e' || c === 'E') && state === 'bang' && /doctyp$/i.test(input.slice(Math.max(0, i - 6), i))) {
      state = 'tag';
      continue;
    }
    if ((c === 'l' || c === 'L') && state === 'php' && /^<\?xm$/i.test(input.slice(Math.max(0, i - 4), i))) {
      state = 'tag';
      continue;
    }
    if (state === 'text') out += c;
  }
  return out;
}
