/**
 * Internal links: links from a new article to posts of its website, chosen from the website's
 * site index and placed by code, never taken on the model's word. Rules (docs/decisions.md):
 * - every link points to a post of the index that may be linked (published, not noindex, not
 *   the article itself); a link the model wrote to the site is removed, its text kept;
 * - candidates are chosen per part (introduction, each section, conclusion) by relevance to
 *   that part's own text: BM25 over each post's title, excerpt and focus keyword (minisearch);
 * - at most one link per target and per paragraph, only in paragraphs (never a heading, a list
 *   or the FAQ, which is not among the parts);
 * - the anchor is a phrase of the paragraph itself: the target's focus keyword or a run of 2-6
 *   words of its title, never a generic phrase ("click here"), never the article's own focus
 *   keyword, and no anchor twice;
 * - links are spread over the whole article: parts are visited round-robin, the first round in
 *   an order that spaces them evenly from the introduction to the conclusion.
 */
import MiniSearch from 'minisearch';
import { decodedText, escapeHtml } from '../text';
import { sameSiteHost } from '../websites/site-hosts';
import type { IndexedPost } from '../websites/site-index';
import type { QualityWarning } from './article-seo';
import { DEFAULT_INTERNAL_LINKS } from './internal-links-input';
import { comparableText, foldedText, isSeparatorWord, sameTopicPost, WORD_CHARACTER } from './same-topic';

/** A link placed in an article (article show's `internal_links`). */
export interface InternalLink {
  url: string;
  postId: string;
  /** Plain text of the anchor. */
  anchor: string;
}

/** Anchors that say nothing about their target, in the languages writers most often use. */
const GENERIC_ANCHORS = new Set(
  [
    'click here',
    'here',
    'this',
    'read more',
    'learn more',
    'more',
    'this article',
    'this post',
    'this page',
    'this guide',
    'link',
    'cliquez ici',
    'ici',
    'en savoir plus',
    'lire la suite',
    'hier klicken',
    'hier',
    'mehr',
    'weiterlesen',
    'haga clic aqui',
    'aqui',
    'leer mas',
    'clicca qui',
    'qui',
  ].map(comparableText),
);

/** Words an anchor does not start or end with (it would read as a fragment). */
const EDGE_WORDS = new Set(
  [
    'a',
    'an',
    'the',
    'and',
    'or',
    'of',
    'to',
    'in',
    'on',
    'for',
    'with',
    'by',
    'at',
    'from',
    'your',
    'our',
    'how',
    'what',
    'why',
    'is',
    'are',
    'le',
    'la',
    'les',
    'un',
    'une',
    'des',
    'de',
    'du',
    'et',
    'ou',
    'en',
    'pour',
    'der',
    'die',
    'das',
    'und',
    'oder',
    'mit',
    'el',
    'los',
    'las',
    'y',
    'con',
    'para',
  ].map(comparableText),
);

/** Words too common to say what a text is about: left out of the BM25 index and queries. */
const STOP_WORDS = new Set(
  [
    ...EDGE_WORDS,
    'it',
    'its',
    'this',
    'that',
    'these',
    'those',
    'be',
    'was',
    'were',
    'has',
    'have',
    'had',
    'do',
    'does',
    'can',
    'will',
    'you',
    'we',
    'they',
    'he',
    'she',
    'my',
    'me',
    'not',
    'no',
    'but',
    'if',
    'then',
    'so',
    'as',
    'all',
    'any',
    'more',
    'most',
    'about',
    'into',
    'than',
    'il',
    'elle',
    'est',
    'ce',
    'cette',
    'dans',
    'sur',
    'par',
    'ist',
    'ein',
    'eine',
    'es',
    'que',
    'por',
    'una',
  ].map(comparableText),
);

const MIN_ANCHOR_WORDS = 2;
const MAX_ANCHOR_WORDS = 6;
/** Candidates looked at per part, best first. */
const CANDIDATES_PER_PART = 12;

