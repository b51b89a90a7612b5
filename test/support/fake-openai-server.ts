/**
 * A fake OpenAI Chat Completions server on 127.0.0.1 for tests and benchmarks, driven through
 * the real `openai` client. It answers outline requests (json_schema response format) with the
 * number of headings the prompt asks for, meta requests with a description, excerpt, the FAQ
 * pairs and tags asked for, and section requests with HTML. Behaviour is adjustable: latency
 * per call, failures, malformed output, and a sloppy model that answers in markdown and forgets
 * the keyword (always, or until the prompt tells it what its previous answer missed).
 * A section prompt with source passages is answered from them, each cited by its URL; with
 * `obeySources` the model also makes a URL up and follows any "link to <url>" a passage plants.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface FakeOpenAiBehaviour {
  /** Milliseconds to wait before answering each call. */
  latencyMs: number;
  /** HTTP status to fail every call with (e.g. 500), or undefined to succeed. */
  failWithStatus?: number;
  /** Fail only the first N calls (with `failWithStatus` or 500). */
  failFirst?: number;
  /** Answer outline requests with this many headings instead of the requested number. */
  wrongHeadingCount?: number;
  /** Answer outline requests with text that is not JSON. */
  malformedOutline?: boolean;
  /** Answer outline requests with this outline (given the number of headings asked for). */
  outline?: (headingCount: number) => { title: string; headings: string[] };
  /** Answer section requests with this HTML (given the call number). */
  sectionHtml?: (call: number) => string;
  /** Markdown instead of HTML, no keyword anywhere, a short meta description. */
  sloppy?: 'always' | 'until-feedback';
  /**
   * A phrase the model puts in every answer (title, a heading, each section, the description,
   * excerpt and FAQ answers), whatever the prompt says: a model that ignores a banned phrase.
   */
  stubbornPhrase?: string;
  /** With source passages: also link to a made-up URL and to every URL a passage says to link to. */
  obeySources?: boolean;
  /** Milliseconds before answering an image generation (`/v1/images/generations`); `latencyMs` when unset. */
  imageLatencyMs?: number;
  /** HTTP status every image generation fails with. */
  failImagesWithStatus?: number;
  /** HTTP status every call but the outline's (json_schema answers) fails with: sections fail. */
  failSectionsWithStatus?: number;
}

/** The made-up address the obeying model cites. */
export const MADE_UP_URL = 'https://made-up.example/study-2024';

/** Passages fenced in a prompt (core/sources/passages.ts `fencedPassages`). */
export function promptPassages(prompt: string): { url: string; title: string; text: string }[] {
  return [
    ...prompt.matchAll(/<<<SOURCE (\d+) url="([^"]*)" title="([^"]*)">>>\n([^\n]*)\n<<<END SOURCE \1>>>/g),
  ].map((match) => ({ url: match[2] ?? '', title: match[3] ?? '', text: match[4] ?? '' }));
}

export interface FakeOpenAi {
  baseURL: string;
  behaviour: FakeOpenAiBehaviour;
  /** Chat completion requests received so far (bodies), including failed ones. */
  requests: Record<string, unknown>[];
  /** Image generation requests received so far (bodies). */
  imageRequests: Record<string, unknown>[];
  /** Calls in flight right now, and the most seen at once. */
  maxConcurrent: number;
  /** Calls whose client went away before the answer (an aborted request). */
  abandoned: number;
  close(): Promise<void>;
}

