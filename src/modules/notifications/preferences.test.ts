import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { activityEvents, mailOutbox, notificationPreferences } from '../../db/schema/index.ts';
import { useMailingTestApp } from '../organizations/test-support.ts';
import { decodedHeader, errorBody, mailsTo, notificationRowsOf, notifyDirectly } from './test-support.ts';

const DEFAULTS = {
  comment: { inApp: true, email: true },
  reply: { inApp: true, email: true },
  mention: { inApp: true, email: true },
  channel_video: { inApp: true, email: false },
  invitation: { inApp: true, email: true },
  role_change: { inApp: true, email: true },
  ai_budget: { inApp: true, email: true },
  billing: { inApp: true, email: true },
  integration: { inApp: true, email: true },
};

describe('notification preferences', () => {
  const ctx = useMailingTestApp();

  const getPreferences = (user: SignedUpUser | null) =>
    ctx().app.inject({
      method: 'GET',
      url: '/users/me/notification-preferences',
      headers: user ? user.headers : {},
    });

  const putPreferences = (user: SignedUpUser | null, payload: unknown) =>
    ctx().app.inject({
      method: 'PUT',
      url: '/users/me/notification-preferences',
      headers: user ? user.headers : {},
      payload: payload as Record<string, unknown>,
    });

  async function choose(user: SignedUpUser, preferences: Record<string, unknown>) {
    const response = await putPreferences(user, { preferences });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  const updateEvents = (user: SignedUpUser) =>
    ctx()
      .database.db.select()
      .from(activityEvents)
      .where(
        and(
          eq(activityEvents.actorId, user.id),
          eq(activityEvents.action, 'notification_preferences.updated'),
        ),
      );

  const outboxTo = (email: string) =>
    ctx().database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email));

  describe('GET /users/me/notification-preferences', () => {
    it('reports every type with its default until the person chooses', async () => {
      const user = await signUpUser(ctx().app);
      const response = await getPreferences(user);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ preferences: DEFAULTS });
    });
  });

  describe('PUT /users/me/notification-preferences', () => {
    it('changes only the types and channels sent, stores them, records what changed, and answers the whole', async () => {
      const user = await signUpUser(ctx().app);
      const other = await signUpUser(ctx().app);
      const first = await choose(user, { comment: { email: false }, channel_video: { email: true } });
      const afterFirst = {
        preferences: {
          ...DEFAULTS,
          comment: { inApp: true, email: false },
          channel_video: { inApp: true, email: true },
        },
      };
      expect(first).toStrictEqual(afterFirst);

      const second = await choose(user, {
        comment: { inApp: false },
        invitation: { inApp: false, email: true },
      });
      const afterSecond = {
        preferences: {
          ...afterFirst.preferences,
          comment: { inApp: false, email: false },
          invitation: { inApp: false, email: true },
        },
      };
      expect(second).toStrictEqual(afterSecond);
      expect((await getPreferences(user)).json()).toStrictEqual(afterSecond);
      expect((await getPreferences(other)).json()).toStrictEqual({ preferences: DEFAULTS });

      const rows = await ctx()
        .database.db.select({
          type: notificationPreferences.type,
          inApp: notificationPreferences.inApp,
          email: notificationPreferences.email,
        })
        .from(notificationPreferences)
        .where(eq(notificationPreferences.userId, user.id));
      expect(rows.sort((a, b) => a.type.localeCompare(b.type))).toStrictEqual([
        { type: 'channel_video', inApp: true, email: true },
        { type: 'comment', inApp: false, email: false },
        { type: 'invitation', inApp: false, email: true },
      ]);

      // Sending what is already set changes nothing and records nothing.
      expect(await choose(user, { comment: { inApp: false }, reply: {} })).toStrictEqual(afterSecond);
      expect(await choose(user, {})).toStrictEqual(afterSecond);
      const events = await updateEvents(user);
      expect(events.map((event) => event.metadata)).toStrictEqual([
        { changed: { comment: { email: false }, channel_video: { email: true } } },
        { changed: { comment: { inApp: false }, invitation: { inApp: false } } },
      ]);
      expect(events[0]).toMatchObject({ organizationId: null, targetType: 'user', targetId: user.id });
    });

    it('refuses unknown types and channels, non-booleans, and turning invitation mails off (400 with details)', async () => {
      const user = await signUpUser(ctx().app);
      const cases: Array<[unknown, Array<{ path: string; message: string }>]> = [
        [{}, [{ path: 'body.preferences', message: expect.any(String) }]],
        [
          { preferences: { digest: { email: false } } },
          [{ path: 'body.preferences', message: expect.any(String) }],
        ],
        [
          { preferences: { comment: { push: true } } },
          [{ path: 'body.preferences.comment', message: expect.any(String) }],
        ],
        [
          { preferences: { comment: { email: 'no' } } },
          [{ path: 'body.preferences.comment.email', message: expect.any(String) }],
        ],
        [
          { preferences: { invitation: { email: false } } },
          [
            {
              path: 'body.preferences.invitation.email',
              message: 'invitation mails are always sent: email can only be true',
            },
          ],
        ],
        [{ preferences: {}, extra: true }, [{ path: 'body', message: expect.any(String) }]],
      ];
      for (const [payload, details] of cases) {
        const response = await putPreferences(user, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toStrictEqual({ ...errorBody('VALIDATION_ERROR'), details });
      }
      expect((await getPreferences(user)).json()).toStrictEqual({ preferences: DEFAULTS });
      expect(await updateEvents(user)).toHaveLength(0);
    });

    it('answers 401 without valid credentials', async () => {
      expect((await getPreferences(null)).statusCode).toBe(401);
      expect((await putPreferences(null, { preferences: { comment: { email: false } } })).statusCode).toBe(
        401,
      );
      const bad = await ctx().app.inject({
        method: 'GET',
        url: '/users/me/notification-preferences',
        headers: { authorization: 'Bearer nope' },
      });
      expect(bad.statusCode).toBe(401);
      expect(bad.json()).toStrictEqual(errorBody('INVALID_SESSION'));
    });
  });

  describe('what notify does with them', () => {
    it('creates no in-app notification for someone who turned the type off', async () => {
      const [muted, listening] = await Promise.all([signUpUser(ctx().app), signUpUser(ctx().app)]);
      await choose(muted, { mention: { inApp: false, email: false } });
      await notifyDirectly(ctx(), {
        type: 'mention',
        recipientIds: [muted.id, listening.id],
        title: 'Mentioned',
      });
      expect(await notificationRowsOf(ctx(), muted)).toHaveLength(0);
      expect((await notificationRowsOf(ctx(), listening)).map((row) => row.title)).toStrictEqual([
        'Mentioned',
      ]);
      // Still told of other types.
      await notifyDirectly(ctx(), { type: 'reply', recipientIds: [muted.id], title: 'Replied' });
      expect((await notificationRowsOf(ctx(), muted)).map((row) => row.type)).toStrictEqual(['reply']);
    });

    it('mails those who want the type by email (subject: the title) and queues nothing for the others', async () => {
      const [mailed, quiet] = await Promise.all([
        signUpUser(ctx().app, { name: 'Mel Mailed' }),
        signUpUser(ctx().app, { name: 'Quinn Quiet' }),
      ]);
      await choose(mailed, { channel_video: { email: true } });
      await choose(quiet, { role_change: { email: false } });

      await notifyDirectly(ctx(), {
        type: 'channel_video',
        recipientIds: [mailed.id, quiet.id],
        title: 'New video in #design: "Kickoff"',
        body: 'The kickoff of the redesign',
      });
      await notifyDirectly(ctx(), {
        type: 'role_change',
        recipientIds: [mailed.id, quiet.id],
        title: 'Your role in Acme is now admin',
        body: 'Olga changed your role from member to admin.',
      });

      const received = await mailsTo(ctx(), mailed.email, 2);
      // Links a person can follow: the web app's pages, not API routes.
      for (const mail of received) {
        expect(mail.text).toContain(`Open it: ${ctx().config.appUrl}/notifications`);
        expect(mail.text).toContain(`reach you by email: ${ctx().config.appUrl}/notifications`);
      }
      const mails = received.map((mail) => ({
        subject: decodedHeader(mail.subject),
        firstLine: mail.text.split('\n')[0],
      }));
      expect(mails.sort((a, b) => a.subject.localeCompare(b.subject))).toStrictEqual([
        { subject: 'New video in #design: "Kickoff"', firstLine: 'The kickoff of the redesign' },
        {
          subject: 'Your role in Acme is now admin',
          firstLine: 'Olga changed your role from member to admin.',
        },
      ]);

      expect((await outboxTo(mailed.email)).map((row) => row.subject).sort()).toStrictEqual([
        'New video in #design: "Kickoff"',
        'Your role in Acme is now admin',
      ]);
      expect(await outboxTo(quiet.email)).toStrictEqual([]);
      // Email off leaves the in-app notifications alone.
      expect((await notificationRowsOf(ctx(), quiet)).map((row) => row.type)).toStrictEqual([
        'channel_video',
        'role_change',
      ]);
    });
  });
});
