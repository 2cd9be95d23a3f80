import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { createChannelRow } from '../../../test/helpers/library.ts';
import { mailOutbox, memberships, notifications } from '../../db/schema/index.ts';
import { type Team, team } from '../transcripts/test-support.ts';
import { isoDate, notificationRowsOf } from './test-support.ts';

describe('notification triggers', () => {
  // One organization takes every trigger's people: more than the free plan's seats.
  const ctx = useTestApp({ env: { FREE_PLAN_SEATS: '100' } });
  let t: Team;
  let organizationName: string;

  beforeAll(async () => {
    t = await team(ctx());
    const response = await ctx().app.inject({
      method: 'GET',
      url: `/organizations/${t.organizationId}`,
      headers: t.owner.headers,
    });
    organizationName = response.json().name;
  });

  const call = async (
    user: SignedUpUser,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
    expected = 200,
  ) => {
    const response = await ctx().app.inject({ method, url, headers: user.headers, payload });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(expected);
    return response.json();
  };

  /** The caller's notifications of one type, newest first, as the API shows them. */
  const notificationsOf = async (user: SignedUpUser, type: string) =>
    (await call(user, 'GET', `/notifications?type=${type}&limit=100`)).data;

  async function joinTeam(name: string) {
    const user = await signUpUser(ctx().app, { name });
    await ctx()
      .database.db.insert(memberships)
      .values({ organizationId: t.organizationId, userId: user.id, role: 'member' });
    return user;
  }

  /** A channel of the team followed by `followers` (through the API). */
  async function followedChannel(name: string, followers: SignedUpUser[]) {
    const channel = await createChannelRow(ctx().database.db, { organizationId: t.organizationId, name });
    for (const follower of followers)
      await call(follower, 'POST', `/channels/${channel.id}/follow`, undefined, 201);
    return channel;
  }

  const postVideo = (author: SignedUpUser, fields: Record<string, unknown>) =>
    call(
      author,
      'POST',
      '/videos',
      { organizationId: t.organizationId, title: 'Quarterly review', duration: '12:00', ...fields },
      201,
    );

  describe('channel_video', () => {
    it('tells the followers still in the organization of a new video in the channel, not its author', async () => {
      const [follower, leaver, bystander] = await Promise.all([
        joinTeam('Fiona Follower'),
        joinTeam('Leo Leaver'),
        joinTeam('Bea Bystander'),
      ]);
      const channel = await followedChannel('design', [follower, t.viewer, leaver, t.member]);
      await call(leaver, 'DELETE', `/organizations/${t.organizationId}/members/${leaver.id}`);

      const description = 'é'.repeat(150) + '🎬'.repeat(100);
      const video = await postVideo(t.member, { channelId: channel.id, title: 'Kickoff', description });
      const expected = {
        id: expect.any(String),
        type: 'channel_video',
        title: 'New video in #design: "Kickoff"',
        body: `${'é'.repeat(150)}${'🎬'.repeat(49)}…`,
        organizationId: t.organizationId,
        actor: { id: t.member.id, name: t.member.name, avatarUrl: null },
        targetType: 'video',
        targetId: video.id,
        data: { videoId: video.id, channelId: channel.id },
        read: false,
        readAt: null,
        createdAt: isoDate,
      };
      expect(await notificationsOf(follower, 'channel_video')).toStrictEqual([expected]);
      expect(await notificationsOf(t.viewer, 'channel_video')).toStrictEqual([
        { ...expected, id: expect.any(String) },
      ]);
      for (const user of [t.member, leaver, bystander]) {
        expect(await notificationRowsOf(ctx(), user)).toStrictEqual([]);
      }

      await postVideo(t.member, { title: 'No channel' });
      await postVideo(follower, { channelId: channel.id, title: 'Short', description: null });
      expect(
        (await notificationsOf(follower, 'channel_video')).map((n: { title: string }) => n.title),
      ).toStrictEqual(['New video in #design: "Kickoff"']);
      const [short] = await notificationsOf(t.member, 'channel_video');
      expect(short).toMatchObject({
        title: 'New video in #design: "Short"',
        body: '',
        actor: { id: follower.id },
      });
    });

    it('tells the followers when a video moves into the channel, and only then', async () => {
      const follower = await joinTeam('Fred Follower');
      const channel = await followedChannel('research', [follower]);
      const elsewhere = await followedChannel('elsewhere', []);
      const video = await postVideo(t.admin, { title: 'Interview', description: 'Talk with users' });
      expect(await notificationsOf(follower, 'channel_video')).toStrictEqual([]);

      await call(t.admin, 'PATCH', `/videos/${video.id}`, { channelId: channel.id });
      const [moved] = await notificationsOf(follower, 'channel_video');
      expect(moved).toMatchObject({
        title: 'New video in #research: "Interview"',
        body: 'Talk with users',
        actor: { id: t.admin.id },
        targetId: video.id,
        data: { videoId: video.id, channelId: channel.id },
      });

      // Changes that do not bring it into the channel tell nobody.
      await call(t.admin, 'PATCH', `/videos/${video.id}`, { channelId: channel.id, title: 'Interview 2' });
      await call(t.admin, 'PATCH', `/videos/${video.id}`, { channelId: null });
      await call(t.admin, 'PATCH', `/videos/${video.id}`, { channelId: elsewhere.id });
      expect(await notificationsOf(follower, 'channel_video')).toHaveLength(1);

      await call(t.admin, 'PATCH', `/videos/${video.id}`, { channelId: channel.id });
      expect(
        (await notificationsOf(follower, 'channel_video')).map((n: { title: string }) => n.title),
      ).toStrictEqual(['New video in #research: "Interview 2"', 'New video in #research: "Interview"']);
    });
  });

  describe('role_change', () => {
    it('tells the member when their role actually changes', async () => {
      const member = await joinTeam('Rolf Role');
      const url = `/organizations/${t.organizationId}/members/${member.id}`;
      await call(t.admin, 'PATCH', url, { role: 'admin' });
      expect(await notificationsOf(member, 'role_change')).toStrictEqual([
        {
          id: expect.any(String),
          type: 'role_change',
          title: `Your role in ${organizationName} is now admin`,
          body: `${t.admin.name} changed your role from member to admin.`,
          organizationId: t.organizationId,
          actor: { id: t.admin.id, name: t.admin.name, avatarUrl: null },
          targetType: 'organization',
          targetId: t.organizationId,
          data: { organizationId: t.organizationId, from: 'member', to: 'admin' },
          read: false,
          readAt: null,
          createdAt: isoDate,
        },
      ]);
      await call(t.owner, 'PATCH', url, { role: 'admin' });
      expect(await notificationsOf(member, 'role_change')).toHaveLength(1);
      await call(t.owner, 'PATCH', url, { role: 'viewer' });
      const [latest] = await notificationsOf(member, 'role_change');
      expect(latest).toMatchObject({
        title: `Your role in ${organizationName} is now viewer`,
        body: `${t.owner.name} changed your role from admin to viewer.`,
        data: { organizationId: t.organizationId, from: 'admin', to: 'viewer' },
      });
      // Nobody else hears of it.
      expect(await notificationRowsOf(ctx(), t.admin)).toStrictEqual([]);
    });
  });

  describe('invitation', () => {
    it('tells an existing account it was invited (never with the token), and queues no second mail', async () => {
      const invitee = await signUpUser(ctx().app, { name: 'Ines Invitee' });
      const invitation = await call(
        t.admin,
        'POST',
        `/organizations/${t.organizationId}/invitations`,
        { email: invitee.email, role: 'viewer' },
        201,
      );
      expect(await notificationsOf(invitee, 'invitation')).toStrictEqual([
        {
          id: expect.any(String),
          type: 'invitation',
          title: `${t.admin.name} invited you to ${organizationName}`,
          body: `You are invited to join ${organizationName} as viewer. The invitation mail sent to ${invitee.email} has the link to accept it.`,
          organizationId: t.organizationId,
          actor: { id: t.admin.id, name: t.admin.name, avatarUrl: null },
          targetType: 'invitation',
          targetId: invitation.id,
          data: { invitationId: invitation.id, organizationId: t.organizationId, role: 'viewer' },
          read: false,
          readAt: null,
          createdAt: isoDate,
        },
      ]);
      const mails = await ctx().database.db.select().from(mailOutbox).where(eq(mailOutbox.to, invitee.email));
      expect(mails.map((mail) => mail.subject)).toStrictEqual([
        `${t.admin.name} invited you to ${organizationName} on Knowledge Hub`,
      ]);
    });

    it('tells nobody when no account has the invited address', async () => {
      const invitation = await call(
        t.owner,
        'POST',
        `/organizations/${t.organizationId}/invitations`,
        { email: 'nobody-yet@example.com', role: 'member' },
        201,
      );
      const rows = await ctx()
        .database.db.select()
        .from(notifications)
        .where(and(eq(notifications.type, 'invitation'), eq(notifications.targetId, invitation.id)));
      expect(rows).toStrictEqual([]);
    });
  });
});
