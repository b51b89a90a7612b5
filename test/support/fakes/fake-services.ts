/**
 * In-memory stand-ins for what is not storage: the generation queue and a delivery of it, the
 * clock, the language model, the site (CMS) client and the password cipher.
 */
import { OfflineArticleModel } from '../../../functions/adapters/model/offline-article-model';
import type { ArticleModel, ArticleModelProvider } from '../../../functions/core/articles/article-model';
import type {
  GenerationDelivery,
  GenerationMessage,
  GenerationQueue,
} from '../../../functions/core/articles/ports';
import {
  type CmsCallOptions,
  type CmsCategory,
  type CmsClient,
  CmsError,
  type CmsPost,
  type CmsPostResult,
  type CmsStatus,
  type PublicationSite,
  type SiteAccess,
} from '../../../functions/core/websites/cms-client';
import type {
  LegacyPasswordContext,
  PasswordCipher,
  PasswordContext,
} from '../../../functions/core/websites/password-cipher';

/** Records every message; `failNext` makes the next sends throw (the queue is down). */
export class FakeGenerationQueue implements GenerationQueue {
  readonly sent: GenerationMessage[] = [];
  private failures = 0;

  failNext(count = 1): void {
    this.failures = count;
  }

  async enqueue(message: GenerationMessage): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('The queue is unavailable.');
    }
    this.sent.push({ ...message });
  }
}

/** One delivery of a generation message: remembers the delays it was asked back after. */
export class FakeDelivery implements GenerationDelivery {
  readonly retries: number[] = [];

  async retryAfter(delaySeconds: number): Promise<void> {
    this.retries.push(delaySeconds);
  }
}

/** A clock that moves only when told to. */
export class FakeClock {
  private now: number;

  constructor(start = '2026-03-01T10:00:00.000Z') {
    this.now = Date.parse(start);
  }

  /** The port (`Clock`): a fresh Date each call. */
  readonly clock = (): Date => new Date(this.now);

  advance(ms: number): void {
    this.now += ms;
  }

  set(iso: string): void {
    this.now = Date.parse(iso);
  }
}

/**
 * The offline writer behind the model port (deterministic, no network); `failNext` makes the
 * next articles' outline calls throw, like a provider that is down; `hangNext` makes them wait
 * until the attempt's signal aborts them (a provider that never answers). `signals` holds the
 * signal each attempt passed.
 */
export class FakeModelProvider implements ArticleModelProvider {
  readonly requested: string[] = [];
  readonly signals: (AbortSignal | undefined)[] = [];
  private failures = 0;
  private hangs = 0;
  private readonly writer = new OfflineArticleModel();

  failNext(count = 1): void {
    this.failures = count;
  }

  hangNext(count = 1): void {
    this.hangs = count;
  }

  async modelFor(aiModel: string, signal?: AbortSignal): Promise<ArticleModel> {
    this.requested.push(aiModel);
    this.signals.push(signal);
    const writer: ArticleModel = this.writer;
    const failing = this.failures > 0;
    if (failing) this.failures--;
    const hanging = !failing && this.hangs > 0;
    if (hanging) this.hangs--;
    return {
      providerModel: `fake-${aiModel}`,
      outline: async (...args) => {
        if (failing) throw new Error('The model provider is unavailable.');
        if (hanging) await untilAborted(signal);
        return writer.outline(...args);
      },
      write: (...args) => writer.write(...args),
      meta: (...args) => writer.meta(...args),
    };
  }
}

/** Never resolves; rejects with the signal's reason once it aborts. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A WordPress site with the plugin: one post per site user and article uuid (a repeated publish
 * by the same user returns the post made earlier, as the plugin's idempotency does; another
 * user makes its own), and scripted failures.
 */
export class FakeCmsClient implements CmsClient {
  /** By `<login, lower case>|<article uuid>`. */
  readonly posts = new Map<string, { post: CmsPost; result: CmsPostResult }>();
  readonly calls: {
    kind: 'status' | 'categories' | 'createPost' | 'readPost';
    site: SiteAccess;
    /** The time the caller gave the call (`CmsCallOptions.timeoutMs`), when it gave one. */
    timeoutMs?: number;
  }[] = [];
  /** Runs in each call before it answers (a test advances its clock: the time the call took). */
  spend: ((timeoutMs: number | undefined) => void) | undefined;
  /** Whether a read publishes a scheduled post (a site whose plugin 1.4 publishes it on the read). */
  publishDue = true;
  siteCategories: CmsCategory[] = [{ cmsId: '1', name: 'Uncategorized', slug: 'uncategorized' }];
  /**
   * When set, the site checks internal links as plugin 1.5.2 does: a link to one of these post
   * ids (no longer published) is dropped, the others kept; the answer carries the read-back.
   */
  unpublishedTargets: Set<string> | undefined;
  /** The time zone the status call reports, unchecked (undefined: none, as an old plugin). */
  siteTimezone: string | undefined;
  private readonly failures: (Error | null)[] = [];
  /**
   * When set, the post is made but the answer is lost (like a timeout after the site wrote it), or
   * replaced by this error (like a firewall's page about the site's answer).
   */
  loseNextAnswer: boolean | Error = false;

  /**
   * When set, every call hangs this long and then fails as unreachable, like a site that never
   * answers and the client's timeout ending the call.
   */
  hangMs: number | undefined;

  /** The next calls fail with these errors, in order (`null`: that call works). */
  failWith(...errors: (Error | null)[]): void {
    this.failures.push(...errors);
  }

