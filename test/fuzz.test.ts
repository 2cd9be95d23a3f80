import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorResponseSchema } from '../src/http/errors.ts';
import { useTestApp } from './helpers/app.ts';
import { type SignedUpUser, signUpUser } from './helpers/factories.ts';
import { waitForKnowledge } from './helpers/knowledge.ts';
import { requester } from './helpers/requests.ts';

/**
 * Every operation of /openapi.json, called with generated bad input — wrong types, NUL and lone
 * surrogates, huge strings and numbers, deep nesting, malformed JSON and encodings, odd content
 * types, garbage path ids — as the owner of an organization holding one of everything. Never a
 * 5xx; every error in the one error shape; a refused write leaves the rows as they were. Seeded
 * and bounded for CI (`FUZZ_RUNS` cases per operation, default 12); `npm run fuzz` runs longer.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

type Schema = {
  $ref?: string;
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  example?: unknown;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
};
type Operation = {
  method: string;
  path: string;
  query: string[];
  body: string[];
  /** A body the operation's schema accepts (required fields only), for mutations one field at a time. */
  example: Record<string, unknown> | undefined;
  hasBody: boolean;
};

/** Operations that would end the caller's session or hold the connection open: not fuzzed. */
const SKIPPED = new Set([
  'DELETE /users/me',
  'DELETE /users/me/sessions',
  'POST /auth/sign-out',
  'GET /notifications/stream',
]);

/** Tables whose row counts a refused write must leave alone (background jobs write elsewhere). */
const COUNTED = [
  'activity_events',
  'ai_questions',
  'api_keys',
  'beta_access_requests',
  'channel_follows',
  'channels',
  'chat_conversations',
  'chat_messages',
  'clips',
  'collections',
  'comment_reactions',
  'comments',
  'invitations',
  'memberships',
  'organizations',
  'password_reset_tokens',
  'playlist_progress',
  'saved_searches',
  'series',
  'share_links',
  'transcript_segments',
  'users',
  'video_viewers',
  'videos',
];

const huge = 'x'.repeat(200_000);
let nested: unknown = 'deep';
for (let level = 0; level < 500; level++) nested = { a: [nested] };

const badString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    huge,
    '%ZZ',
    '%E0%A4%A',
    '../../etc/passwd',
  ),
  fc.constantFrom(
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '-1',
    '1e400',
    'null',
    'true',
    '2026-02-30',
    '😀'.repeat(50),
  ),
  fc.string({ maxLength: 40, unit: 'binary' }),
);
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  badString,
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, true, false, null, [], {}, nested),
  fc.integer(),
  fc.array(badString, { maxLength: 3 }),
  fc.dictionary(badString, badString, { maxKeys: 3 }),
);
const rawBody = fc.constantFrom(
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '12',
  '{"__proto__":{"polluted":true}}',
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  '{"title":"a\\u0000b"}',
  '{"title":"\\ud800"}',
);
const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      'text/plain',
      'text/vtt',
      'application/json; charset=utf-16',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
    ),
    weight: 1,
  },
);

/** Printable garbage as sent ("%ZZ" stays malformed), anything else percent-encoded byte by byte. */
const asSegment = (text: string) =>
  /^[\x21-\x7e]+$/.test(text) && !/[/?#]/.test(text)
    ? text
    : [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('') || '%20';

type OpenApi = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, Schema> };
};

/** A value the schema accepts; ids named after what they point at take the fixture's id. */
function exampleOf(document: OpenApi, schema: Schema, name: string, ids: Record<string, string>): unknown {
  if (schema.$ref) {
    const referenced = document.components?.schemas?.[schema.$ref.split('/').pop() ?? ''];
    return exampleOf(document, referenced ?? {}, name, ids);
  }
  const option = (schema.anyOf ?? schema.oneOf)?.find((candidate) => candidate.type !== 'null');
  if (option) return exampleOf(document, option, name, ids);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = [schema.type].flat().find((candidate) => candidate !== 'null');
  if (type === 'object') {
    const required = schema.required ?? [];
    return Object.fromEntries(
      required.map((key) => [key, exampleOf(document, schema.properties?.[key] ?? {}, key, ids)]),
    );
  }
  if (type === 'array') {
    return Array.from({ length: schema.minItems ?? 0 }, () =>
      exampleOf(document, schema.items ?? {}, name, ids),
    );
  }
  if (type === 'integer' || type === 'number')
    return Math.min(schema.maximum ?? 1, Math.max(schema.minimum ?? 1, 1));
  if (type === 'boolean') return true;
  if (schema.format === 'uuid') {
    const resource = Object.keys(ids).find((key) => name.toLowerCase().startsWith(key.replace(/s$/, '')));
    return resource ? ids[resource] : crypto.randomUUID();
  }
  if (schema.format === 'email') return 'fuzz@example.com';
  if (schema.format === 'date-time') return new Date().toISOString();
  if (schema.example !== undefined) return schema.example;
  return 'Fuzz'.padEnd(schema.minLength ?? 1, 'z');
}

