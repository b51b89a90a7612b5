/**
 * The OpenAPI 3.1 document, generated from the route table, the zod schemas the handlers
 * validate with (`operations.ts`) and the response schemas; webhook events in `webhooks`.
 */
import { z } from 'zod';
import { type $ZodObject, type $ZodType, safeParse } from 'zod/v4/core';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENT_TYPES } from '../../core/webhooks/webhook';
import { type RouteDefinition, routes } from '../../routes';
import { MAX_IDEMPOTENCY_KEY_LENGTH, PRINTABLE_ASCII } from '../http/idempotency-key';
import { operations } from './operations';
import {
  articleRecordSchema,
  batchWithCountsSchema,
  errorSchema,
  indexedWebsiteSchema,
  validationErrorSchema,
} from './response-schemas';

export const API_VERSION = '1.0.0';

type StatusCode = `${1 | 2 | 3 | 4 | 5}${string}`;

const FORM_TYPES = ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'] as const;

const AUTHENTICATED_ERRORS: Record<number, string> = {
  401: 'Missing, unknown or revoked token, or an Authorization header that is not `Bearer <token>`: `hint` says which.',
  429: 'Too many requests: try again after `Retry-After` seconds.',
};
const SERVER_ERRORS: Record<number, string> = {
  500: 'Server error (the body has a `request_id`).',
  503: 'Service temporarily unavailable: try again after `Retry-After` seconds.',
};
const BODY_ERRORS: Record<number, string> = {
  400: 'The body could not be parsed.',
  413: 'The body is larger than 64 KiB.',
  415: 'The content type is not multipart/form-data, application/x-www-form-urlencoded or application/json.',
};

const idempotencyKey = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .regex(PRINTABLE_ASCII)
  .optional()
  .meta({
    description:
      'A client-chosen key (e.g. a UUID): a request repeated with the same key and body gets the first answer again instead of creating a second record.',
  });

function pathParameters(path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return undefined;
  return z.object(
    Object.fromEntries(
      names.map((name) => [
        name,
        z.string().meta({ format: 'uuid', description: `The ${name.replace(/_/g, ' ')}.` }),
      ]),
    ),
  );
}

const requestIdHeader = z.string().optional().meta({
  description:
    "The id of this request (also in the server logs): quote it when reporting a problem. Every answer of Inkpress' functions has it; the ones API Gateway gives itself (a refused token, throttling) have `x-amzn-RequestId` instead.",
});
const retryAfterHeader = z.int().min(1).meta({ description: 'Seconds to wait before trying again.' });

/** The headers of a response with this status. */
function responseHeaders(status: number, idempotent: boolean) {
  return z.object({
    'X-Request-Id': requestIdHeader,
    ...(status === 401
      ? { 'WWW-Authenticate': z.literal('Bearer').meta({ description: 'The token scheme.' }) }
      : {}),
    ...(status === 429 || status === 503 ? { 'Retry-After': retryAfterHeader } : {}),
    // Only the 409 of a copy whose first request is still running carries it.
    ...(status === 409 && idempotent ? { 'Retry-After': retryAfterHeader.optional() } : {}),
    ...(status < 300 && idempotent
      ? {
          'Idempotent-Replayed': z.literal('true').optional().meta({
            description:
              'Present when this is the stored answer to an earlier request with the same `Idempotency-Key`.',
          }),
        }
      : {}),
  });
}

function jsonContent(schema: $ZodType) {
  return { content: { 'application/json': { schema } } };
}

function operationOf(route: RouteDefinition, method: string): ZodOpenApiOperationObject {
  const spec = operations[route.name];
  if (!spec) throw new Error(`The route ${route.name} has no entry in functions/api/openapi/operations.ts`);
  const path = pathParameters(route.path);
  if ((spec.body !== undefined) !== (route.takesBody === true)) {
    throw new Error(`${route.name}: a body schema in operations.ts goes with takesBody in the route table`);
  }
  const withBody = spec.body !== undefined && method !== 'GET';
  const query = method === 'GET' || !withBody ? spec.query : undefined;
  const errors: Partial<Record<number, string>> = {
    ...(route.public ? {} : AUTHENTICATED_ERRORS),
    ...(path ? { 404: 'No such record in this account.' } : {}),
    ...(withBody || query ? { 422: 'Invalid input: messages by field.' } : {}),
    ...(withBody ? BODY_ERRORS : {}),
    ...spec.errors,
    ...SERVER_ERRORS,
  };
  const idempotent = spec.idempotent === true;
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const headers = responseHeaders(Number(status), idempotent);
    responses[status as StatusCode] = response.html
      ? {
          description: response.description,
          headers,
          content: { 'text/html': { schema: { type: 'string' } } },
        }
      : {
          description: response.description,
          headers,
          ...(response.schema ? jsonContent(response.schema) : {}),
        };
  }
  for (const [status, description] of Object.entries(errors)) {
    if (description === undefined) continue;
    responses[status as StatusCode] = {
      description,
      headers: responseHeaders(Number(status), idempotent),
      ...jsonContent(status === '422' ? validationErrorSchema : errorSchema),
    };
  }
  const requestParams = {
    ...(path ? { path } : {}),
    ...(query ? { query: query as $ZodObject } : {}),
    ...(spec.idempotent ? { header: z.object({ 'Idempotency-Key': idempotencyKey }) } : {}),
  };
  return {
    operationId: route.methods.length > 1 ? `${lowerFirst(route.name)}${method}` : lowerFirst(route.name),
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(route.public ? { security: [] } : {}),
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(withBody && spec.body
      ? {
          requestBody: {
            // Required when an empty body is refused (the creates); the queue's POST needs none.
            required: !safeParse(spec.body, {}).success,
            content: spec.bodyMediaTypes
              ? Object.fromEntries(
                  Object.entries(spec.bodyMediaTypes).map(([type, schema]) => [type, { schema }]),
                )
              : Object.fromEntries(FORM_TYPES.map((type) => [type, { schema: spec.body }])),
          },
        }
      : {}),
    responses,
  };
}

