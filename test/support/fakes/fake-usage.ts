/** Daily starts and usage days in memory: what reservations and completions counted. */
import type { UsageDay, UsageStore } from '../../../functions/core/usage';
import { type InMemoryTables, key } from './tables';

export class FakeUsageStore implements UsageStore {
  constructor(private readonly tables: InMemoryTables) {}

  async listDays(accountId: string, from: string, to: string): Promise<UsageDay[]> {
    const days: UsageDay[] = [];
    for (const [dayKey, row] of this.tables.usageDays) {
      const [owner, day] = dayKey.split('/');
      if (owner !== accountId || day === undefined || day < from || day > to) continue;
      days.push({
        day,
        articlesGenerated: row.articlesGenerated,
        creditsUsed: row.creditsUsed,
        websites: [...row.websites].map(([websiteUuid, site]) => ({ websiteUuid, ...site })),
      });
    }
    return days.sort((a, b) => a.day.localeCompare(b.day));
  }

  async startedOn(accountId: string, day: string): Promise<number> {
    return this.tables.dailyStarts.get(key(accountId, day)) ?? 0;
  }
}
