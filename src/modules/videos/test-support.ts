import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { activityEvents, channels, collections, series } from '../../db/schema/index.ts';
import { UUID_PATTERN } from '../../http/ids.ts';
import type { MailingTestApp } from '../organizations/test-support.ts';

/** Arrangement and assertion helpers for the video tests. */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The spec's Video fields with their types, plus the library's durationSeconds, seriesId,
 * recordedAt and transcript status.
 */
const VIDEO_FIELDS = {
  id: 'uuid',
  title: 'string',
  description: 'string|null',
  duration: 'string',
  durationSeconds: 'number|null',
  thumbnailUrl: 'string|null',
  videoUrl: 'string|null',
  authorId: 'uuid',
  organizationId: 'uuid',
  channelId: 'uuid|null',
  collectionId: 'uuid|null',
  seriesId: 'uuid|null',
  transcript: 'string|null',
  transcriptStatus: 'string',
  transcriptError: 'string|null',
  aiSummary: 'string|null',
  viewCount: 'number',
  isPublic: 'boolean',
  isDeleted: 'boolean',
  deletedAt: 'timestamp|null',
  retentionUntil: 'timestamp|null',
  recordedAt: 'timestamp|null',
  createdAt: 'timestamp',
  updatedAt: 'timestamp',
} as const;

function matchesType(value: unknown, type: string): boolean {
  return type.split('|').some((option) => {
    if (option === 'null') return value === null;
    if (option === 'uuid') return typeof value === 'string' && UUID_PATTERN.test(value);
    if (option === 'timestamp') return typeof value === 'string' && ISO.test(value);
    return typeof value === option;
  });
}

/** Exactly the Video's keys, each of its type; then the given values. Returns the video. */
export function expectVideo(body: Record<string, unknown>, values: Partial<VideoBody> = {}): VideoBody {
  expect(Object.keys(body).sort()).toEqual(Object.keys(VIDEO_FIELDS).sort());
  for (const [field, type] of Object.entries(VIDEO_FIELDS)) {
    expect(
      matchesType(body[field], type),
      `${field} should be ${type}, is ${JSON.stringify(body[field])}`,
    ).toBe(true);
  }
  expect(body).toMatchObject(values);
  return body as VideoBody;
}

/** A video as lists carry it: the Video without its transcript, saying whether it has one. */
export function expectListedVideo(body: Record<string, unknown>, values: Partial<VideoBody> = {}) {
  const { transcript: _transcript, ...fields } = VIDEO_FIELDS;
  expect(Object.keys(body).sort()).toEqual([...Object.keys(fields), 'hasTranscript'].sort());
  for (const [field, type] of Object.entries(fields)) {
    expect(matchesType(body[field], type), `${field} should be ${type}`).toBe(true);
  }
  expect(typeof body.hasTranscript).toBe('boolean');
  expect(body).toMatchObject(values);
}

/** The list item of a Video the API returned. */
export const listed = ({ transcript, ...video }: VideoBody) => ({
  ...video,
  hasTranscript: transcript !== null,
});

type JsonOf<T extends string> = T extends `${infer A}|${infer B}`
  ? JsonOf<A> | JsonOf<B>
  : T extends 'null'
    ? null
    : T extends 'number'
      ? number
      : T extends 'boolean'
        ? boolean
        : string;

/** A Video as the API returns it. */
export type VideoBody = { [K in keyof typeof VIDEO_FIELDS]: JsonOf<(typeof VIDEO_FIELDS)[K]> };

export const errorPaths = (body: { details?: Array<{ path: string }> }) =>
  (body.details ?? []).map((detail) => detail.path).sort();

export async function postVideo(
  testApp: Pick<TestApp, 'app'>,
  user: SignedUpUser,
  payload: Record<string, unknown>,
  expectedStatus = 201,
) {
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/videos',
    headers: user.headers,
    payload,
  });
  expect(response.statusCode, response.body).toBe(expectedStatus);
  return response.json();
}

/** A video by `user` in `organizationId`, with a title and duration unless given. */
export const makeVideo = (
  testApp: Pick<TestApp, 'app'>,
  user: SignedUpUser,
  organizationId: string,
  fields: Record<string, unknown> = {},
) => postVideo(testApp, user, { title: 'Weekly sync', duration: '30:00', organizationId, ...fields });

/** Channels, series and collections are other modules' resources: the tests insert them directly. */
export async function libraryOf(testApp: MailingTestApp, organizationId: string) {
  const db = testApp.database.db;
  const [channel] = await db.insert(channels).values({ organizationId, name: 'Engineering' }).returning();
  const [seriesRow] = await db.insert(series).values({ organizationId, name: 'Product sync' }).returning();
  const [playlist] = await db
    .insert(collections)
    .values({ organizationId, name: 'Onboarding', type: 'playlist' })
    .returning();
  if (!channel || !seriesRow || !playlist) throw new Error('library insert failed');
  return { channelId: channel.id, seriesId: seriesRow.id, collectionId: playlist.id };
}

/** The activity events recorded for a target with an action. */
export const eventsFor = (testApp: MailingTestApp, targetId: string, action: string) =>
  testApp.database.db
    .select()
    .from(activityEvents)
    .where(and(eq(activityEvents.targetId, targetId), eq(activityEvents.action, action)));
