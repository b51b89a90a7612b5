/**
 * The MCP tools of the Inkpress API, made from the route table and the OpenAPI document the API
 * serves (itself generated from the zod schemas the handlers validate with): one tool per route
 * that takes a token, named after the route (`CreateArticle` -> `create_article`), whose input
 * schema joins the operation's path parameters, query parameters, headers (`Idempotency-Key` ->
 * `idempotency_key`) and JSON body fields. Nothing here names a field: a route added to the route
 * table and `functions/api/openapi/operations.ts` is a tool at the next start.
 */
import type { HttpMethod, RouteDefinition } from '../../functions/routes';

/** JSON Schema, as the OpenAPI 3.1 document writes it. */
export type JsonSchema = Record<string, unknown>;

export type ToolInputSchema = {
  [keyword: string]: unknown;
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties: false;
};

/** Where each input field goes in the HTTP request. */
type FieldPlace = { in: 'path' | 'query' | 'body' } | { in: 'header'; name: string };

export interface ApiTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ToolInputSchema;
  readOnly: boolean;
  method: HttpMethod;
  path: string;
  /** Whether the request carries a JSON body (the route takes one), even an empty one. */
  sendsBody: boolean;
  places: Record<string, FieldPlace>;
}

export interface ApiRequest {
  method: HttpMethod;
  /** Path and query string, to append to the API root. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation> | undefined>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** `CreateArticle` -> `create_article`. */
export function toolName(routeName: string): string {
  return routeName.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

/**
 * The tools of every route that takes a token (the public ones are the OpenAPI document and its
 * reference page: the description the tools are made from). A route answering several methods
 * (the queue listing: GET and POST) is one tool, through GET.
 */
export function apiTools(routes: readonly RouteDefinition[], document: OpenApiDocument): ApiTool[] {
  return routes.filter((route) => !route.public).map((route) => toolOf(route, document));
}

function toolOf(route: RouteDefinition, document: OpenApiDocument): ApiTool {
  const method = route.methods.includes('GET') ? 'GET' : (route.methods[0] as HttpMethod);
  const operation = document.paths?.[route.path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`The OpenAPI document has no ${method} ${route.path} (${route.name})`);
  const name = toolName(route.name);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const places: Record<string, FieldPlace> = {};
  const add = (field: string, schema: JsonSchema, place: FieldPlace, isRequired: boolean) => {
    if (field in properties) throw new Error(`${name}: two inputs are named ${field}`);
    properties[field] = schema;
    places[field] = place;
    if (isRequired) required.push(field);
  };

  for (const parameter of operation.parameters ?? []) {
    const schema = {
      ...resolved(parameter.schema ?? { type: 'string' }, document),
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    const isRequired = parameter.required === true;
    if (parameter.in === 'path' || parameter.in === 'query')
      add(parameter.name, schema, { in: parameter.in }, isRequired);
    else if (parameter.in === 'header') {
      add(
        parameter.name.toLowerCase().replace(/-/g, '_'),
        schema,
        { in: 'header', name: parameter.name },
        isRequired,
      );
    }
  }
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    const body = resolved(bodySchema, document);
    const bodyRequired = new Set((body.required as string[] | undefined) ?? []);
    for (const [field, schema] of Object.entries((body.properties ?? {}) as Record<string, JsonSchema>)) {
      add(field, schema, { in: 'body' }, bodyRequired.has(field));
    }
  }

  const summary = operation.summary ?? route.name;
  return {
    name,
    title: summary,
    description: [summary.endsWith('.') ? summary : `${summary}.`, operation.description]
      .filter(Boolean)
      .join(' '),
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    readOnly: method === 'GET',
    method,
    path: route.path,
    sendsBody: bodySchema !== undefined,
    places,
  };
}

/** A schema with every `$ref` into the document's components replaced by what it points at. */
function resolved(schema: JsonSchema, document: OpenApiDocument, seen: readonly string[] = []): JsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    const object = value as JsonSchema;
    const ref = object.$ref;
    if (typeof ref === 'string') {
      const target = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
      const found = target ? document.components?.schemas?.[target] : undefined;
      if (!target || !found || seen.includes(target)) throw new Error(`Cannot inline the schema ${ref}`);
      const { $ref: _ref, ...siblings } = object;
      return { ...resolved(found, document, [...seen, target]), ...siblings };
    }
    return Object.fromEntries(Object.entries(object).map(([key, inner]) => [key, walk(inner)]));
  };
  return walk(schema) as JsonSchema;
}

/** The HTTP request a call of `tool` with `args` makes (the API validates the values). */
export function requestOf(tool: ApiTool, args: Record<string, unknown>, token: string): ApiRequest {
  let path = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(args)) {
    const place = tool.places[field];
    if (!place) throw new UnknownArgumentError(tool.name, field);
    if (value === undefined || value === null) continue;
    if (place.in === 'header') headers[place.name] = String(value);
    else if (place.in === 'body') body[field] = value;
    else if (place.in === 'path') path = path.replace(`{${field}}`, encodeURIComponent(String(value)));
    else query.append(field, String(value));
  }
  const missing = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  if (missing.length > 0) throw new UnknownArgumentError(tool.name, missing.join(', '), 'missing');
  const search = query.toString();
  if (!tool.sendsBody) return { method: tool.method, url: search ? `${path}?${search}` : path, headers };
  return {
    method: tool.method,
    url: search ? `${path}?${search}` : path,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
}

/** An argument the tool does not take, or a path parameter not given. */
export class UnknownArgumentError extends Error {
  constructor(tool: string, field: string, kind: 'unknown' | 'missing' = 'unknown') {
    super(
      kind === 'unknown'
        ? `${tool} takes no argument named ${field}.`
        : `${tool} needs the argument ${field}.`,
    );
  }
}
