import { eq } from 'drizzle-orm';
import { beforeAll, expect } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';
import { activityEvents, memberships, shareLinks, type videos } from '../../db/schema/index.ts';

/** Arrangement helpers for the share link tests: one organization with every role, and an outsider. */

export { isoDate } from '../../../test/helpers/assertions.ts';
export const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
export const HOUR = 3600 * 1000;
export const PASSWORD = 'open sesame 42';
export const errorBody = (code: string, error: string = expect.any(String)) => ({
  success: false,
  error,
  code,
});
export const pathsOf = (body: { details: Array<{ path: string }> }) => body.details.map((d) => d.path).sort();

export type ShareTeam = {
  owner: SignedUpUser;
  admin: SignedUpUser;
  member: SignedUpUser;
  viewer: SignedUpUser;
  outsider: SignedUpUser;
  /** A video of the owner's organization, authored by the owner. */
  videoId: string;
};

/** A file-wide test app and its team; call `team()` inside tests or a later beforeAll. */
export function useShareLinkTestApp() {
  const ctx = useTestApp({ env: { APP_URL: 'https://hub.example.com' } });
  let shareTeam: ShareTeam | undefined;
  const team = () => {
    if (!shareTeam) throw new Error('useShareLinkTestApp: the team is not set up yet');
    return shareTeam;
  };

  const newVideo = (values: Partial<typeof videos.$inferInsert> = {}) =>
    createVideoRow(ctx().database.db, {
      organizationId: team().owner.organizationId,
      authorId: team().owner.id,
      ...values,
    });

  beforeAll(async () => {
    const [owner, admin, member, viewer, outsider] = (await Promise.all(
      [1, 2, 3, 4, 5].map(() => signUpUser(ctx().app)),
    )) as [SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser];
    await ctx()
      .database.db.insert(memberships)
      .values([
        { organizationId: owner.organizationId, userId: admin.id, role: 'admin' },
        { organizationId: owner.organizationId, userId: member.id, role: 'member' },
        { organizationId: owner.organizationId, userId: viewer.id, role: 'viewer' },
      ]);
    shareTeam = { owner, admin, member, viewer, outsider, videoId: '' };
    shareTeam.videoId = (await newVideo()).id;
  });

  const call = (
    user: SignedUpUser | null,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) =>
    ctx().app.inject({
      method,
      url,
      headers: { ...(user ? user.headers : {}), ...headers },
      ...(payload ? { payload } : {}),
    });

  async function createLink(
    payload: Record<string, unknown> = {},
    video = team().videoId,
    user = team().owner,
  ) {
    const response = await call(user, 'POST', `/videos/${video}/share-links`, payload);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  const open = (token: string, headers: Record<string, string> = {}, user: SignedUpUser | null = null) =>
    call(user, 'GET', `/share/${token}`, undefined, headers);
  const verify = (token: string, password: string) =>
    call(null, 'POST', `/share/${token}/verify`, { password });

  const storedLink = async (id: string) => {
    const [row] = await ctx().database.db.select().from(shareLinks).where(eq(shareLinks.id, id));
    return row;
  };
  const activityFor = (targetId: string) =>
    ctx()
      .database.db.select({
        action: activityEvents.action,
        actorId: activityEvents.actorId,
        organizationId: activityEvents.organizationId,
        targetType: activityEvents.targetType,
        metadata: activityEvents.metadata,
      })
      .from(activityEvents)
      .where(eq(activityEvents.targetId, targetId))
      .orderBy(activityEvents.createdAt, activityEvents.id);

  return { ctx, team, newVideo, call, createLink, open, verify, storedLink, activityFor };
}
