import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import {
  activityEvents,
  betaAccessRequests,
  invitations,
  passwordResetTokens,
  users,
} from '../../db/schema/index.ts';
import { hashToken } from '../../lib/crypto.ts';

const DAY = 24 * 3600 * 1000;
const ADMIN_EMAIL = 'activity-admin@example.com';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('activity', () => {
  const ctx = useTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  const inject = (options: InjectOptions) => ctx().app.inject(options);

  const eventsOf = (where: { action: string; actorId?: string | null; targetId?: string }) =>
    ctx()
      .database.db.select({
        organizationId: activityEvents.organizationId,
        actorId: activityEvents.actorId,
        targetType: activityEvents.targetType,
        targetId: activityEvents.targetId,
        metadata: activityEvents.metadata,
      })
      .from(activityEvents)
      .where(
        and(
          eq(activityEvents.action, where.action),
          where.actorId ? eq(activityEvents.actorId, where.actorId) : undefined,
          where.targetId ? eq(activityEvents.targetId, where.targetId) : undefined,
        ),
      );

  const get = (url: string, user: SignedUpUser) => inject({ method: 'GET', url, headers: user.headers });

  /** A user who also owns a second, fresh organization (so its log holds only what the test writes). */
  async function userWithOrganization() {
    const user = await signUpUser(ctx().app);
    const created = await inject({
      method: 'POST',
      url: '/organizations',
      headers: user.headers,
      payload: { name: `Team ${randomBytes(3).toString('hex')}` },
    });
    expect(created.statusCode).toBe(201);
    return { user, organizationId: created.json().id as string };
  }

  async function insertEvents(
    rows: Array<{ organizationId: string | null; actorId: string | null; action: string; at: Date }>,
  ) {
    await ctx()
      .database.db.insert(activityEvents)
      .values(
        rows.map(({ at, action, ...row }) => ({
          ...row,
          action,
          targetType: action.split('.')[0] as string,
          targetId: null,
          createdAt: at,
        })),
      );
  }

  describe('identity events', () => {
    it('records sign-up, the personal organization, profile changes, sessions and API keys', async () => {
      const user = await signUpUser(ctx().app);
      expect(await eventsOf({ action: 'user.signed_up', actorId: user.id })).toEqual([
        {
          organizationId: null,
          actorId: user.id,
          targetType: 'user',
          targetId: user.id,
          metadata: { method: 'password' },
        },
      ]);
      expect(await eventsOf({ action: 'organization.created', actorId: user.id })).toEqual([
        {
          organizationId: user.organizationId,
          actorId: user.id,
          targetType: 'organization',
          targetId: user.organizationId,
          metadata: { name: `${user.name}'s workspace`, slug: expect.any(String) },
        },
      ]);

      const patched = await inject({
        method: 'PATCH',
        url: '/users/me',
        headers: user.headers,
        payload: { name: 'Renamed' },
      });
      expect(patched.statusCode).toBe(200);
      expect(await eventsOf({ action: 'user.updated', actorId: user.id })).toEqual([
        {
          organizationId: null,
          actorId: user.id,
          targetType: 'user',
          targetId: user.id,
          metadata: { fields: ['name'] },
        },
      ]);

      const key = await inject({
        method: 'POST',
        url: '/users/me/api-keys',
        headers: user.headers,
        payload: { name: 'CI' },
      });
      expect(key.statusCode).toBe(201);
      const { id: keyId, key: secret, prefix } = key.json();
      const [created] = await eventsOf({ action: 'api_key.created', actorId: user.id });
      expect(created).toEqual({
        organizationId: null,
        actorId: user.id,
        targetType: 'api_key',
        targetId: keyId,
        metadata: { name: 'CI', prefix },
      });
      expect(JSON.stringify(created)).not.toContain(secret);
      const removed = await inject({
        method: 'DELETE',
        url: `/users/me/api-keys/${keyId}`,
        headers: user.headers,
      });
      expect(removed.statusCode).toBe(200);
      expect(await eventsOf({ action: 'api_key.deleted', actorId: user.id })).toHaveLength(1);

      const second = await inject({
        method: 'POST',
        url: '/auth/sign-in',
        payload: { email: user.email, password: user.password },
      });
      const sessions = await get('/users/me/sessions', user);
      const other = sessions.json().data.find((session: { current: boolean }) => !session.current);
      expect(second.statusCode).toBe(200);
      const revoked = await inject({
        method: 'DELETE',
        url: `/users/me/sessions/${other.id}`,
        headers: user.headers,
      });
      expect(revoked.statusCode).toBe(200);
      expect(await eventsOf({ action: 'session.revoked', actorId: user.id })).toEqual([
        { organizationId: null, actorId: user.id, targetType: 'session', targetId: other.id, metadata: {} },
      ]);
    });

    it('records organization changes, role changes, leaving and removal', async () => {
      const { user: owner, organizationId } = await userWithOrganization();
      const updated = await inject({
        method: 'PATCH',
        url: `/organizations/${organizationId}`,
        headers: owner.headers,
        payload: { name: 'Renamed team' },
      });
      expect(updated.statusCode).toBe(200);
      expect(await eventsOf({ action: 'organization.updated', targetId: organizationId })).toEqual([
        {
          organizationId,
          actorId: owner.id,
          targetType: 'organization',
          targetId: organizationId,
          metadata: { fields: ['name'] },
        },
      ]);

      // Two people join through invitations whose tokens the test knows.
      const joiners = [await signUpUser(ctx().app), await signUpUser(ctx().app)];
      for (const joiner of joiners) {
        const token = randomBytes(16).toString('hex');
        const [invitation] = await ctx()
          .database.db.insert(invitations)
          .values({
            organizationId,
            email: joiner.email,
            role: 'viewer',
            tokenHash: hashToken(token),
            invitedBy: owner.id,
            expiresAt: new Date(Date.now() + DAY),
          })
          .returning({ id: invitations.id });
        const accepted = await inject({
          method: 'POST',
          url: `/invitations/${token}/accept`,
          headers: joiner.headers,
        });
        expect(accepted.statusCode).toBe(201);
        expect(await eventsOf({ action: 'invitation.accepted', actorId: joiner.id })).toEqual([
          {
            organizationId,
            actorId: joiner.id,
            targetType: 'invitation',
            targetId: invitation?.id,
            metadata: { role: 'viewer' },
          },
        ]);
      }
      const [stays, leaves] = joiners as [SignedUpUser, SignedUpUser];

      const promoted = await inject({
        method: 'PATCH',
        url: `/organizations/${organizationId}/members/${stays.id}`,
        headers: owner.headers,
        payload: { role: 'member' },
      });
      expect(promoted.statusCode).toBe(200);
      expect(await eventsOf({ action: 'member.role_changed', targetId: stays.id })).toEqual([
        {
          organizationId,
          actorId: owner.id,
          targetType: 'user',
          targetId: stays.id,
          metadata: { from: 'viewer', to: 'member' },
        },
      ]);

      const left = await inject({
        method: 'DELETE',
        url: `/organizations/${organizationId}/members/${leaves.id}`,
        headers: leaves.headers,
      });
      expect(left.statusCode).toBe(200);
      expect(await eventsOf({ action: 'member.left', actorId: leaves.id })).toEqual([
        {
          organizationId,
          actorId: leaves.id,
          targetType: 'user',
          targetId: leaves.id,
          metadata: { role: 'viewer' },
        },
      ]);
      const removed = await inject({
        method: 'DELETE',
        url: `/organizations/${organizationId}/members/${stays.id}`,
        headers: owner.headers,
      });
      expect(removed.statusCode).toBe(200);
      expect(await eventsOf({ action: 'member.removed', targetId: stays.id })).toEqual([
        {
          organizationId,
          actorId: owner.id,
          targetType: 'user',
          targetId: stays.id,
          metadata: { role: 'member' },
        },
      ]);

      const invited = await inject({
        method: 'POST',
        url: `/organizations/${organizationId}/invitations`,
        headers: owner.headers,
        payload: { email: 'someone@example.com', role: 'member' },
      });
      expect(invited.statusCode).toBe(201);
      const invitationId = invited.json().id;
      expect(await eventsOf({ action: 'invitation.created', targetId: invitationId })).toEqual([
        {
          organizationId,
          actorId: owner.id,
          targetType: 'invitation',
          targetId: invitationId,
          metadata: { email: 'someone@example.com', role: 'member' },
        },
      ]);
      const revoked = await inject({
        method: 'DELETE',
        url: `/organizations/${organizationId}/invitations/${invitationId}`,
        headers: owner.headers,
      });
      expect(revoked.statusCode).toBe(200);
      expect(await eventsOf({ action: 'invitation.revoked', targetId: invitationId })).toHaveLength(1);

      const deleted = await inject({
        method: 'DELETE',
        url: `/organizations/${organizationId}`,
        headers: owner.headers,
      });
      expect(deleted.statusCode).toBe(200);
      expect(await eventsOf({ action: 'organization.deleted', targetId: organizationId })).toEqual([
        {
          organizationId: null,
          actorId: owner.id,
          targetType: 'organization',
          targetId: organizationId,
          metadata: { name: 'Renamed team' },
        },
      ]);
    });

    it('records password resets, account deletion and beta access', async () => {
      const user = await signUpUser(ctx().app);
      const token = randomBytes(16).toString('hex');
      await ctx()
        .database.db.insert(passwordResetTokens)
        .values({ userId: user.id, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + DAY) });
      const reset = await inject({
        method: 'POST',
        url: '/auth/reset-password/confirm',
        payload: { token, password: 'a brand new password' },
      });
      expect(reset.statusCode).toBe(200);
      expect(await eventsOf({ action: 'password.reset', actorId: user.id })).toEqual([
        { organizationId: null, actorId: user.id, targetType: 'user', targetId: user.id, metadata: {} },
      ]);

      const other = await signUpUser(ctx().app);
      const deleted = await inject({ method: 'DELETE', url: '/users/me', headers: other.headers });
      expect(deleted.statusCode).toBe(200);
      expect(await eventsOf({ action: 'user.deleted', actorId: other.id })).toEqual([
        {
          organizationId: null,
          actorId: other.id,
          targetType: 'user',
          targetId: other.id,
          metadata: { organizationsDeleted: 1 },
        },
      ]);

      const email = `beta-${randomBytes(4).toString('hex')}@example.com`;
      const requested = await inject({ method: 'POST', url: '/beta-access', payload: { email } });
      expect(requested.statusCode).toBe(201);
      const [request] = await ctx()
        .database.db.select({ id: betaAccessRequests.id })
        .from(betaAccessRequests)
        .where(eq(betaAccessRequests.email, email));
      expect(await eventsOf({ action: 'beta_access.requested', targetId: request?.id })).toEqual([
        {
          organizationId: null,
          actorId: null,
          targetType: 'beta_access_request',
          targetId: request?.id,
          metadata: {},
        },
      ]);
      const admin = await signUpUser(ctx().app, { email: ADMIN_EMAIL });
      await ctx()
        .database.db.update(users)
        .set({ emailVerifiedAt: new Date() })
        .where(eq(users.id, admin.id));
      const approved = await inject({
        method: 'POST',
        url: `/beta-access/${request?.id}/approve`,
        headers: admin.headers,
      });
      expect(approved.statusCode).toBe(200);
      expect(await eventsOf({ action: 'beta_access.approved', targetId: request?.id })).toEqual([
        {
          organizationId: null,
          actorId: admin.id,
          targetType: 'beta_access_request',
          targetId: request?.id,
          metadata: {},
        },
      ]);
    });
  });

  describe('GET /activity', () => {
    it('lists the events of my organizations and my account, newest first, never another organization', async () => {
      const { user, organizationId } = await userWithOrganization();
      const stranger = await userWithOrganization();
      const now = Date.now();
      await insertEvents([
        { organizationId, actorId: user.id, action: 'video.created', at: new Date(now - 3 * DAY) },
        { organizationId, actorId: user.id, action: 'video.updated', at: new Date(now - 2 * DAY) },
        // Another user's account event and another organization's event stay invisible.
        { organizationId: null, actorId: stranger.user.id, action: 'user.updated', at: new Date(now - DAY) },
        {
          organizationId: stranger.organizationId,
          actorId: stranger.user.id,
          action: 'video.created',
          at: new Date(now - DAY),
        },
      ]);

      const response = await get('/activity?limit=100', user);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const actions = body.data.map((event: { action: string }) => event.action);
      // Newest first: sign-up's events, then the two inserted ones.
      expect(actions.slice(-2)).toEqual(['video.updated', 'video.created']);
      expect(actions).toContain('user.signed_up');
      expect(actions).not.toContain('user.updated');
      expect(
        body.data.every((event: { organizationId: string | null }) =>
          [organizationId, user.organizationId, null].includes(event.organizationId),
        ),
      ).toBe(true);
      expect(body.data.some((event: { actorId: string }) => event.actorId === stranger.user.id)).toBe(false);
      expect(body.pagination).toEqual({ page: 1, limit: 100, total: body.data.length, totalPages: 1 });
      const times = body.data.map((event: { createdAt: string }) => event.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect(body.data.at(-1)).toEqual({
        id: expect.any(String),
        organizationId,
        actorId: user.id,
        actor: { id: user.id, name: user.name },
        action: 'video.created',
        targetType: 'video',
        targetId: null,
        metadata: {},
        createdAt: expect.stringMatching(ISO),
      });
    });

    it('filters by organization, actor, action, target type and time, and paginates', async () => {
      const { user, organizationId } = await userWithOrganization();
      const colleague = await signUpUser(ctx().app);
      const base = Date.now() - 10 * DAY;
      await insertEvents([
        { organizationId, actorId: user.id, action: 'video.created', at: new Date(base) },
        { organizationId, actorId: colleague.id, action: 'video.created', at: new Date(base + DAY) },
        { organizationId, actorId: colleague.id, action: 'channel.followed', at: new Date(base + 2 * DAY) },
        { organizationId, actorId: null, action: 'video.deleted', at: new Date(base + 3 * DAY) },
      ]);
      const list = async (query: string) => {
        const response = await get(`/activity?organizationId=${organizationId}&${query}`, user);
        expect(response.statusCode).toBe(200);
        return response.json();
      };

      expect((await list(`actorId=${colleague.id}`)).data.map((e: { action: string }) => e.action)).toEqual([
        'channel.followed',
        'video.created',
      ]);
      const created = await list('action=video.created');
      expect(created.data.map((e: { actorId: string }) => e.actorId)).toEqual([colleague.id, user.id]);
      // The colleague is no member, but their name shows with their event.
      expect(created.data[0].actor).toEqual({ id: colleague.id, name: colleague.name });
      expect((await list('targetType=channel')).pagination.total).toBe(1);
      const deleted = await list('action=video.deleted');
      expect(deleted.data[0]).toMatchObject({ actorId: null, actor: null });
      const from = new Date(base + DAY).toISOString();
      const to = new Date(base + 2 * DAY).toISOString();
      expect((await list(`from=${from}&to=${to}`)).data.map((e: { action: string }) => e.action)).toEqual([
        'channel.followed',
        'video.created',
      ]);

      // Five events in all (with organization.created): pages of two.
      const first = await list('limit=2');
      const third = await list('limit=2&page=3');
      expect(first.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 });
      expect(first.data.map((e: { action: string }) => e.action)).toEqual([
        'organization.created',
        'video.deleted',
      ]);
      expect(third.data.map((e: { action: string }) => e.action)).toEqual(['video.created']);
      expect(third.data[0].actorId).toBe(user.id);
    });

    it('answers 403 for an organization I do not belong to', async () => {
      const user = await signUpUser(ctx().app);
      const stranger = await signUpUser(ctx().app);
      const response = await get(`/activity?organizationId=${stranger.organizationId}`, user);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        success: false,
        error: 'You are not a member of this organization',
        code: 'NOT_A_MEMBER',
      });
    });

    it('validates the query', async () => {
      const user = await signUpUser(ctx().app);
      const response = await get(
        '/activity?organizationId=nope&actorId=1&action=&limit=500&page=0&from=yesterday',
        user,
      );
      expect(response.statusCode).toBe(400);
      const paths = response
        .json()
        .details.map((detail: { path: string }) => detail.path)
        .sort();
      expect(paths).toEqual([
        'querystring.action',
        'querystring.actorId',
        'querystring.from',
        'querystring.limit',
        'querystring.organizationId',
        'querystring.page',
      ]);
      const reversed = await get('/activity?from=2026-02-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z', user);
      expect(reversed.statusCode).toBe(400);
      expect(reversed.json()).toEqual({
        success: false,
        error: 'Invalid request',
        code: 'VALIDATION_ERROR',
        details: [{ path: 'querystring.to', message: 'must not be before from' }],
      });
    });

    it('answers 401 without or with invalid credentials', async () => {
      for (const url of ['/activity', '/activity/stats']) {
        const anonymous = await inject({ method: 'GET', url });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
        const invalid = await inject({ method: 'GET', url, headers: { authorization: 'Bearer nope' } });
        expect(invalid.statusCode).toBe(401);
        expect(invalid.json()).toMatchObject({ success: false, code: 'INVALID_SESSION' });
      }
    });
  });

  describe('GET /activity/stats', () => {
    it('counts per action and per day, active users and top contributors', async () => {
      const { user, organizationId } = await userWithOrganization();
      const colleague = await signUpUser(ctx().app);
      const stranger = await userWithOrganization();
      const today = new Date(new Date().toISOString().slice(0, 10));
      const at = (daysAgo: number, hour = 12) =>
        new Date(today.getTime() - daysAgo * DAY + hour * 3600 * 1000);
      const day = (daysAgo: number) => at(daysAgo).toISOString().slice(0, 10);
      await insertEvents([
        { organizationId, actorId: colleague.id, action: 'video.created', at: at(0, 0) },
        { organizationId, actorId: colleague.id, action: 'video.created', at: at(2) },
        { organizationId, actorId: colleague.id, action: 'video.updated', at: at(2, 23) },
        { organizationId, actorId: null, action: 'video.deleted', at: at(1) },
        // Outside three days: counted for 30, not for 3.
        { organizationId, actorId: user.id, action: 'video.created', at: at(3, 23) },
        {
          organizationId: stranger.organizationId,
          actorId: stranger.user.id,
          action: 'video.created',
          at: at(0),
        },
      ]);
      const stats = async (query: string) => {
        const response = await get(`/activity/stats?organizationId=${organizationId}&${query}`, user);
        expect(response.statusCode).toBe(200);
        return response.json();
      };

      // Creating the organization today wrote organization.created by the owner.
      expect(await stats('days=3')).toEqual({
        days: 3,
        totals: { 'video.created': 2, 'video.updated': 1, 'video.deleted': 1, 'organization.created': 1 },
        perDay: [
          { date: day(2), count: 2 },
          { date: day(1), count: 1 },
          { date: day(0), count: 2 },
        ],
        activeUsers: 2,
        topContributors: [
          { userId: colleague.id, name: colleague.name, count: 3 },
          { userId: user.id, name: user.name, count: 1 },
        ],
      });

      const month = await stats('');
      expect(month.days).toBe(30);
      expect(month.perDay).toHaveLength(30);
      expect(month.perDay[0]).toEqual({ date: day(29), count: 0 });
      expect(month.perDay[26]).toEqual({ date: day(3), count: 1 });
      expect(month.totals['video.created']).toBe(3);
      expect(month.topContributors).toEqual([
        { userId: colleague.id, name: colleague.name, count: 3 },
        { userId: user.id, name: user.name, count: 2 },
      ]);

      // Without an organization: all of mine, plus my own account events (sign-up, two organizations).
      const everything = await get('/activity/stats?days=1', user);
      expect(everything.json().totals).toEqual({
        'user.signed_up': 1,
        'organization.created': 2,
        'video.created': 1,
      });
    });

    it('validates days and refuses other organizations', async () => {
      const user = await signUpUser(ctx().app);
      for (const days of ['0', '366', 'x']) {
        const response = await get(`/activity/stats?days=${days}`, user);
        expect(response.statusCode).toBe(400);
        expect(response.json().details).toEqual([{ path: 'querystring.days', message: expect.any(String) }]);
      }
      const stranger = await signUpUser(ctx().app);
      const forbidden = await get(`/activity/stats?organizationId=${stranger.organizationId}`, user);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ success: false, code: 'NOT_A_MEMBER' });
    });
  });
});