  async status(site: SiteAccess, options?: CmsCallOptions): Promise<CmsStatus> {
    this.record('status', site, options);
    await this.hanging();
    return {
      userLogin: site.login,
      roles: ['inkpress_editor'],
      cmsVersion: '6.1',
      pluginVersion: '1.2.0',
      ...(this.siteTimezone !== undefined ? { timezone: this.siteTimezone } : {}),
    };
  }

  async categories(site: SiteAccess, options?: CmsCallOptions): Promise<CmsCategory[]> {
    this.record('categories', site, options);
    await this.hanging();
    return this.siteCategories.map((category) => ({ ...category }));
  }

  /** The first post made for an article, by any user. */
  postOf(articleUuid: string): { post: CmsPost; result: CmsPostResult } | undefined {
    return [...this.posts].find(([key]) => key.endsWith(`|${articleUuid}`))?.[1];
  }

  async createPost(site: SiteAccess, post: CmsPost): Promise<CmsPostResult> {
    this.record('createPost', site);
    await this.hanging();
    const key = `${site.login.toLowerCase()}|${post.articleUuid}`;
    const existing = this.posts.get(key);
    if (existing) return { ...existing.result, created: false };
    const id = String(100 + this.posts.size);
    const result: CmsPostResult = {
      cmsId: id,
      permalink: `${site.url}/?p=${id}`,
      status: post.status,
      slug: post.slug ?? null,
      dateGmt: post.dateGmt ?? null,
      created: true,
      ...(this.unpublishedTargets ? { site: this.linkCheck(id, post, this.unpublishedTargets) } : {}),
    };
    this.posts.set(key, { post: structuredClone(post), result });
    if (this.loseNextAnswer) {
      const lost = this.loseNextAnswer;
      this.loseNextAnswer = false;
      throw lost === true ? new Error('The answer was lost.') : lost;
    }
    return result;
  }

  /** The post this user made for the article, as it is now (`publishDue` makes due scheduled posts live, as plugin 1.4 does). */
  async readPost(site: SiteAccess, articleUuid: string): Promise<CmsPostResult | undefined> {
    this.record('readPost', site);
    await this.hanging();
    const stored = this.posts.get(`${site.login.toLowerCase()}|${articleUuid}`);
    if (!stored) return undefined;
    if (this.publishDue && stored.result.status === 'future') {
      stored.result = {
        ...stored.result,
        status: 'publish',
        permalink: `${site.url}/live-${stored.result.cmsId}/`,
      };
    }
    const { cmsId: postId, permalink: link, status } = stored.result;
    const readBack = { postId, link, status, blocks: 3, freeformBlocks: 0, tags: [], excerpt: true };
    const seo = { seoAdapter: 'inkpress', metaDescription: true, focusKeyword: true };
    const schema = { schemaBy: 'inkpress', schemaTypes: ['Article'], faqQuestions: 0 };
    return { ...stored.result, created: false, site: { ...readBack, ...seo, ...schema } };
  }

  /** The read-back of plugin 1.5.2 after its link check. */
  private linkCheck(postId: string, post: CmsPost, unpublished: Set<string>): PublicationSite {
    const links = post.internalLinks ?? [];
    const dropped = links.filter((link) => unpublished.has(link.postId));
    return {
      postId,
      link: `https://example.com/?p=${postId}`,
      status: post.status,
      blocks: 3,
      freeformBlocks: 0,
      tags: [],
      excerpt: true,
      seoAdapter: 'inkpress',
      metaDescription: true,
      focusKeyword: true,
      schemaBy: 'inkpress',
      schemaTypes: ['Article'],
      faqQuestions: 0,
      internalLinksKept: links.length - dropped.length,
      internalLinksDropped: dropped.length,
      internalLinksDroppedUrls: dropped.map((link) => link.url),
    };
  }

  private async hanging(): Promise<void> {
    if (this.hangMs === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, this.hangMs));
    throw new CmsError('unreachable', 'The site did not answer in time.');
  }

  private record(
    kind: 'status' | 'categories' | 'createPost' | 'readPost',
    site: SiteAccess,
    options?: CmsCallOptions,
  ): void {
    this.calls.push({
      kind,
      site: { ...site },
      ...(options?.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    this.spend?.(options?.timeoutMs);
    const failure = this.failures.shift();
    if (failure) throw failure;
  }
}

/**
 * Encryption bound to its context, like KMS with an EncryptionContext: decrypting under any
 * other context fails. The "ciphertext" is readable, which tests may use to look inside.
 */
export class FakePasswordCipher implements PasswordCipher {
  async encrypt(password: string, context: PasswordContext): Promise<string> {
    return Buffer.from(JSON.stringify({ password, context: contextKey(context) })).toString('base64');
  }

  async decrypt(ciphertext: string, context: PasswordContext | LegacyPasswordContext): Promise<string> {
    const sealed = JSON.parse(Buffer.from(ciphertext, 'base64').toString('utf8')) as {
      password: string;
      context: string;
    };
    if (sealed.context !== contextKey(context)) throw new Error('InvalidCiphertextException');
    return sealed.password;
  }
}

function contextKey(context: PasswordContext | LegacyPasswordContext): string {
  const { accountId, websiteUuid } = context;
  return JSON.stringify(
    'url' in context ? { accountId, websiteUuid, url: context.url } : { accountId, websiteUuid },
  );
}
