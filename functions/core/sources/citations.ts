/**
 * The link rules of an article, enforced in code after writing whatever the model did: an
 * external link must point to a source that was fetched (any other is removed, its text kept,
 * and counted); links to the article's own website are internal and left alone (the internal
 * links have their own rules). Also the sources section that ends the article.
 */
import { textToHtml } from '../html-safety';
import { safeText } from '../text';

/** A link as the sanitiser writes it: `<a href="...">` (or a bare `<a>`), never nested. */
const LINK = /<a(?: href="([^"]*)")?>([\s\S]*?)<\/a>/g;

/** The form two addresses are compared in: parsed, without the fragment; undefined when not http(s). */
export function comparableUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    parsed.hash = '';
    return parsed.href;
  } catch {
    return undefined;
  }
}

/** `href` as written in sanitised HTML, decoded. */
function hrefValue(attribute: string): string {
  return attribute
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The host of the article's website, as links compare it (`host[:port]`, lower case). */
export function siteHostOf(siteUrl: string | undefined): string | undefined {
  if (!siteUrl) return undefined;
  try {
    return new URL(siteUrl).host.toLowerCase();
  } catch {
    return undefined;
  }
}

export interface LinkRules {
  /** Comparable URLs (`comparableUrl`) of the sources that were fetched. */
  sources: ReadonlySet<string>;
  /** The article's website: links there are internal, not this module's to judge. */
  siteHost?: string;
}

export interface LinksChecked {
  html: string;
  /** External links removed (their text kept). */
  removed: number;
  /** Comparable URLs of the sources the HTML links to. */
  cited: Set<string>;
}

/** Whether an href is internal: relative, or to the website's own host. */
function isInternal(href: string, siteHost: string | undefined): boolean {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('//')) return true;
  if (siteHost === undefined) return false;
  try {
    return new URL(href).host.toLowerCase() === siteHost;
  } catch {
    return false;
  }
}

/** Removes every external link that is not to a fetched source (text kept); counts them. */
export function enforceSourceLinks(html: string, rules: LinkRules): LinksChecked {
  let removed = 0;
  const cited = new Set<string>();
  const checked = html.replace(LINK, (whole, rawHref: string | undefined, inner: string) => {
    if (rawHref === undefined) return inner;
    const href = hrefValue(rawHref);
    if (isInternal(href, rules.siteHost)) return whole;
    const comparable = comparableUrl(href);
    if (comparable !== undefined && rules.sources.has(comparable)) {
      cited.add(comparable);
      return whole;
    }
    removed++;
    return inner;
  });
  return { html: checked, removed, cited };
}

/** Every external link of an HTML fragment (internal ones left out), decoded. */
export function externalLinks(html: string, siteHost: string | undefined): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(LINK)) {
    const raw = match[1];
    if (raw === undefined) continue;
    const href = hrefValue(raw);
    if (!isInternal(href, siteHost)) links.push(href);
  }
  return links;
}

/** Drops the links to `dead` (comparable URLs) from HTML, keeping their text. */
export function dropLinks(html: string, dead: ReadonlySet<string>): string {
  return html.replace(LINK, (whole, rawHref: string | undefined, inner: string) => {
    if (rawHref === undefined) return whole;
    const comparable = comparableUrl(hrefValue(rawHref));
    return comparable !== undefined && dead.has(comparable) ? inner : whole;
  });
}

const SOURCES_HEADINGS: Readonly<Record<string, string>> = {
  ar: 'المصادر',
  cs: 'Zdroje',
  da: 'Kilder',
  de: 'Quellen',
  el: 'Πηγές',
  en: 'Sources',
  es: 'Fuentes',
  fi: 'Lähteet',
  fr: 'Sources',
  he: 'מקורות',
  hi: 'स्रोत',
  hu: 'Források',
  id: 'Sumber',
  it: 'Fonti',
  ja: '出典',
  ko: '출처',
  nl: 'Bronnen',
  no: 'Kilder',
  pl: 'Źródła',
  pt: 'Fontes',
  ro: 'Surse',
  ru: 'Источники',
  sk: 'Zdroje',
  sv: 'Källor',
  th: 'แหล่งที่มา',
  tr: 'Kaynaklar',
  uk: 'Джерела',
  vi: 'Nguồn',
  zh: '参考来源',
};

/** "Sources" in the article's language (English for an unknown code). */
export function sourcesHeading(language: string): string {
  return SOURCES_HEADINGS[language] ?? 'Sources';
}

/** A link to a source as article HTML (the URL encoded where HTML or WordPress would read it). */
export function sourceLinkHtml(source: { url: string; title: string }): string {
  const href = source.url.replace(/[[\]<>"'`\s]/g, (character) =>
    character === "'" ? '%27' : encodeURIComponent(character),
  );
  // Page titles are untrusted: plain text again here, whoever made them.
  return `<a href="${href.replace(/&/g, '&amp;')}">${textToHtml(safeText(source.title) || source.url)}</a>`;
}

/** The sources section: its H2, then a list of the sources used, title and link. */
export function sourcesSectionHtml(
  language: string,
  sources: readonly { url: string; title: string }[],
): string {
  const items = sources.map((source) => `<li>${sourceLinkHtml(source)}</li>`);
  return [`<h2>${textToHtml(sourcesHeading(language))}</h2>`, `<ul>${items.join('')}</ul>`].join('\n');
}

/** The items of a sources section's list: each title, and its URL while it has its link. */
export function sourceItems(sectionHtml: string): { title: string; url: string | null }[] {
  const items: { title: string; url: string | null }[] = [];
  for (const match of sectionHtml.matchAll(/<li>([\s\S]*?)<\/li>/g)) {
    const inner = match[1] ?? '';
    const link = /^\s*<a href="([^"]*)">([\s\S]*?)<\/a>\s*$/.exec(inner);
    const title = decodeText(link ? (link[2] ?? '') : inner);
    items.push({ title, url: link ? hrefValue(link[1] ?? '') : null });
  }
  return items;
}

/** Text of an HTML fragment we wrote (tags dropped, our escapes undone). */
function decodeText(html: string): string {
  return hrefValue(html.replace(/<[^>]*>/g, ''))
    .replace(/&#91;/g, '[')
    .trim();
}

/**
 * A part that had passages and cites none: a link to the first of them, added in code at the end
 * of its last paragraph (a paragraph of its own, labelled in the article's language, when it has none).
 */
export function withCitation(html: string, language: string, source: { url: string; title: string }): string {
  const end = html.lastIndexOf('</p>');
  if (end >= 0) return `${html.slice(0, end)} (${sourceLinkHtml(source)})${html.slice(end)}`;
  return `${html}\n<p>${textToHtml(sourcesHeading(language))}: ${sourceLinkHtml(source)}</p>`;
}
