/**
 * The typed client at work, as clients/typescript/README.md shows it (a check keeps the two the
 * same). Run it from the repository root against `npm start` (on `PORT`, default 3000) or any
 * stack (`INKPRESS_URL`, its ApiUrl without the trailing slash):
 *   INKPRESS_TOKEN=ink_... npx tsx clients/typescript/example.ts
 */
import { createInkpressClient } from '.';

async function main(): Promise<void> {
  const token = process.env.INKPRESS_TOKEN;
  if (!token) throw new Error('Set INKPRESS_TOKEN to an API token (npm start prints one).');
  const baseUrl = process.env.INKPRESS_URL ?? `http://127.0.0.1:${process.env.PORT ?? '3000'}`;
  const inkpress = createInkpressClient({ baseUrl, token });

  const { data: queued, error } = await inkpress.POST('/v1/articles/create', {
    body: { keyword: 'trail running shoes', h2_count: 4, ai_model: 'gpt-3.5-turbo', language: 'en' },
  });
  if (error) throw new Error(error.message); // 4xx/5xx bodies are typed too
  console.log(queued.info);

  const { data: article } = await inkpress.GET('/v1/articles/{article_uuid}/show', {
    params: { path: { article_uuid: queued.article_uuid } },
  });
  console.log(article?.status); // 'generated' | 'in_progress' | ...

  const { data: account } = await inkpress.GET('/v1/account');
  console.log(account?.data.credits, account?.data.daily_remaining);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
