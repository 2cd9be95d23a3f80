import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { activityEvents } from '../../db/schema/index.ts';
import { unknownId } from '../transcripts/test-support.ts';
import { errorBody, isoDate, notificationRowsOf, notifyDirectly, pathsOf } from './test-support.ts';

describe('notification routes', () => {
  const ctx = useTestApp();

  const call = (
    user: SignedUpUser | null,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) =>
    ctx().app.inject({
      method,
      url,
      headers: user ? user.headers : {},
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  /** A recipient with three notifications (comment, mention, role_change, in that order) from an actor. */
  async function inbox() {
    const [recipient, actor] = await Promise.all([
      signUpUser(ctx().app, { name: 'Rita Recipient' }),
      signUpUser(ctx().app, { name: 'Arno Actor' }),
    ]);
    const organizationId = actor.organizationId;
    await notifyDirectly(ctx(), {
      recipientIds: [recipient.id],
      actorId: actor.id,
      organizationId,
      title: 'Arno Actor commented on "Roadmap"',
      body: 'Nice work',
      targetType: 'comment',
      targetId: unknownId,
      data: { videoId: unknownId, commentId: unknownId, timestamp: 12.5 },
    });
    await notifyDirectly(ctx(), {
      type: 'mention',
      recipientIds: [recipient.id],
      actorId: actor.id,
      organizationId,
      title: 'Arno Actor mentioned you',
    });
    await notifyDirectly(ctx(), {
      type: 'role_change',
      recipientIds: [recipient.id],
      title: 'Your role in Acme is now admin',
    });
    const [comment, mention, roleChange] = (await notificationRowsOf(ctx(), recipient)).map((row) => row.id);
    return {
      recipient,
      actor,
      organizationId,
      ids: { comment, mention, roleChange } as Record<string, string>,
    };
  }

  const listOf = async (user: SignedUpUser, query = '') => {
    const response = await call(user, 'GET', `/notifications${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  const idsIn = (body: { data: Array<{ id: string }> }) => body.data.map((item) => item.id);

  const activityOf = (userId: string, action: string) =>
    ctx()
      .database.db.select()
      .from(activityEvents)
      .where(and(eq(activityEvents.actorId, userId), eq(activityEvents.action, action)));

  describe('GET /notifications', () => {
    it('lists the caller’s notifications newest first, paginated, with whole bodies and the unread total', async () => {
      const { recipient, actor, organizationId, ids } = await inbox();
      const first = await listOf(recipient, '?limit=2');
      expect(first).toStrictEqual({
        data: [
          {
            id: ids.roleChange,
            type: 'role_change',
            title: 'Your role in Acme is now admin',
            body: 'Looks good',
            organizationId: null,
            actor: null,
            targetType: null,
            targetId: null,
            data: {},
            read: false,
            readAt: null,
            createdAt: isoDate,
          },
          {
            id: ids.mention,
            type: 'mention',
            title: 'Arno Actor mentioned you',
            body: 'Looks good',
            organizationId,
            actor: { id: actor.id, name: 'Arno Actor', avatarUrl: null },
            targetType: null,
            targetId: null,
            data: {},
            read: false,
            readAt: null,
            createdAt: isoDate,
          },
        ],
        pagination: { page: 1, limit: 2, total: 3, totalPages: 2 },
        unreadCount: 3,
      });
      const second = await listOf(recipient, '?limit=2&page=2');
      expect(second.pagination).toStrictEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(second.data).toStrictEqual([
        {
          id: ids.comment,
          type: 'comment',
          title: 'Arno Actor commented on "Roadmap"',
          body: 'Nice work',
          organizationId,
          actor: { id: actor.id, name: 'Arno Actor', avatarUrl: null },
          targetType: 'comment',
          targetId: unknownId,
          data: { videoId: unknownId, commentId: unknownId, timestamp: 12.5 },
          read: false,
          readAt: null,
          createdAt: isoDate,
        },
      ]);
      expect(await listOf(actor)).toStrictEqual({
        data: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0 },
        unreadCount: 0,
      });
    });

    it('filters by read state and type; unreadCount ignores the filters', async () => {
      const { recipient, ids } = await inbox();
      expect(
        (await call(recipient, 'PATCH', `/notifications/${ids.mention}`, { read: true })).statusCode,
      ).toBe(200);

      const unread = await listOf(recipient, '?unread=true');
      expect(idsIn(unread)).toStrictEqual([ids.roleChange, ids.comment]);
      expect(unread.pagination.total).toBe(2);
      expect(unread.unreadCount).toBe(2);

      const read = await listOf(recipient, '?unread=false');
      expect(idsIn(read)).toStrictEqual([ids.mention]);
      expect(read.data[0]).toMatchObject({ read: true, readAt: isoDate });
      expect(read.pagination.total).toBe(1);
      expect(read.unreadCount).toBe(2);

      const comments = await listOf(recipient, '?type=comment');
      expect(idsIn(comments)).toStrictEqual([ids.comment]);
      expect(comments.unreadCount).toBe(2);

      expect(idsIn(await listOf(recipient, '?type=mention&unread=true'))).toStrictEqual([]);
      expect(idsIn(await listOf(recipient, '?type=mention&unread=false'))).toStrictEqual([ids.mention]);
    });

    it('accepts only true and false for unread, known types and valid pages (400 with details)', async () => {
      const { recipient } = await inbox();
      for (const value of ['1', 'yes', 'TRUE', '']) {
        const response = await call(recipient, 'GET', `/notifications?unread=${value}`);
        expect(response.statusCode, value).toBe(400);
        expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
        expect(pathsOf(response.json())).toStrictEqual(['querystring.unread']);
      }
      const response = await call(recipient, 'GET', '/notifications?type=digest&page=0&limit=101');
      expect(response.statusCode).toBe(400);
      expect(pathsOf(response.json())).toStrictEqual([
        'querystring.limit',
        'querystring.page',
        'querystring.type',
      ]);
    });
  });

  describe('PATCH /notifications/{id}', () => {
    it('marks read (keeping the first readAt) and unread, recording only real changes', async () => {
      const { recipient, actor, organizationId, ids } = await inbox();
      const id = ids.comment as string;
      const read = await call(recipient, 'PATCH', `/notifications/${id}`, { read: true });
      expect(read.statusCode).toBe(200);
      expect(read.json()).toStrictEqual({
        id,
        type: 'comment',
        title: 'Arno Actor commented on "Roadmap"',
        body: 'Nice work',
        organizationId,
        actor: { id: actor.id, name: 'Arno Actor', avatarUrl: null },
        targetType: 'comment',
        targetId: unknownId,
        data: { videoId: unknownId, commentId: unknownId, timestamp: 12.5 },
        read: true,
        readAt: isoDate,
        createdAt: isoDate,
      });
      const firstReadAt = read.json().readAt;

      ctx().clock.advance(60_000);
      const again = await call(recipient, 'PATCH', `/notifications/${id}`, { read: true });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toStrictEqual(read.json());
      expect((await listOf(recipient)).unreadCount).toBe(2);

      const readEvents = await activityOf(recipient.id, 'notification.read');
      expect(readEvents).toHaveLength(1);
      expect(readEvents[0]).toMatchObject({
        organizationId: null,
        targetType: 'notification',
        targetId: id,
        metadata: { type: 'comment' },
      });

      const unread = await call(recipient, 'PATCH', `/notifications/${id}`, { read: false });
      expect(unread.statusCode).toBe(200);
      expect(unread.json()).toStrictEqual({ ...read.json(), read: false, readAt: null });
      expect((await listOf(recipient)).unreadCount).toBe(3);
      expect(await activityOf(recipient.id, 'notification.unread')).toHaveLength(1);
      await call(recipient, 'PATCH', `/notifications/${id}`, { read: false });
      expect(await activityOf(recipient.id, 'notification.unread')).toHaveLength(1);

      const reread = await call(recipient, 'PATCH', `/notifications/${id}`, { read: true });
      expect(new Date(reread.json().readAt).getTime()).toBeGreaterThan(new Date(firstReadAt).getTime());
    });

    it('rejects a body without a boolean read (400 with details)', async () => {
      const { recipient, ids } = await inbox();
      for (const payload of [{}, { read: 'yes' }, { read: null }, { read: 1 }]) {
        const response = await call(recipient, 'PATCH', `/notifications/${ids.comment}`, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
        expect(pathsOf(response.json())).toStrictEqual(['body.read']);
      }
      const [row] = (await notificationRowsOf(ctx(), recipient)).filter((r) => r.id === ids.comment);
      expect(row?.readAt).toBeNull();
    });
  });

  describe('POST /notifications/read-all', () => {
    it('marks every unread notification read, keeps earlier readAt, and is idempotent', async () => {
      const { recipient, actor, ids } = await inbox();
      await notifyDirectly(ctx(), { recipientIds: [actor.id] });
      await call(recipient, 'PATCH', `/notifications/${ids.mention}`, { read: true });
      const readBefore = (await notificationRowsOf(ctx(), recipient)).find(
        (r) => r.id === ids.mention,
      )?.readAt;
      ctx().clock.advance(60_000);

      const response = await ctx().app.inject({
        method: 'POST',
        url: '/notifications/read-all',
        headers: recipient.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toStrictEqual({ updated: 2, unreadCount: 0 });
      const rows = await notificationRowsOf(ctx(), recipient);
      expect(rows.every((row) => row.readAt !== null)).toBe(true);
      expect(rows.find((row) => row.id === ids.mention)?.readAt).toStrictEqual(readBefore);
      expect((await listOf(recipient)).unreadCount).toBe(0);
      expect((await listOf(actor)).unreadCount).toBe(1);

      const again = await call(recipient, 'POST', '/notifications/read-all', {});
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toStrictEqual({ updated: 0, unreadCount: 0 });

      const events = await activityOf(recipient.id, 'notification.read_all');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        organizationId: null,
        targetType: 'notification',
        metadata: { count: 2 },
      });
    });
  });

  describe('DELETE /notifications/{id}', () => {
    it('deletes the notification, which then is gone from the list and answers 404', async () => {
      const { recipient, ids } = await inbox();
      const response = await call(recipient, 'DELETE', `/notifications/${ids.mention}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ id: ids.mention, deleted: true });
      expect(idsIn(await listOf(recipient))).toStrictEqual([ids.roleChange, ids.comment]);
      const again = await call(recipient, 'DELETE', `/notifications/${ids.mention}`);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toStrictEqual(errorBody('NOT_FOUND', 'Notification not found'));
      const events = await activityOf(recipient.id, 'notification.deleted');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ targetType: 'notification', targetId: ids.mention });
    });
  });

  describe('isolation and authentication', () => {
    it('treats another person’s notification as unknown and never lists it', async () => {
      const { recipient, actor, ids } = await inbox();
      const stranger = await signUpUser(ctx().app, { name: 'Sam Stranger' });
      await notifyDirectly(ctx(), { recipientIds: [stranger.id], organizationId: stranger.organizationId });
      const notFound = errorBody('NOT_FOUND', 'Notification not found');
      for (const user of [stranger, actor]) {
        const patch = await call(user, 'PATCH', `/notifications/${ids.comment}`, { read: true });
        expect(patch.statusCode).toBe(404);
        expect(patch.json()).toStrictEqual(notFound);
        const remove = await call(user, 'DELETE', `/notifications/${ids.comment}`);
        expect(remove.statusCode).toBe(404);
        expect(remove.json()).toStrictEqual(notFound);
        expect(idsIn(await listOf(user))).not.toContain(ids.comment);
      }
      await call(stranger, 'POST', '/notifications/read-all');
      const rows = await notificationRowsOf(ctx(), recipient);
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.readAt === null)).toBe(true);
      expect((await listOf(stranger)).pagination.total).toBe(1);

      for (const url of [`/notifications/${unknownId}`, '/notifications/not-a-uuid']) {
        const response = await call(recipient, 'PATCH', url, { read: true });
        expect(response.statusCode).toBe(404);
        expect((await call(recipient, 'DELETE', url)).statusCode).toBe(404);
      }
    });

    it('answers 401 without valid credentials on every route', async () => {
      const { recipient, ids } = await inbox();
      const routes: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
        ['GET', '/notifications'],
        ['POST', '/notifications/read-all'],
        ['PATCH', `/notifications/${ids.comment}`, { read: true }],
        ['DELETE', `/notifications/${ids.comment}`],
      ];
      for (const [method, url, payload] of routes) {
        const response = await call(null, method, url, payload);
        expect(response.statusCode, `${method} ${url}`).toBe(401);
        expect(response.json()).toStrictEqual(errorBody('UNAUTHORIZED'));
        const badToken = await ctx().app.inject({
          method,
          url,
          headers: { authorization: 'Bearer not-a-session' },
          ...(payload ? { payload: payload as Record<string, unknown> } : {}),
        });
        expect(badToken.statusCode, `${method} ${url}`).toBe(401);
      }
      const rows = await notificationRowsOf(ctx(), recipient);
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.readAt === null)).toBe(true);
    });
  });
});