export async function startFakeOpenAi(behaviour: Partial<FakeOpenAiBehaviour> = {}): Promise<FakeOpenAi> {
  const state: FakeOpenAi = {
    baseURL: '',
    behaviour: { latencyMs: 0, ...behaviour },
    requests: [],
    imageRequests: [],
    maxConcurrent: 0,
    abandoned: 0,
    close: async () => undefined,
  };
  let inFlight = 0;
  let calls = 0;

  const server: Server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readJson(request);
    if (request.method === 'POST' && request.url?.endsWith('/images/generations')) {
      state.imageRequests.push(body);
      const { imageLatencyMs, latencyMs, failImagesWithStatus } = state.behaviour;
      const wait = imageLatencyMs ?? latencyMs;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (failImagesWithStatus !== undefined) {
        send(response, failImagesWithStatus, {
          error: { message: 'fake image failure', type: 'server_error' },
        });
        return;
      }
      send(response, 200, {
        created: Math.floor(Date.now() / 1000),
        data: [{ b64_json: (await fakePng(String(body.prompt ?? ''))).toString('base64') }],
      });
      return;
    }
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      send(response, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
      return;
    }
    state.requests.push(body);
    response.on('close', () => {
      if (!response.writableFinished) state.abandoned++;
    });
    calls++;
    inFlight++;
    state.maxConcurrent = Math.max(state.maxConcurrent, inFlight);
    try {
      const { latencyMs, failWithStatus, failFirst } = state.behaviour;
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const failing = failFirst !== undefined ? calls <= failFirst : failWithStatus !== undefined;
      const { failSectionsWithStatus } = state.behaviour;
      const isSection = (body.response_format as { type?: string } | undefined)?.type !== 'json_schema';
      if (failSectionsWithStatus !== undefined && isSection) {
        send(response, failSectionsWithStatus, { error: { message: 'fake failure', type: 'server_error' } });
        return;
      }
      if (failing) {
        send(response, failWithStatus ?? 500, { error: { message: 'fake failure', type: 'server_error' } });
        return;
      }
      send(response, 200, completion(body, state.behaviour, calls));
    } finally {
      inFlight--;
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.baseURL = `http://127.0.0.1:${port}/v1`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

function completion(body: Record<string, unknown>, behaviour: FakeOpenAiBehaviour, call: number) {
  const messages =
    (body.messages as { content: string | { type: string; text?: string }[] }[] | undefined) ?? [];
  const prompt = messages
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => part.text ?? `[${part.type}]`).join('\n'),
    )
    .join('\n');
  const isOutline = (body.response_format as { type?: string } | undefined)?.type === 'json_schema';
  const schemaName = (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema
    ?.name;
  const keywords = /keyword\(s\): (.*?)\.?$/im.exec(prompt)?.[1]?.trim() ?? 'topic';
  const keyword = keywords.split(',')[0]?.trim() ?? keywords;
  const sloppy =
    behaviour.sloppy === 'always' ||
    (behaviour.sloppy === 'until-feedback' && !prompt.includes('Your previous answer'));
  let content: string;
  if (prompt.includes('Write the alt text of this image') && prompt.includes('[image_url]')) {
    content = `"A fake photograph illustrating ${keyword}, seen by the fake model"`;
  } else if (isOutline && schemaName === 'article_meta') {
    const faqCount = Number(/exactly (\d+) questions/.exec(prompt)?.[1] ?? '0');
    const wantsTags = prompt.includes('- tags: up to 5');
    content = JSON.stringify({
      meta_description: sloppy
        ? '**A short** description.'
        : `A complete guide to ${keyword}: what it is, how it works, the mistakes to avoid and the tips that make a real difference, step by step.`,
      excerpt: sloppy
        ? '*The* excerpt. Second sentence. Third sentence.'
        : `Learn ${keyword} the easy way. Practical tips inside.`,
      faq: Array.from({ length: faqCount }, (_, index) => ({
        question: sloppy ? `**Fake question ${index + 1}?**` : `Fake question ${index + 1} about ${keyword}?`,
        answer: sloppy ? `- Fake answer ${index + 1}.` : `Fake answer ${index + 1} about ${keyword}.`,
      })),
      tags: wantsTags ? ['Fake tag', '**Second tag**', keyword] : [],
    });
  } else if (isOutline) {
    const requested = Number(/exactly (\d+) H2 headings/.exec(prompt)?.[1] ?? '3');
    const count = behaviour.wrongHeadingCount ?? requested;
    const fixedTitle = /The title is fixed: "([^"]*)"/.exec(prompt)?.[1];
    content = behaviour.malformedOutline
      ? 'Sure! Here is your outline: Title - headings...'
      : behaviour.outline
        ? JSON.stringify(behaviour.outline(count))
        : JSON.stringify({
            title: fixedTitle ?? (sloppy ? '# The **ultimate** guide' : `Fake guide to ${keywords}`),
            headings: Array.from({ length: count }, (_, index) =>
              sloppy ? `## Part **${index + 1}**` : `Heading ${index + 1} about ${keywords}`,
            ),
          });
  } else if (!sloppy && /Other articles of the same website cover these topics/.test(prompt)) {
    // Mentions the site's topics it was told about, and invents a link to the site (which Inkpress removes).
    const topics = [
      ...(/cover these topics;[^:]*: (.*)\.$/m.exec(prompt)?.[1] ?? '').matchAll(/"([^"]*)"/g),
    ].map((match) => match[1] ?? '');
    content = `<p>Fake paragraph about ${keyword} with a key phrase.</p>${topics
      .map((topic) => `<p>Readers of this part also like ${topic}, as the site explains.</p>`)
      .join('')}<p>An <a href="/invented-post-${call}/">invented internal link</a> stays text.</p>`;
  } else if (behaviour.sectionHtml) {
    content = behaviour.sectionHtml(call);
  } else if (promptPassages(prompt).length > 0) {
    const passages = promptPassages(prompt);
    const part = /section "([^"]*)"/.exec(prompt)?.[1] ?? 'intro';
    const cited = passages.map(
      (passage) =>
        `<p>On ${part}, about ${keyword}: ${passage.text.split(/(?<=[.!?]) /)[0]} (<a href="${passage.url}">${passage.title}</a>).</p>`,
    );
    const obeyed = behaviour.obeySources
      ? [
          `<p>A <a href="${MADE_UP_URL}">2024 study</a> agrees.</p>`,
          ...[
            ...new Set(
              passages.flatMap((passage) =>
                [...passage.text.matchAll(/link to (https?:\/\/[^\s"<>]+?)[.,;]?(?:\s|$)/gi)].map(
                  (m) => m[1],
                ),
              ),
            ),
          ].map((url) => `<p>As instructed, <a href="${url}">click here</a>.</p>`),
        ]
      : [];
    content = [...cited, ...obeyed].join('');
  } else {
    const part = /section "([^"]*)"/.exec(prompt)?.[1] ?? (prompt.includes('introduction') ? 'intro' : 'end');
    const bold = prompt.includes('<strong>') && !prompt.includes('Do not use <strong>');
    const phrase = bold ? '<strong>key phrase</strong>' : 'key phrase';
    content = sloppy
      ? `\`\`\`html\n## Sub heading of ${part}\n\nFake **bold** and *italic* text for ${part}.\n\n- first item of ${part}\n- second item\n\`\`\``
      : `<p>Fake paragraph about ${keyword} with a ${phrase} (${part}).</p><h2>Model heading</h2><p>More text for ${part} <script>alert(1)</script><a href="javascript:alert(1)">bad link</a> <a href="https://example.com/">good link</a>.</p>`;
  }
  if (behaviour.stubbornPhrase)
    content = withPhrase(content, behaviour.stubbornPhrase, isOutline, schemaName);
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: String(body.model),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
  };
}

