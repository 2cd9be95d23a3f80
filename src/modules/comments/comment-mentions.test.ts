import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { commentMentions, memberships, notifications, users } from '../../db/schema/index.ts';
import { notificationViews } from '../notifications/queries.ts';
import { isoDate, mention, pathsOf, useCommentTestApp } from './test-support.ts';

describe('comments: mentions and notifications', () => {
  const { ctx, crew, newVideo, call, postComment, listComments, notificationsOf, notifiedAbout } =
    useCommentTestApp();

  it('notifies a mentioned member once, shows the mention, and tells the video author', async () => {
    const { member, otherMember, owner } = crew();
    const comment = await postComment(member, {
      body: `${mention(otherMember)} can you check the numbers at 2:00?`,
      timestamp: 120,
    });
    expect(comment.mentions).toStrictEqual([{ userId: otherMember.id, name: 'Mia Member' }]);
    const [thread] = (await listComments(member)).data.filter((c: { id: string }) => c.id === comment.id);
    expect(thread.mentions).toStrictEqual([{ userId: otherMember.id, name: 'Mia Member' }]);
    expect(thread.body).toBe(`${mention(otherMember)} can you check the numbers at 2:00?`);

    expect(await notifiedAbout(comment.id)).toStrictEqual(
      [
        { userId: otherMember.id, type: 'mention' },
        { userId: owner.id, type: 'comment' },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
    const [view] = await notificationViews(
      ctx().database.db,
      and(eq(notifications.userId, otherMember.id), eq(notifications.targetId, comment.id)),
    );
    expect(view).toStrictEqual({
      id: expect.any(String),
      type: 'mention',
      title: 'Max Member mentioned you on "Weekly sync"',
      body: '@Mia Member can you check the numbers at 2:00?',
      organizationId: crew().organizationId,
      actor: { id: member.id, name: 'Max Member', avatarUrl: null },
      targetType: 'comment',
      targetId: comment.id,
      data: { videoId: crew().videoId, commentId: comment.id, parentId: null, timestamp: 120 },
      read: false,
      readAt: null,
      createdAt: expect.any(Date),
    });
    const [toAuthor] = await notificationsOf(owner.id).then((rows) =>
      rows.filter((r) => r.targetId === comment.id),
    );
    expect(toAuthor?.title).toBe('Max Member commented on "Weekly sync"');
  });

  it('ignores a mention of someone outside the organization: no mention, no notification', async () => {
    const stranger = await signUpUser(ctx().app, { name: 'Sam Stranger' });
    const body = `Maybe ${mention(stranger)} or ${mention(crew().outsider)} knows, or @[Ghost](not-an-id)`;
    const comment = await postComment(crew().member, { body });
    expect(comment.body).toBe(body);
    expect(comment.mentions).toEqual([]);
    const db = ctx().database.db;
    expect(await db.select().from(commentMentions).where(eq(commentMentions.commentId, comment.id))).toEqual(
      [],
    );
    expect(await notificationsOf(stranger.id)).toEqual([]);
    expect(await notificationsOf(crew().outsider.id)).toEqual([]);
    expect(await notifiedAbout(comment.id)).toStrictEqual([{ userId: crew().owner.id, type: 'comment' }]);
  });

  it('tells the author of the comment replied to, even through a reply to a reply', async () => {
    const { member, otherMember, owner, viewer } = crew();
    const root = await postComment(member, { body: 'Root' });
    const reply = await postComment(otherMember, { body: 'Reply', parentId: root.id });
    expect(await notifiedAbout(reply.id)).toStrictEqual(
      [
        { userId: member.id, type: 'reply' },
        { userId: owner.id, type: 'comment' },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
    const nested = await postComment(viewer, { body: 'Reply to Mia', parentId: reply.id });
    expect(nested.parentId).toBe(root.id);
    expect(await notifiedAbout(nested.id)).toStrictEqual(
      [
        { userId: otherMember.id, type: 'reply' },
        { userId: owner.id, type: 'comment' },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
    const [toMia] = await notificationViews(
      ctx().database.db,
      and(eq(notifications.userId, otherMember.id), eq(notifications.targetId, nested.id)),
    );
    expect(toMia).toMatchObject({
      title: 'Vic Viewer replied to your comment on "Weekly sync"',
      body: 'Reply to Mia',
      data: { videoId: crew().videoId, commentId: nested.id, parentId: root.id, timestamp: null },
    });
    const byAuthor = await postComment(owner, { body: 'Noted', parentId: root.id });
    expect(await notifiedAbout(byAuthor.id)).toStrictEqual([{ userId: member.id, type: 'reply' }]);
  });

  it('sends one notification per person, a mention winning over reply and comment', async () => {
    const { member, owner } = crew();
    const root = await postComment(member, { body: 'Root' });
    const reply = await postComment(crew().admin, {
      body: `${mention(member)} ${mention(owner)} see this`,
      parentId: root.id,
    });
    expect(await notifiedAbout(reply.id)).toStrictEqual(
      [
        { userId: member.id, type: 'mention' },
        { userId: owner.id, type: 'mention' },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
  });

  it('notifies no one for a self-mention, nor the video author for their own comment', async () => {
    const { owner } = crew();
    const comment = await postComment(owner, { body: `Note to self ${mention(owner)}` });
    expect(comment.mentions).toStrictEqual([{ userId: owner.id, name: 'Olga Owner' }]);
    expect(await notifiedAbout(comment.id)).toEqual([]);
  });

  it('does not tell a video author or replied-to author who left the organization', async () => {
    const leaver = await signUpUser(ctx().app, { name: 'Lea Leaver' });
    const db = ctx().database.db;
    await db
      .insert(memberships)
      .values({ organizationId: crew().organizationId, userId: leaver.id, role: 'member' });
    const video = await newVideo({ authorId: leaver.id });
    const root = await postComment(leaver, {}, video.id);
    await db
      .delete(memberships)
      .where(and(eq(memberships.organizationId, crew().organizationId), eq(memberships.userId, leaver.id)));
    const reply = await postComment(crew().member, { body: 'Reply', parentId: root.id }, video.id);
    expect(await notifiedAbout(reply.id)).toEqual([]);
  });

  it('renders mentions as @Name and cuts the notification body to 200 characters', async () => {
    const comment = await postComment(crew().member, {
      body: `${mention(crew().otherMember)} ${'x'.repeat(300)}`,
    });
    const [row] = await notificationsOf(crew().otherMember.id).then((rows) =>
      rows.filter((r) => r.targetId === comment.id),
    );
    expect(row?.body).toBe(`@Mia Member ${'x'.repeat(199 - '@Mia Member '.length)}…`);
    expect(row?.body).toHaveLength(200);
  });

  it('lists mentions in order of appearance under the current name', async () => {
    const { admin, viewer } = crew();
    const comment = await postComment(crew().member, {
      body: `${mention(viewer)} and @[Boss](${admin.id.toUpperCase()})`,
    });
    await ctx().database.db.update(users).set({ name: 'Ada Renamed' }).where(eq(users.id, admin.id));
    const [thread] = (await listComments(viewer)).data.filter((c: { id: string }) => c.id === comment.id);
    expect(thread.mentions).toStrictEqual([
      { userId: viewer.id, name: 'Vic Viewer' },
      { userId: admin.id, name: 'Ada Renamed' },
    ]);
    await ctx().database.db.update(users).set({ name: 'Ada Admin' }).where(eq(users.id, admin.id));
  });

  it('refuses more than 50 different mentions', async () => {
    const ids = Array.from(
      { length: 51 },
      (_, i) => `0193a0b4-7c1d-7e2f-8a3b-${String(i).padStart(12, '0')}`,
    );
    const body = ids.map((id) => `@[Someone](${id})`).join(' ');
    const response = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, { body });
    expect(response.statusCode).toBe(400);
    expect(pathsOf(response.json())).toEqual(['body.body']);
    const fifty = ids.slice(0, 50).map((id) => `@[Someone](${id})`);
    expect(
      (await postComment(crew().member, { body: `${fifty.join(' ')} @[Again](${ids[0]})` })).mentions,
    ).toEqual([]);
  });

  describe('on edit', () => {
    it('notifies only newly added mentions and drops removed ones', async () => {
      const { member, otherMember, viewer, admin } = crew();
      const comment = await postComment(member, {
        body: `Hi ${mention(otherMember)} and ${mention(viewer)}`,
      });
      const edit = await call(member, 'PATCH', `/comments/${comment.id}`, {
        body: `Hi ${mention(otherMember)} and ${mention(admin)}`,
      });
      expect(edit.statusCode).toBe(200);
      expect(edit.json()).toStrictEqual({
        ...comment,
        body: `Hi ${mention(otherMember)} and ${mention(admin)}`,
        mentions: [
          { userId: otherMember.id, name: 'Mia Member' },
          { userId: admin.id, name: 'Ada Admin' },
        ],
        editedAt: isoDate,
        updatedAt: isoDate,
      });
      const mentionsOf = async (userId: string) =>
        (await notificationsOf(userId)).filter((r) => r.targetId === comment.id).map((r) => r.type);
      expect(await mentionsOf(otherMember.id)).toEqual(['mention']);
      expect(await mentionsOf(viewer.id)).toEqual(['mention']);
      expect(await mentionsOf(admin.id)).toEqual(['mention']);
      const stored = await ctx()
        .database.db.select({ userId: commentMentions.userId })
        .from(commentMentions)
        .where(eq(commentMentions.commentId, comment.id));
      expect(stored.map((row) => row.userId).sort()).toEqual([otherMember.id, admin.id].sort());
      const [toAdmin] = (await notificationsOf(admin.id)).filter((r) => r.targetId === comment.id);
      expect(toAdmin?.title).toBe('Max Member mentioned you on "Weekly sync"');
    });
  });
});
