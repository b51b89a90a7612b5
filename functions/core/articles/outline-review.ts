/**
 * Outline review (`outline_review=1` on create): the article is charged as usual, its generation
 * stops after the outline in state `outline_ready` (webhook event `article.outline_ready`), and
 * the client approves it with its own title and exactly `h2_count` headings
 * (`POST /v1/articles/{uuid}/outline`: generation goes on with exactly those), cancels it
 * (`POST .../cancel`: refunded), or lets it expire after `OUTLINE_REVIEW_DAYS` (the sweeper
 * cancels and refunds it). Every move out of `outline_ready` is one conditional write on that
 * state: of an approve, a cancel and the expiry, exactly one wins, so an article is never both
 * generated and refunded, and refunded at most once.
 */
import * as z from 'zod/mini';
import { ConflictError, ValidationError } from '../errors';
import { formPlainText, formText, parseOrThrow } from '../schema-helpers';
import type { Article } from './article';
import type { Outline } from './article-model';
import { BannedPhrases } from './banned-phrases';
import { MAX_TITLE_LENGTH } from './create-article-input';
import { sendForGeneration } from './generation-messages';
import { SEND_GRACE_MS } from './lifecycle-policy';
import { plainTextFromMarkdown } from './markdown-cleanup';
import type { Clock, GenerationDispatch, GenerationQueue, OutlineReviews } from './ports';
import { findArticle, type ReadArticlesDeps, showArticle } from './read-articles';

export const MAX_HEADING_LENGTH = 200;

const characterCount = (text: string) => [...text].length;

/** A heading as titles are: plain text (markup dropped, entities decoded once), not empty. */
const headingText = z.pipe(
  formPlainText('headings', { lineBreaks: true }),
  z.transform((heading: string) => plainTextFromMarkdown(heading)),
);

let built: ReturnType<typeof buildApprovalSchema> | undefined;

/** The body of `POST /v1/articles/{uuid}/outline` (h2_count and banned phrases are checked against the article after). */
export function approvalSchema() {
  built ??= buildApprovalSchema();
  return built;
}

function buildApprovalSchema() {
  return z.object({
    title: z.pipe(
      z.pipe(
        formPlainText('title', { lineBreaks: true }),
        z.transform((title: string) => plainTextFromMarkdown(title)),
      ),
      z.string().check(
        z.minLength(1, { error: 'The title field is required.', abort: true }),
        z.refine((title: string) => characterCount(title) <= MAX_TITLE_LENGTH, {
          error: `The title may not be longer than ${MAX_TITLE_LENGTH} characters.`,
        }),
      ),
    ),
    headings: z.pipe(
      z.pipe(
        z.union([formText('headings', { lineBreaks: true }), z.array(z.unknown())], {
          error: 'The headings must be a list of texts, or one text with a heading per line.',
        }),
        z.transform((value: string | unknown[]) =>
          Array.isArray(value)
            ? value
            : value
                .split(/\r\n|\r|\n/)
                .map((line) => line.trim())
                .filter((line) => line !== ''),
        ),
      ),
      z.array(headingText).check(
        z.refine((headings: string[]) => headings.every((heading) => heading !== ''), {
          error: 'Each heading must have text.',
          abort: true,
        }),
        z.refine(
          (headings: string[]) => headings.every((heading) => characterCount(heading) <= MAX_HEADING_LENGTH),
          {
            error: `Each heading may be at most ${MAX_HEADING_LENGTH} characters long.`,
          },
        ),
      ),
    ),
  });
}

