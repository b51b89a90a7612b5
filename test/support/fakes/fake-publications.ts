/** The publication ports in memory, on the same article rows as the article store. */
import { errorText } from '../../../functions/core/articles/article-rules';
import type {
  ArticleRef,
  PublicationFailure,
  PublicationRetry,
  PublicationStore,
  PublishedPost,
  ScheduleCheck,
} from '../../../functions/core/publishing/ports';
import { type ArticleRow, copy, type InMemoryTables, key, type SweepKind } from './tables';

export class FakePublicationStore implements PublicationStore {
  constructor(private readonly tables: InMemoryTables) {}

  async listDue(dueBy: string, limit: number): Promise<ArticleRef[]> {
    return this.dueIn('publication', dueBy, limit);
  }

  private dueIn(kind: SweepKind, dueBy: string, limit: number): ArticleRef[] {
    return [...this.tables.articles.values()]
      .filter((row) => row.sweep?.kind === kind && row.sweep.at <= dueBy)
      .sort((a, b) => (a.sweep?.at ?? '').localeCompare(b.sweep?.at ?? ''))
      .slice(0, limit)
      .map(({ article }) => ({ accountId: article.accountId, articleUuid: article.articleUuid }));
  }

  async markPublished(ref: ArticleRef, post: PublishedPost): Promise<boolean> {
    const row = this.row(ref);
    const state = row?.article.publishState;
    if (!row || state === undefined || state === 'published') return false;
    const {
      publishError: _error,
      publishRetryAt: _retryAt,
      publishUncertainLogin: _uncertain,
      ...rest
    } = row.article;
    row.article = {
      ...rest,
      publishState: 'published',
      cmsId: post.cmsId,
      cmsPermalink: post.cmsPermalink,
      ...(post.publishedAt ? { publishedAt: post.publishedAt } : {}),
      ...(post.slug ? { slug: post.slug } : {}),
      ...(post.site ? { publicationSite: copy(post.site) } : {}),
    };
    row.sweep = post.confirmAt ? { kind: 'confirmation', at: post.confirmAt } : undefined;
    return true;
  }

  async listDueConfirmations(dueBy: string, limit: number): Promise<ArticleRef[]> {
    return this.dueIn('confirmation', dueBy, limit);
  }

  async recordScheduleCheck(ref: ArticleRef, check: ScheduleCheck): Promise<boolean> {
    const row = this.row(ref);
    if (row?.article.publishState !== 'published' || row.sweep?.kind !== 'confirmation') return false;
    const read = check.post ?? {};
    const { scheduleStillFuture: _still, ...rest } = row.article;
    row.article = {
      ...rest,
      scheduleChecks: check.checks,
      ...(read.cmsPermalink ? { cmsPermalink: read.cmsPermalink } : {}),
      ...(read.slug ? { slug: read.slug } : {}),
      ...(read.site ? { publicationSite: copy(read.site) } : {}),
      ...(read.publishedAt ? { publishedAt: read.publishedAt } : {}),
      ...(check.stillScheduled ? { scheduleStillFuture: true } : {}),
    };
    row.sweep = check.nextCheckAt ? { kind: 'confirmation', at: check.nextCheckAt } : undefined;
    return true;
  }

  async markAttempting(ref: ArticleRef, login: string): Promise<void> {
    const row = this.pending(ref);
    if (row && row.article.publishUncertainLogin === undefined) row.article.publishUncertainLogin = login;
  }

  async scheduleRetry(ref: ArticleRef, retry: PublicationRetry): Promise<boolean> {
    const row = this.pending(ref);
    if (!row) return false;
    Object.assign(row.article, {
      publishAttempts: retry.attempts,
      publishRetryAt: retry.nextAttemptAt,
      publishError: errorText(retry.lastError),
      ...(retry.uncertainLogin ? { publishUncertainLogin: retry.uncertainLogin } : {}),
    });
    if (retry.uncertainLogin === null) delete row.article.publishUncertainLogin;
    row.sweep = { kind: 'publication', at: retry.nextAttemptAt };
    return true;
  }

  async markFailed(ref: ArticleRef, failure: PublicationFailure): Promise<boolean> {
    const row = this.pending(ref);
    if (!row) return false;
    const { publishRetryAt: _retryAt, publishUncertainLogin: kept, ...rest } = row.article;
    const uncertainLogin =
      failure.uncertainLogin === undefined ? kept : (failure.uncertainLogin ?? undefined);
    row.article = {
      ...rest,
      publishState: 'failed',
      publishAttempts: failure.attempts,
      publishError: errorText(failure.lastError),
      publishFailedAt: failure.failedAt,
      ...(uncertainLogin ? { publishUncertainLogin: uncertainLogin } : {}),
    };
    row.sweep = undefined;
    return true;
  }

  async requeueFailed(ref: ArticleRef, dueAt: string): Promise<boolean> {
    const row = this.row(ref);
    if (row?.article.publishState !== 'failed') return false;
    const { publishFailedAt: _failedAt, publishError: _error, ...rest } = row.article;
    row.article = { ...rest, publishState: 'pending', publishAttempts: 0, publishRetryAt: dueAt };
    row.sweep = { kind: 'publication', at: dueAt };
    return true;
  }

  async makeDueForWebsite(accountId: string, websiteUuid: string, dueAt: string): Promise<number> {
    let moved = 0;
    for (const row of this.tables.articles.values()) {
      const { article, sweep } = row;
      if (article.accountId !== accountId || article.websiteUuid !== websiteUuid) continue;
      if (article.publishState !== 'pending' || sweep?.kind !== 'publication' || sweep.at <= dueAt) continue;
      sweep.at = dueAt;
      article.publishRetryAt = dueAt;
      moved++;
    }
    return moved;
  }

  private row(ref: ArticleRef): ArticleRow | undefined {
    return this.tables.articles.get(key(ref.accountId, ref.articleUuid));
  }

  private pending(ref: ArticleRef): ArticleRow | undefined {
    const row = this.row(ref);
    return row?.article.publishState === 'pending' ? row : undefined;
  }
}
