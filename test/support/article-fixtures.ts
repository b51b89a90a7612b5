/** Seeds generated articles as the worker stores them (dense generatedSeq 1..n), fast. */
import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';

export function fixtureUuid(seq: number): string {
  return `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
}

/** Each article may be linked to a website and category (`link(seq)`), as the worker stores them. */
export async function seedGeneratedArticles(
  client: DynamoDBDocumentClient,
  tables: { articles: string; accounts: string },
  accountId: string,
  total: number,
  link: (seq: number) => { websiteUuid: string; categoryUuid?: string } | undefined = () => undefined,
): Promise<void> {
  for (let start = 1; start <= total; start += 25) {
    const requests = [];
    for (let seq = start; seq < Math.min(start + 25, total + 1); seq++) {
      requests.push({
        PutRequest: {
          Item: {
            accountId,
            articleUuid: fixtureUuid(seq),
            state: 'generated',
            keyword: `keyword ${seq}`,
            h2Count: 1,
            aiModel: 'gpt-3.5-turbo',
            language: 'en',
            needBold: false,
            draft: false,
            createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
            estimatedCredits: 2,
            creditsCharged: 2,
            generatedTitle: `Article ${seq}`,
            content: '<h2>One</h2><p>Text</p>',
            totalWords: 2,
            generatedSeq: seq,
            ...link(seq),
          },
        },
      });
    }
    await client.send(new BatchWriteCommand({ RequestItems: { [tables.articles]: requests } }));
  }
  await client.send(
    new UpdateCommand({
      TableName: tables.accounts,
      Key: { accountId },
      UpdateExpression: 'SET generatedCount = :total',
      ExpressionAttributeValues: { ':total': total },
    }),
  );
}