/** The approved outline from the request body, checked against the article: exactly `h2_count` headings, no banned phrase. */
export function parseApproval(article: Article, fields: Record<string, unknown>): Outline {
  const { title, headings } = parseOrThrow(approvalSchema(), normalisedFields(fields));
  if (headings.length !== article.h2Count) {
    throw ValidationError.forField(
      'headings',
      `The outline must have exactly ${article.h2Count} headings (the article's h2_count); ${headings.length} given.`,
    );
  }
  const banned = new BannedPhrases(article.siteProfile?.bannedPhrases ?? [], article.language);
  const errors: Record<string, string[]> = {};
  const inTitle = banned.foundIn(title);
  if (inTitle.length > 0)
    errors.title = [`The title uses a banned phrase of the website: ${inTitle.join(', ')}.`];
  const inHeadings = [...new Set(headings.flatMap((heading) => banned.foundIn(heading)))];
  if (inHeadings.length > 0) {
    errors.headings = [`A heading uses a banned phrase of the website: ${inHeadings.join(', ')}.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { title, headings };
}

/** `headings[]` (repeated form fields) is `headings`. */
function normalisedFields(fields: Record<string, unknown>): Record<string, unknown> {
  if (!('headings[]' in fields)) return fields;
  const { 'headings[]': list, ...rest } = fields;
  return { ...rest, headings: rest.headings ?? list };
}

export interface ApproveOutlineDeps extends ReadArticlesDeps {
  articles: ReadArticlesDeps['articles'] & Pick<OutlineReviews, 'approveOutline'> & GenerationDispatch;
  queue: GenerationQueue;
  clock: Clock;
}

/**
 * Approves the outline of an article in `outline_ready` with the client's title and headings and
 * sends it back to generation. The same approval sent again (a retried request) answers the
 * article as it is; any other state is a 409.
 */
export async function approveOutline(
  deps: ApproveOutlineDeps,
  accountId: string,
  articleUuid: string,
  fields: Record<string, unknown>,
) {
  const article = await findArticle(deps, accountId, articleUuid);
  if (article.state !== 'outline_ready' && article.outlineApproved !== true) throw notAwaiting(article);
  const outline = parseApproval(article, fields);
  const now = deps.clock();
  const sendBy = new Date(now.getTime() + SEND_GRACE_MS).toISOString();
  const approved =
    article.state === 'outline_ready' &&
    (await deps.articles.approveOutline(article, outline, now.toISOString(), sendBy));
  if (approved) {
    await sendForGeneration(deps, article, now);
  } else {
    // Approved, cancelled or expired meanwhile (or before): only this same approval is answered.
    const current = (await deps.articles.get(accountId, article.articleUuid)) ?? article;
    if (!sameApproval(current, outline)) throw notAwaiting(current);
  }
  return showArticle(deps, accountId, article.articleUuid);
}

/** Whether the article was approved with this outline. */
function sameApproval(article: Article, outline: Outline): boolean {
  if (article.state === 'cancelled' || article.outlineApproved !== true || !article.outline) return false;
  return (
    article.outline.title === outline.title &&
    article.outline.headings.length === outline.headings.length &&
    article.outline.headings.every((heading, index) => heading === outline.headings[index])
  );
}

function notAwaiting(article: Article): ConflictError {
  const where =
    article.state === 'cancelled'
      ? 'was cancelled'
      : article.outlineApproved
        ? 'was approved with another outline already'
        : article.outlineReview
          ? 'has no outline to approve yet'
          : 'was not created with outline_review';
  return new ConflictError(`Only an outline in status outline_ready can be approved; this article ${where}.`);
}

export interface ExpireOutlinesDeps {
  articles: Pick<OutlineReviews, 'listExpiredOutlines' | 'expireOutline'>;
  clock: Clock;
}

/** Articles handled per sweep; the rest wait for the next run. */
export const OUTLINE_SWEEP_BATCH = 100;

/** Cancels and refunds the outlines not approved in time (each once, whatever runs at the same time). */
export async function expireOutlines(deps: ExpireOutlinesDeps): Promise<{ expired: number }> {
  const now = deps.clock().toISOString();
  const due = await deps.articles.listExpiredOutlines(now, OUTLINE_SWEEP_BATCH);
  let expired = 0;
  for (const article of due) {
    if (await deps.articles.expireOutline(article, now)) expired++;
  }
  return { expired };
}
