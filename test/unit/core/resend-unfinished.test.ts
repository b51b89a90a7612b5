import type { GenerationMessage } from '../../../functions/core/articles/ports';
import {
  type QueuedGeneration,
  resendUnfinishedGenerations,
} from '../../../functions/core/articles/resend-unfinished';

function queuedArticles(pages: QueuedGeneration[][], broken: string[] = []) {
  return {
    async *listQueuedGenerations() {
      for (const page of pages) yield page;
    },
    async breakLease(article: QueuedGeneration) {
      broken.push(article.articleUuid);
    },
  };
}

const message = (n: number): GenerationMessage => ({ accountId: `acc-${n % 3}`, articleUuid: `art-${n}` });

describe('resendUnfinishedGenerations', () => {
  it('sends one message per queued article, across every page', async () => {
    const sent: GenerationMessage[] = [];
    const pages = [Array.from({ length: 20 }, (_, n) => message(n)), [message(20), message(21)], []];

    const result = await resendUnfinishedGenerations(
      {
        articles: queuedArticles(pages),
        queue: { enqueue: async (sentMessage) => void sent.push(sentMessage) },
      },
      { leasesAreDead: false },
    );

    expect(result).toEqual({ resent: 22, failed: 0 });
    expect(sent).toEqual(pages.flat());
  });

  it('tries every article when some sends fail, and counts the failures', async () => {
    const sent: string[] = [];
    const result = await resendUnfinishedGenerations(
      {
        articles: queuedArticles([[message(1), message(2), message(3)]]),
        queue: {
          enqueue: async ({ articleUuid }) => {
            if (articleUuid === 'art-2') throw new Error('queue down');
            sent.push(articleUuid);
          },
        },
      },
      { leasesAreDead: false },
    );

    expect(result).toEqual({ resent: 2, failed: 1 });
    expect(sent).toEqual(['art-1', 'art-3']);
  });

  it('sends nothing when no article is queued', async () => {
    const enqueue = jest.fn();
    expect(
      await resendUnfinishedGenerations(
        { articles: queuedArticles([]), queue: { enqueue } },
        { leasesAreDead: true },
      ),
    ).toEqual({
      resent: 0,
      failed: 0,
    });
    expect(enqueue).not.toHaveBeenCalled();
  });

  it('ends the leases of a stopped process only when told they are dead', async () => {
    const leased = { accountId: 'acc', articleUuid: 'art-leased', leaseOwner: 'dead-worker' };
    const waiting = { accountId: 'acc', articleUuid: 'art-waiting' };
    for (const leasesAreDead of [false, true]) {
      const broken: string[] = [];
      const sent: string[] = [];
      await resendUnfinishedGenerations(
        {
          articles: queuedArticles([[leased, waiting]], broken),
          queue: { enqueue: async ({ articleUuid }) => void sent.push(articleUuid) },
        },
        { leasesAreDead },
      );
      expect(broken).toEqual(leasesAreDead ? ['art-leased'] : []);
      expect(sent).toEqual(['art-leased', 'art-waiting']);
    }
  });
});
