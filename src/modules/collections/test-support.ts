import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { activityEvents, memberships, videos } from '../../db/schema/index.ts';

/** Arrangement helpers for the collection tests: users through the API, rows straight into the database. */

export { isoDate } from '../../../test/helpers/assertions.ts';
export const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

export const errorBody = (code: string, error: string = expect.any(String)) => ({
  success: false,
  error,
  code,
});

/** The owner's personal organization with an admin, a member and a viewer; an outsider with their own. */
export async function team(testApp: TestApp) {
  const [owner, admin, member, viewer, outsider] = (await Promise.all(
    ['Olivia Owner', 'Adam Admin', 'Mia Member', 'Vic Viewer', 'Otto Outsider'].map((name) =>
      signUpUser(testApp.app, { name }),
    ),
  )) as [SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser];
  const organizationId = owner.organizationId;
  await testApp.database.db.insert(memberships).values([
    { organizationId, userId: admin.id, role: 'admin' },
    { organizationId, userId: member.id, role: 'member' },
    { organizationId, userId: viewer.id, role: 'viewer' },
  ]);
  return { organizationId, owner, admin, member, viewer, outsider };
}

export type Team = Awaited<ReturnType<typeof team>>;

export async function insertVideo(
  testApp: TestApp,
  values: {
    organizationId: string;
    authorId: string;
    title?: string;
    isDeleted?: boolean;
    isPublic?: boolean;
  },
) {
  const [row] = await testApp.database.db
    .insert(videos)
    .values({ title: 'A meeting', duration: '60', durationSeconds: 60, ...values })
    .returning();
  if (!row) throw new Error('video insert returned nothing');
  return row;
}

export async function insertVideos(
  testApp: TestApp,
  count: number,
  organizationId: string,
  authorId: string,
) {
  const rows = [];
  for (let index = 0; index < count; index++) {
    rows.push(await insertVideo(testApp, { organizationId, authorId, title: `Meeting ${index + 1}` }));
  }
  return rows;
}

/** The activity events recorded for a target with this action. */
export async function eventsFor(testApp: TestApp, targetId: string, action: string) {
  return testApp.database.db
    .select()
    .from(activityEvents)
    .where(and(eq(activityEvents.targetId, targetId), eq(activityEvents.action, action)));
}

/** A request helper bound to one test app. */
export function requester(ctx: () => TestApp) {
  return (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    user: Pick<SignedUpUser, 'headers'> | null,
    payload?: unknown,
  ) =>
    ctx().app.inject({
      method,
      url,
      headers: user?.headers ?? {},
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
}

/** A collection created through the API; fails the test unless it is a 201. */
export async function createCollection(
  ctx: () => TestApp,
  user: SignedUpUser,
  payload: Record<string, unknown>,
) {
  const response = await requester(ctx)('POST', '/collections', user, payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; organizationId: string; [key: string]: unknown };
}

/** Adds videos to a collection in the order given. */
export async function addVideos(
  ctx: () => TestApp,
  user: SignedUpUser,
  collectionId: string,
  videoIds: string[],
) {
  for (const videoId of videoIds) {
    const response = await requester(ctx)('POST', `/collections/${collectionId}/videos`, user, { videoId });
    expect(response.statusCode, response.body).toBe(201);
  }
}
