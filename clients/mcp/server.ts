/**
 * `npx inkpress-mcp`: the Inkpress API as an MCP server on stdio, for AI agents. Configured by
 * `INKPRESS_URL` (the API root, e.g. the stack's ApiUrl; default the local `npm start` on
 * `PORT` or 3000) and `INKPRESS_TOKEN`. Tools come from the route table and the OpenAPI document
 * (`tools.ts`); a call's result is the API's JSON answer, an API error a tool error with the
 * API's message. See docs/mcp.md.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION, openApiDocument } from '../../functions/api/openapi/document';
import { routes } from '../../functions/routes';
import { type ApiTool, apiTools, type OpenApiDocument, requestOf, UnknownArgumentError } from './tools';

export interface McpSettings {
  /** The API root without a trailing slash. */
  baseUrl: string;
  token: string;
  /** How long one API call may take. */
  timeoutMs: number;
}

/** Reads the settings from the environment; throws with a message for the user when one is wrong. */
export function settingsFromEnv(env: NodeJS.ProcessEnv): McpSettings {
  const token = env.INKPRESS_TOKEN?.trim();
  if (!token) {
    throw new Error(
      'INKPRESS_TOKEN is not set: give the server an Inkpress API token (ink_..., printed by npm start or made with npm run admin -- token create --account ACCOUNT_ID).',
    );
  }
  const raw = env.INKPRESS_URL?.trim() || `http://127.0.0.1:${env.PORT?.trim() || '3000'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`INKPRESS_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`INKPRESS_URL must be an http(s) URL: ${raw}`);
  }
  return { baseUrl: url.href.replace(/\/+$/, ''), token, timeoutMs: 60_000 };
}

/** The MCP server of the API at `settings.baseUrl` (not connected yet). */
export function inkpressMcpServer(settings: McpSettings): Server {
  const tools = apiTools(routes, openApiDocument(settings.baseUrl) as OpenApiDocument);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: 'inkpress', title: 'Inkpress', version: API_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Inkpress writes SEO articles with a language model and publishes them to WordPress. create_article queues an article (credits are reserved) and answers at once; it is generated within minutes: follow it with show_article. list_languages gives the language codes, list_websites and list_categories the uuids to publish with.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return toolError(`There is no tool named ${request.params.name}.`);
    return callTool(tool, request.params.arguments ?? {}, settings);
  });
  return server;
}

function listing(tool: ApiTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
  };
}

/** One API call: its JSON answer as the result, or a tool error naming the API's message. */
export async function callTool(
  tool: ApiTool,
  args: Record<string, unknown>,
  settings: McpSettings,
): Promise<CallToolResult> {
  let request: ReturnType<typeof requestOf>;
  try {
    request = requestOf(tool, args, settings.token);
  } catch (error) {
    if (error instanceof UnknownArgumentError) return toolError(error.message);
    throw error;
  }
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${settings.baseUrl}${request.url}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'error',
    });
    text = await response.text();
  } catch (error) {
    const cause = error instanceof Error ? (causeOf(error) ?? error.message) : String(error);
    return toolError(`Could not reach Inkpress at ${settings.baseUrl}: ${cause}`);
  }
  const json = parseJson(text, response.headers.get('content-type'));
  if (response.ok && json !== undefined) return { content: [{ type: 'text', text }] };
  if (json === undefined) {
    return toolError(
      `Inkpress answered ${response.status} with ${response.headers.get('content-type') ?? 'no content type'}, not JSON: ${text.slice(0, 300)}`,
    );
  }
  const message =
    json !== null && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string'
      ? (json as { message: string }).message
      : `HTTP ${response.status}`;
  return {
    isError: true,
    content: [
      { type: 'text', text: `Inkpress answered ${response.status}: ${message}` },
      { type: 'text', text },
    ],
  };
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function parseJson(text: string, contentType: string | null): unknown {
  if (!contentType?.toLowerCase().startsWith('application/json')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** fetch's "fetch failed" says nothing; its cause says what (ECONNREFUSED, ENOTFOUND, ...). */
function causeOf(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return (cause as { code?: string }).code ?? cause.message;
  return undefined;
}

/** Serves on stdin/stdout until the client closes them. */
export async function main(): Promise<void> {
  let settings: McpSettings;
  try {
    settings = settingsFromEnv(process.env);
  } catch (error) {
    process.stderr.write(`inkpress-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
    return;
  }
  const server = inkpressMcpServer(settings);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`inkpress-mcp: serving ${settings.baseUrl} on stdio\n`);
}