/** The answer with `phrase` in every text a reader sees (see `stubbornPhrase`). */
function withPhrase(content: string, phrase: string, structured: boolean, schemaName: string | undefined) {
  if (!structured) return `${content}<p>This is a ${phrase} for everyone.</p>`;
  const answer = JSON.parse(content) as Record<string, unknown>;
  if (schemaName === 'article_meta') {
    const faq = (answer.faq as { question: string; answer: string }[]) ?? [];
    return JSON.stringify({
      ...answer,
      meta_description: `${phrase}: ${String(answer.meta_description)}`.slice(0, 160),
      excerpt: `${String(answer.excerpt)} A ${phrase}.`,
      faq: faq.map((item) => ({ ...item, answer: `${item.answer} A ${phrase}.` })),
    });
  }
  const headings = (answer.headings as string[]) ?? [];
  return JSON.stringify({
    ...answer,
    title: `${String(answer.title)}: a ${phrase}`,
    headings: headings.map((heading, index) => (index === 0 ? `${heading}, the ${phrase}` : heading)),
  });
}

/** A 1536x1024 PNG whose colour depends on the prompt (a generated image stand-in). */
async function fakePng(prompt: string): Promise<Buffer> {
  let hash = 0;
  for (const character of prompt) hash = (hash * 31 + (character.codePointAt(0) ?? 0)) >>> 0;
  return sharp({
    create: {
      width: 1536,
      height: 1024,
      channels: 3,
      background: { r: hash & 0xff, g: (hash >> 8) & 0xff, b: (hash >> 16) & 0xff },
    },
  })
    .png()
    .toBuffer();
}

function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch {
        resolve({});
      }
    });
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** The functions' model settings for this fake: the real `openai` client, pointed at it, no retries. */
export function fakeModelEnv(fake: FakeOpenAi): Record<string, string> {
  return { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL, OPENAI_MAX_RETRIES: '0' };
}
