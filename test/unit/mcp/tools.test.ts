/** The MCP tools are made from the route table and the OpenAPI document, never written by hand. */
import {
  type ApiTool,
  apiTools,
  type OpenApiDocument,
  requestOf,
  toolName,
  UnknownArgumentError,
} from '../../../clients/mcp/tools';
import { openApiDocument } from '../../../functions/api/openapi/document';
import { type RouteDefinition, routes } from '../../../functions/routes';

const document = openApiDocument('http://127.0.0.1:3000') as OpenApiDocument;
const tools = apiTools(routes, document);
const tool = (name: string): ApiTool => {
  const found = tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('apiTools', () => {
  it('makes one tool per route that takes a token, named after the route', () => {
    expect(toolName('CreateArticle')).toBe('create_article');
    expect(toolName('ListWebhookDeliveries')).toBe('list_webhook_deliveries');
    expect(tools.map((candidate) => candidate.name)).toEqual(
      routes.filter((route) => !route.public).map((route) => toolName(route.name)),
    );
    expect(tools.map((candidate) => candidate.name)).not.toContain('open_api_document');
  });

  it('takes the input schema from the operation: path, query, Idempotency-Key and body fields', () => {
    const create = tool('create_article');
    const body = document.paths?.['/v1/articles/create']?.post?.requestBody?.content?.['application/json']
      ?.schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(create.inputSchema.properties)).toEqual([
      'idempotency_key',
      ...Object.keys(body.properties),
    ]);
    expect(create.inputSchema.properties.language).toEqual(body.properties.language);
    expect(create.inputSchema.required).toEqual(body.required);
    expect(create.inputSchema.additionalProperties).toBe(false);

    const categories = tool('list_categories');
    expect(categories.inputSchema.required).toEqual(['website_uuid']);
    expect(Object.keys(categories.inputSchema.properties)).toEqual(['website_uuid', 'page']);
    expect(categories.readOnly).toBe(true);
  });

  it('requires no field a default can supply: a create the keyword alone (the profile gives the others), a batch item none', () => {
    expect(tool('create_article').inputSchema.required).toEqual(['keyword']);
    const items = tool('create_batch').inputSchema.properties.items as { items: { required?: string[] } };
    expect(items.items.required).toBeUndefined();
    expect(tool('create_batch').inputSchema.required).toEqual(['items']);
  });

  it('makes a route answering GET and POST one tool, through GET', () => {
    const queue = tool('list_queued_articles');
    expect(queue).toMatchObject({ method: 'GET', sendsBody: false });
    expect(Object.keys(queue.inputSchema.properties)).toEqual(['page']);
  });

  it('picks up a route as soon as the route table and the document have it', () => {
    const route: RouteDefinition = {
      name: 'RefreshSiteIndex',
      methods: ['POST'],
      path: '/v1/websites/{website_uuid}/index/refresh',
      entry: 'functions/api/refresh-site-index.ts',
      access: { tables: {} },
    };
    const withRoute: OpenApiDocument = {
      paths: {
        [route.path]: {
          post: {
            summary: 'Read the site index now',
            parameters: [{ name: 'website_uuid', in: 'path', required: true, schema: { type: 'string' } }],
            requestBody: {
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Refresh', description: 'What to read.' },
                },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Refresh: { type: 'object', properties: { full: { type: 'boolean' } }, required: ['full'] },
        },
      },
    };
    const [added] = apiTools([route], withRoute);
    expect(added).toMatchObject({
      name: 'refresh_site_index',
      description: 'Read the site index now.',
      readOnly: false,
      inputSchema: {
        properties: { website_uuid: { type: 'string' }, full: { type: 'boolean' } },
        required: ['website_uuid', 'full'],
      },
    });
  });

  it('fails to start rather than serve a route the document lacks', () => {
    const route = { ...routes[0], name: 'Nowhere', path: '/v1/nowhere' } as RouteDefinition;
    expect(() => apiTools([route], document)).toThrow(/no GET \/v1\/nowhere \(Nowhere\)/);
  });
});

describe('requestOf', () => {
  it('puts each argument where the operation takes it, the body as JSON', () => {
    expect(
      requestOf(tool('create_article'), { keyword: 'bread', h2_count: 2, idempotency_key: 'k-1' }, 'ink_t'),
    ).toEqual({
      method: 'POST',
      url: '/v1/articles/create',
      headers: {
        Authorization: 'Bearer ink_t',
        Accept: 'application/json',
        'Idempotency-Key': 'k-1',
        'Content-Type': 'application/json',
      },
      body: '{"keyword":"bread","h2_count":2}',
    });
    expect(requestOf(tool('list_categories'), { website_uuid: 'a/b', page: 2 }, 'ink_t')).toMatchObject({
      method: 'GET',
      url: '/v1/websites/a%2Fb/categories?page=2',
    });
    expect(requestOf(tool('list_categories'), { website_uuid: 'w' }, 'ink_t').body).toBeUndefined();
  });

  it('refuses an unknown argument and a missing path parameter', () => {
    expect(() => requestOf(tool('show_account'), { page: 1 }, 't')).toThrow(
      new UnknownArgumentError('show_account', 'page'),
    );
    expect(() => requestOf(tool('show_article'), {}, 't')).toThrow(
      'show_article needs the argument article_uuid.',
    );
  });
});