function operationsOf(document: OpenApi, ids: Record<string, string>): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, spec] of Object.entries(methods)) {
      const parameters = (spec.parameters ?? []) as Array<{ in: string; name: string }>;
      const body = spec.requestBody as
        | { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> }
        | undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        query: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        body: Object.keys(body?.content['application/json']?.schema?.properties ?? {}),
        example: body?.content['application/json']?.schema
          ? (exampleOf(document, body.content['application/json'].schema as Schema, '', ids) as Record<
              string,
              unknown
            >)
          : undefined,
        hasBody: body !== undefined,
      });
    }
  }
  return operations.filter((operation) => !SKIPPED.has(`${operation.method} ${operation.path}`));
}

/** The operation's valid example with one field (declared, or not) given a bad value. */
const mutated = (operation: Operation) =>
  fc
    .tuple(fc.constantFrom(...operation.body, 'unknown'), badValue)
    .map(([field, value]) => ({ ...operation.example, [field]: value }));

describe('fuzzing every operation', () => {
  const ctx = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  const request = requester(ctx);
  let owner: SignedUpUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    owner = await signUpUser(ctx().app, { name: 'Fuzz Owner' });
    const organizationId = owner.organizationId;
    const made = async (url: string, payload: object) => {
      const response = await request(owner, 'POST', url, payload);
      expect(response.statusCode, `${url} ${response.body}`).toBe(201);
      return response.json().id as string;
    };
    ids.organizations = organizationId;
    ids.videos = await made('/videos', {
      organizationId,
      title: 'Roadmap review',
      duration: '2:00',
      transcript: 'Ana: We decided to ship in March.\nBen: I will send the notes by Friday.',
    });
    await waitForKnowledge(ctx().database.db, ids.videos);
    ids.channels = await made('/channels', { organizationId, name: 'Product' });
    ids.series = await made('/series', { organizationId, name: 'Weekly' });
    ids.collections = await made('/collections', { organizationId, name: 'Start here', type: 'playlist' });
    ids.comments = await made(`/videos/${ids.videos}/comments`, { body: 'Nice', timestamp: 1 });
    ids.clips = await made(`/videos/${ids.videos}/clips`, { title: 'Decision', startTime: 0, endTime: 5 });
    ids['search/saved'] = await made('/search/saved', { organizationId, name: 'Launch', query: 'launch' });
    ids['chat/conversations'] = await made('/chat/conversations', { organizationId });
  });

  /** A path with its parameters filled: the fixture's id, or (always for deletions) garbage. */
  const fill = (operation: Operation, garbage: string | null) =>
    operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      if (garbage !== null || operation.method === 'DELETE') return asSegment(garbage ?? 'x');
      if (name === 'userId') return owner.id;
      if (name === 'videoId') return ids.videos as string;
      const resource = Object.keys(ids).find((prefix) => operation.path.startsWith(`/${prefix}/{`));
      return resource ? (ids[resource] as string) : crypto.randomUUID();
    });

  const counts = async () => {
    const selects = COUNTED.map((table) => `(select count(*) from ${table}) as ${table}`).join(', ');
    const result = await ctx().database.db.execute(sql.raw(`select ${selects}`));
    return result.rows[0];
  };

  it(
    'answers every generated request below 500, in the error shape, refused writes changing nothing',
    async () => {
      const operations = operationsOf(ctx().app.swagger() as never, ids);
      expect(operations.length).toBeGreaterThan(120);
      let sent = 0;
      for (const [index, operation] of operations.entries()) {
        const input = fc.record({
          garbagePath: fc.option(badString, { freq: 4 }),
          query: fc.dictionary(fc.constantFrom(...operation.query, 'unknown'), badString, { maxKeys: 3 }),
          body: fc.oneof(
            // The valid example with one field made bad: the input that reaches the handler.
            mutated(operation),
            mutated(operation),
            fc.dictionary(fc.constantFrom(...operation.body, 'unknown'), badValue, { maxKeys: 4 }),
            rawBody,
            badValue,
          ),
          contentType,
          // One request in eight without credentials.
          anonymous: fc.integer({ min: 0, max: 7 }).map((draw) => draw === 0),
        });
        await fc.assert(
          fc.asyncProperty(input, async ({ garbagePath, query, body, contentType: type, anonymous }) => {
            const search = new URLSearchParams(query as Record<string, string>).toString();
            const url = `${fill(operation, garbagePath)}${search ? `?${search}` : ''}`;
            const writes = operation.method !== 'GET';
            const before = writes ? await counts() : undefined;
            const response = await ctx().app.inject({
              method: operation.method as never,
              url,
              headers: {
                ...(anonymous ? {} : owner.headers),
                ...(operation.hasBody ? { 'content-type': type } : {}),
              },
              ...(operation.hasBody
                ? { payload: typeof body === 'string' ? body : JSON.stringify(body) }
                : {}),
            });
            sent++;
            if (process.env.FUZZ_TRACE)
              console.log(
                operation.method,
                url.slice(0, 80),
                response.statusCode,
                response.body.slice(0, 120),
              );
            const label = `${operation.method} ${url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
            expect(response.statusCode, label).toBeLessThan(500);
            // A HEAD answer has no body to hold the error.
            if (response.statusCode >= 400 && operation.method !== 'HEAD') {
              expect(errorResponseSchema.safeParse(response.json()).success, label).toBe(true);
              if (before) expect(await counts(), label).toEqual(before);
            }
          }),
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
      }
      expect(sent).toBe(operations.length * RUNS);
    },
    60_000 + RUNS * 5_000,
  );
});