/** Posts a link may point to: not noindex, not the article's own post. */
export function linkTargets(posts: readonly IndexedPost[], own?: { url?: string }): IndexedPost[] {
  return posts.filter((post) => !post.noindex && (own?.url === undefined || post.url !== own.url));
}

/** The targets ranked by BM25 relevance to a text (title, excerpt and focus keyword of each). */
export class LinkCandidates {
  private readonly search: MiniSearch<IndexedPost>;
  private readonly byId: Map<string, IndexedPost>;

  constructor(targets: readonly IndexedPost[]) {
    this.byId = new Map(targets.map((post) => [post.postId, post]));
    this.search = new MiniSearch<IndexedPost>({
      idField: 'postId',
      fields: ['title', 'excerpt', 'focusKeyword'],
      processTerm: (term) => {
        const comparable = comparableText(term);
        return comparable.length > 1 && !STOP_WORDS.has(comparable) ? comparable : null;
      },
      searchOptions: { boost: { title: 2, focusKeyword: 3 }, combineWith: 'OR' },
    });
    this.search.addAll([...this.byId.values()]);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The most relevant targets for `text`, best first. */
  rank(text: string, limit = CANDIDATES_PER_PART): IndexedPost[] {
    if (this.byId.size === 0 || comparableText(text) === '') return [];
    return this.search
      .search(text)
      .slice(0, limit)
      .map((result) => this.byId.get(String(result.id)))
      .filter((post): post is IndexedPost => post !== undefined);
  }
}

/**
 * Topics of the site each part may mention (for the model's prompt), chosen by relevance to the
 * part's heading and the keyword, spread over the parts: a few more than the links asked for,
 * each post once.
 */
export function relatedTopics(candidates: LinkCandidates, partQueries: string[], links: number): string[][] {
  const related: string[][] = partQueries.map(() => []);
  if (links <= 0 || candidates.size === 0) return related;
  const wanted = Math.min(links + 2, partQueries.length * 2);
  // Each part's own matches first; then what matches the article as a whole.
  const whole = candidates.rank(partQueries.join(' '), wanted * 2);
  const ranked = partQueries.map((query) => [...candidates.rank(query, 5), ...whole]);
  const used = new Set<string>();
  for (let round = 0; round < 2; round++) {
    for (const index of spreadOrder(partQueries.length, links)) {
      if (used.size >= wanted) break;
      const next = ranked[index]?.find((post) => !used.has(post.postId));
      if (!next) continue;
      used.add(next.postId);
      related[index]?.push(next.title);
    }
  }
  return related;
}

export interface PlacedLinks {
  /** The parts with the links placed (and the model's links to the site removed). */
  parts: string[];
  links: InternalLink[];
  /** Links to the site the model wrote itself, removed (their text kept). */
  removed: number;
}

/**
 * Places up to `max` internal links in the parts' paragraphs (see the module comment) and
 * removes every link to the site the parts held before. `siteUrl` and the targets' URLs say
 * which links are the site's own.
 */
export function placeInternalLinks(
  parts: readonly string[],
  candidates: LinkCandidates,
  options: { max: number; siteUrl: string; targetHosts?: readonly string[]; ownFocusKeyword: string },
): PlacedLinks {
  const isInternal = internalHref(options.siteUrl, options.targetHosts ?? []);
  let removed = 0;
  const cleaned = parts.map((html) =>
    html.replace(LINK, (whole, href: string, inner: string) => {
      if (!isInternal(decodedText(href))) return whole;
      removed++;
      return inner;
    }),
  );
  const links: InternalLink[] = [];
  if (options.max <= 0 || candidates.size === 0) return { parts: cleaned, links, removed };

  const usedTargets = new Set<string>();
  const usedAnchors = new Set<string>([comparableText(options.ownFocusKeyword)]);
  const placed: { part: number; paragraph: number; link: InternalLink; start: number; end: number }[] = [];
  const paragraphs = cleaned.map(paragraphsOf);
  const ranked = cleaned.map((html) => candidates.rank(decodedText(html)));
  const linkedParagraphs = new Set<string>();

  const placeOne = (part: number): boolean => {
    for (const target of ranked[part] ?? []) {
      if (usedTargets.has(target.postId)) continue;
      const phrases = anchorPhrases(target).filter((phrase) => !usedAnchors.has(phrase));
      if (phrases.length === 0) continue;
      for (const [index, paragraph] of (paragraphs[part] ?? []).entries()) {
        if (linkedParagraphs.has(`${part}/${index}`) || /<a\b/i.test(paragraph.inner)) continue;
        for (const phrase of phrases) {
          const found = findPhrase(paragraph.inner, phrase);
          if (!found) continue;
          const anchor = decodedText(paragraph.inner.slice(found.start, found.end)).trim();
          if (anchor === '' || GENERIC_ANCHORS.has(comparableText(anchor))) continue;
          usedTargets.add(target.postId);
          usedAnchors.add(phrase);
          linkedParagraphs.add(`${part}/${index}`);
          placed.push({
            part,
            paragraph: index,
            link: { url: target.url, postId: target.postId, anchor },
            ...found,
          });
          return true;
        }
      }
    }
    return false;
  };

  for (let progress = true; progress && placed.length < options.max; ) {
    progress = false;
    for (const part of spreadOrder(cleaned.length, options.max)) {
      if (placed.length >= options.max) break;
      if (placeOne(part)) progress = true;
    }
  }

  const linkedParts = cleaned.map((html, part) => {
    const own = placed.filter((entry) => entry.part === part);
    if (own.length === 0) return html;
    const list = paragraphs[part] ?? [];
    let out = '';
    let from = 0;
    for (const [index, paragraph] of list.entries()) {
      const entry = own.find((candidate) => candidate.paragraph === index);
      if (!entry) continue;
      const inner = paragraph.inner;
      const linked = `${inner.slice(0, entry.start)}<a href="${escapeHtml(entry.link.url)}">${inner.slice(entry.start, entry.end)}</a>${inner.slice(entry.end)}`;
      out += html.slice(from, paragraph.innerStart) + linked;
      from = paragraph.innerStart + inner.length;
    }
    return out + html.slice(from);
  });
  // In reading order.
  placed.sort((a, b) => a.part - b.part || a.paragraph - b.paragraph);
  return { parts: linkedParts, links: placed.map((entry) => entry.link), removed };
}

const LINK = /<a\b[^>]*?\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi;
const PARAGRAPH = /<p(?:\s[^>]*)?>([\s\S]*?)<\/p>/gi;

/** Whether an href is a link to the site: relative (a path or query), or to its host (or a target's). */
function internalHref(siteUrl: string, targetHosts: readonly string[]): (href: string) => boolean {
  const hosts = new Set(targetHosts.map((host) => host.toLowerCase()));
  return (href) => {
    const trimmed = href.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return false;
    try {
      const url = new URL(trimmed, 'inkpress-relative://site/');
      if (url.protocol === 'inkpress-relative:') return true;
      return sameSiteHost(url.hostname, siteUrl) || hosts.has(url.hostname.toLowerCase());
    } catch {
      return false;
    }
  };
}

interface Paragraph {
  inner: string;
  /** Offset of `inner` in the part's HTML. */
  innerStart: number;
}

function paragraphsOf(html: string): Paragraph[] {
  const found: Paragraph[] = [];
  for (const match of html.matchAll(PARAGRAPH)) {
    const inner = match[1] ?? '';
    const innerStart = (match.index ?? 0) + match[0].indexOf('>') + 1;
    found.push({ inner, innerStart });
  }
  return found;
}

/** The phrases an anchor to `target` may be, comparable, longest first: its focus keyword, then runs of its title's words. */
export function anchorPhrases(target: Pick<IndexedPost, 'title' | 'focusKeyword'>): string[] {
  const phrases: string[] = [];
  const keyword = comparableText(target.focusKeyword);
  if (keyword.length >= 3 && !GENERIC_ANCHORS.has(keyword)) phrases.push(keyword);
  const words = comparableText(target.title)
    .split(' ')
    .filter((word) => word !== '');
  for (let length = Math.min(MAX_ANCHOR_WORDS, words.length); length >= MIN_ANCHOR_WORDS; length--) {
    for (let start = 0; start + length <= words.length; start++) {
      const run = words.slice(start, start + length);
      const first = run[0] ?? '';
      const last = run[run.length - 1] ?? '';
      if (EDGE_WORDS.has(first) || EDGE_WORDS.has(last)) continue;
      const phrase = run.join(' ');
      if (phrase.length < 6 || GENERIC_ANCHORS.has(phrase) || phrases.includes(phrase)) continue;
      phrases.push(phrase);
    }
  }
  return phrases;
}

/**
 * Where a comparable phrase occurs in a paragraph's HTML as whole words within one run of text
 * (never across a tag), as offsets of that HTML; entities count as the characters they stand for.
 */
export function findPhrase(html: string, phrase: string): { start: number; end: number } | undefined {
  const TAG_OR_TEXT = /(<[^>]*>)|([^<]+)/g;
  for (const run of html.matchAll(TAG_OR_TEXT)) {
    const text = run[2];
    if (text === undefined) continue;
    const base = run.index ?? 0;
    // Folded characters (as comparableText folds them), each with the raw offsets of what it came from.
    let folded = '';
    const foldedFrom: number[] = [];
    const foldedTo: number[] = [];
    const emit = (chars: string, start: number, end: number) => {
      for (const char of chars) {
        for (const piece of foldedText(char)) {
          const kept = WORD_CHARACTER.test(piece) ? piece : ' ';
          if (kept === ' ' && (folded === '' || folded.endsWith(' '))) continue;
          folded += kept;
          // One offset per UTF-16 unit: a letter outside the BMP is two.
          for (let unit = 0; unit < kept.length; unit++) {
            foldedFrom.push(start);
            foldedTo.push(end);
          }
        }
      }
    };
    for (let at = 0; at < text.length; ) {
      const entity = /^&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i.exec(text.slice(at, at + 12));
      if (entity) {
        emit(decodedText(entity[0]), base + at, base + at + entity[0].length);
        at += entity[0].length;
      } else {
        const char = String.fromCodePoint(text.codePointAt(at) ?? 32);
        emit(char, base + at, base + at + char.length);
        at += char.length;
      }
    }
    // Comparable text: the folded words without those comparableText leaves out ("+" alone).
    let comparable = '';
    const from: number[] = [];
    const to: number[] = [];
    for (const word of folded.matchAll(/[^ ]+/g)) {
      if (isSeparatorWord(word[0])) continue;
      const at = word.index ?? 0;
      if (comparable !== '') {
        comparable += ' ';
        from.push(foldedFrom[at - 1] ?? base);
        to.push(foldedTo[at - 1] ?? base);
      }
      comparable += word[0];
      from.push(...foldedFrom.slice(at, at + word[0].length));
      to.push(...foldedTo.slice(at, at + word[0].length));
    }
    for (let index = comparable.indexOf(phrase); index >= 0; index = comparable.indexOf(phrase, index + 1)) {
      const end = index + phrase.length;
      const startsWord = index === 0 || comparable[index - 1] === ' ';
      const endsWord = end === comparable.length || comparable[end] === ' ';
      if (startsWord && endsWord) return { start: from[index] ?? base, end: to[end - 1] ?? base };
    }
  }
  return undefined;
}

/**
 * The order parts are visited in: first `wanted` parts spaced evenly from the first to the last,
 * then the others in reading order.
 */
export function spreadOrder(count: number, wanted: number): number[] {
  if (count <= 0) return [];
  const first: number[] = [];
  const spots = Math.min(Math.max(wanted, 1), count);
  for (let index = 0; index < spots; index++) {
    const part = spots === 1 ? 0 : Math.round((index * (count - 1)) / (spots - 1));
    if (!first.includes(part)) first.push(part);
  }
  return [
    ...first,
    ...Array.from({ length: count }, (_, part) => part).filter((part) => !first.includes(part)),
  ];
}

/** The website an article is written for, as its generation sees it. */
export interface SiteForLinks {
  siteUrl: string;
  /** The site index; undefined when there is none (plugin before 1.5, or never read). */
  posts?: IndexedPost[];
}

export interface LinkPlan {
  siteUrl: string;
  candidates?: LinkCandidates;
  targetHosts: string[];
  /** Titles each part (introduction, sections, conclusion) may mention. */
  related: string[][];
  warnings: QualityWarning[];
}

/**
 * Before the parts are written: the topic check on the fresh index (a clash is a warning now,
 * not a failure), the candidates, and the topics each part may mention. Undefined without a
 * website.
 */
export function planSiteLinks(
  site: SiteForLinks | undefined,
  request: { internalLinks?: number; allowSameTopic?: boolean },
  topic: { focusKeyword: string; title: string },
  partQueries: string[],
): LinkPlan | undefined {
  if (site === undefined) return undefined;
  const links = linksWanted(request);
  if (site.posts === undefined) {
    return {
      siteUrl: site.siteUrl,
      targetHosts: [],
      related: partQueries.map(() => []),
      warnings: links > 0 || !request.allowSameTopic ? ['site_index_unavailable'] : [],
    };
  }
  const warnings: QualityWarning[] = [];
  if (!request.allowSameTopic && sameTopicPost(site.posts, topic)) warnings.push('same_topic_exists');
  const candidates = new LinkCandidates(linkTargets(site.posts));
  return {
    siteUrl: site.siteUrl,
    candidates,
    targetHosts: [...new Set(site.posts.map((post) => hostOf(post.url)).filter((host) => host !== ''))],
    related: relatedTopics(candidates, partQueries, links),
    warnings,
  };
}

/**
 * After the parts are written: the links placed (and the model's own links to the site removed,
 * whatever was asked). The warning for fewer links than asked is `linksShortWarning`, on the
 * links the final text still holds.
 */
export function linkParts(
  plan: LinkPlan,
  parts: readonly string[],
  request: { internalLinks?: number },
  ownFocusKeyword: string,
): { parts: string[]; links: InternalLink[]; warnings: QualityWarning[] } {
  const wanted = linksWanted(request);
  const placed = placeInternalLinks(parts, plan.candidates ?? new LinkCandidates([]), {
    max: plan.candidates ? wanted : 0,
    siteUrl: plan.siteUrl,
    targetHosts: plan.targetHosts,
    ownFocusKeyword,
  });
  return { parts: placed.parts, links: placed.links, warnings: [...plan.warnings] };
}

/**
 * `internal_links_fewer_than_requested` when the finished article holds fewer links than the
 * client asked for (told only when the client asked for a number: the default is a best effort).
 */
export function linksShortWarning(
  plan: LinkPlan,
  request: { internalLinks?: number },
  finalLinks: number,
): QualityWarning[] {
  const short =
    plan.candidates !== undefined && request.internalLinks !== undefined && finalLinks < linksWanted(request);
  return short ? ['internal_links_fewer_than_requested'] : [];
}

/** Links asked for: the create's `internal_links`, or DEFAULT_INTERNAL_LINKS (an article with a website). */
function linksWanted(request: { internalLinks?: number }): number {
  return request.internalLinks ?? DEFAULT_INTERNAL_LINKS;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}
