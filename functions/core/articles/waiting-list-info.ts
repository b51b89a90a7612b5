/**
 * The `info` of a create answer: the article is on the waiting list, and, when it waits for
 * something rather than for the writer, for what and until when (a 202 alone does not say that an
 * account without credits will wait until credits are added).
 */
import type { AccountStore } from '../accounts';
import { nextUtcMidnight, toWireTime } from '../wire';
import type { Article } from './article';

export async function waitingListInfo(
  deps: { accounts: Pick<AccountStore, 'get'> },
  article: Pick<Article, 'accountId' | 'state' | 'estimatedCredits' | 'createdAt'>,
  articleUrl: string,
): Promise<string> {
  const follow = `Follow its progress at ${articleUrl}`;
  if (article.state !== 'not_enough_credits' && article.state !== 'daily_limit_reached') {
    return `The article is on the waiting list. ${follow}`;
  }
  // Read after the refused reservation: the balance and limit that refused it (or newer).
  const account = await deps.accounts.get(article.accountId);
  if (article.state === 'not_enough_credits') {
    const available = account ? `the account has ${account.credits}` : 'the account has fewer';
    return (
      `The article is on the waiting list but will not be generated yet: not enough credits (it needs ` +
      `${article.estimatedCredits}, ${available}). Nothing is charged; it starts when credits are ` +
      `added (or cancel it). ${follow}`
    );
  }
  const limit = account ? ` of ${account.dailyLimit} article${account.dailyLimit === 1 ? '' : 's'}` : '';
  const startsAt = toWireTime(nextUtcMidnight(new Date(article.createdAt)));
  return (
    `The article is on the waiting list but will not be generated today: the daily limit${limit} is ` +
    `reached. Nothing is charged yet; it starts at ${startsAt} UTC. ${follow}`
  );
}