function webhookOperations(): ZodOpenApiPathsObject {
  const headers = z.object({
    'webhook-id': z.string().meta({ description: 'The event id (`msg_...`): the same on every retry.' }),
    'webhook-timestamp': z.string().meta({ description: 'Unix seconds of this attempt.' }),
    'webhook-signature': z
      .string()
      .meta({ description: '`v1,<base64 HMAC-SHA256>` of `id.timestamp.body`.' }),
  });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const data = type.startsWith('website.')
        ? indexedWebsiteSchema
        : type.startsWith('batch.')
          ? batchWithCountsSchema
          : articleRecordSchema;
      const body = z.object({
        type: z.literal(type),
        timestamp: z.string().meta({ format: 'date-time', description: 'When the event happened.' }),
        data,
      });
      return [
        type,
        {
          post: {
            operationId: `event${type.replace(/(^|[._])(\w)/g, (_match, _separator, letter: string) => letter.toUpperCase())}`,
            summary: type,
            description: `${WEBHOOK_EVENT_DESCRIPTIONS[type]} Retried on any non-2xx answer or after 10 s (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); 410 disables the endpoint.`,
            tags: ['Webhooks'],
            requestParams: { header: headers },
            requestBody: { required: true, content: { 'application/json': { schema: body } } },
            responses: { '200': { description: 'Any 2xx answer within 10 s acknowledges the event.' } },
          },
        },
      ];
    }),
  );
}

const built = new Map<string, ReturnType<typeof buildDocument>>();

/** The document, for a server at `baseUrl` (built once per base URL and process: ~25 ms). */
export function openApiDocument(baseUrl: string): ReturnType<typeof buildDocument> {
  let document = built.get(baseUrl);
  if (!document) {
    document = buildDocument(baseUrl);
    if (built.size < 20) built.set(baseUrl, document);
  }
  return document;
}

function buildDocument(baseUrl: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const item: Record<string, ZodOpenApiOperationObject> = {};
    for (const method of route.methods) item[method.toLowerCase()] = operationOf(route, method);
    paths[route.path] = item;
  }
  return withFieldDocs(
    createDocument({
      openapi: '3.1.0',
      info: {
        title: 'Inkpress API',
        version: API_VERSION,
        description:
          'SEO articles written by a language model and published to WordPress through the Inkpress Connector plugin. Every request carries `Authorization: Bearer <token>`; create operations take multipart/form-data, application/x-www-form-urlencoded or JSON; booleans are written 0/1; times are UTC `YYYY-MM-DD HH:MM:SS`.',
      },
      servers: [{ url: baseUrl }],
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'Articles' },
        { name: 'Websites' },
        { name: 'Account' },
        {
          name: 'Webhooks',
          description: 'Signed by the Standard Webhooks specification (standardwebhooks.com).',
        },
        { name: 'Reference' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An Inkpress API token (`ink_...`).' },
        },
      },
      paths,
      webhooks: webhookOperations(),
    }),
  );
}

type JsonSchema = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/** Merges each operation's `fieldDocs` into the generated schemas of its request bodies. */
function withFieldDocs<T extends { paths?: object }>(document: T): T {
  const paths = (document.paths ?? {}) as Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>
  >;
  for (const route of routes) {
    const fieldDocs = operations[route.name]?.fieldDocs;
    if (!fieldDocs) continue;
    for (const operation of Object.values(paths[route.path] ?? {})) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        const properties = media.schema?.properties ?? {};
        for (const [field, doc] of Object.entries(fieldDocs)) {
          const property = properties[field];
          if (!property)
            throw new Error(`${route.name} documents ${field}, which its body schema does not have`);
          Object.assign(property, { description: doc.description });
          if (doc.profileDefault && media.schema?.required) {
            media.schema.required = media.schema.required.filter((name) => name !== field);
          }
          if (doc.enum) Object.assign(property, { enum: [...doc.enum] });
          if (doc.format) Object.assign(property, { format: doc.format });
          for (const variant of [
            property,
            ...((property.anyOf as Record<string, unknown>[] | undefined) ?? []),
          ]) {
            if (variant.type === 'string' && doc.maxLength !== undefined) variant.maxLength = doc.maxLength;
            if (variant.type === 'string' && doc.pattern !== undefined) variant.pattern = doc.pattern;
            if (variant.type === 'array' && doc.list) {
              variant.maxItems = doc.list.maxItems;
              Object.assign(variant.items as object, { maxLength: doc.list.itemMaxLength });
            }
          }
        }
      }
    }
  }
  return document;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
