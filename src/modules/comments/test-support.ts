import { asc, eq } from 'drizzle-orm';
import { beforeAll, expect } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { notifications, type videos } from '../../db/schema/index.ts';
import { type Team, team } from '../transcripts/test-support.ts';

/** Arrangement helpers for the comment tests: a team with every role, an outsider and a video. */

export { isoDate } from '../../../test/helpers/assertions.ts';
export { activityFor, unknownId } from '../transcripts/test-support.ts';
export const errorBody = (code: string, error: string = expect.any(String)) => ({
  success: false,
  error,
  code,
});
export const pathsOf = (body: { details: Array<{ path: string }> }) => body.details.map((d) => d.path).sort();
export const mention = (user: { id: string; name: string }) => `@[${user.name}](${user.id})`;

export type CommentCrew = Team & {
  outsider: SignedUpUser;
  /** "Weekly sync", 600 seconds long, by the owner. */
  videoId: string;
};

/** A file-wide test app, its crew (inside tests) and request helpers. */
export function useCommentTestApp() {
  const ctx = useTestApp();
  let crew: CommentCrew | undefined;
  const people = () => {
    if (!crew) throw new Error('useCommentTestApp: the crew is not set up yet');
    return crew;
  };

  const newVideo = (values: Partial<typeof videos.$inferInsert> = {}) =>
    createVideoRow(ctx().database.db, {
      organizationId: people().organizationId,
      authorId: people().owner.id,
      title: 'Weekly sync',
      ...values,
    });

  beforeAll(async () => {
    const members = await team(ctx());
    const outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    crew = { ...members, outsider, videoId: '' };
    crew.videoId = (await newVideo()).id;
  });

  const call = requester(ctx);

  async function postComment(
    user: SignedUpUser,
    payload: Record<string, unknown> = {},
    videoId = people().videoId,
  ) {
    const response = await call(user, 'POST', `/videos/${videoId}/comments`, {
      body: 'Looks good',
      ...payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function listComments(user: SignedUpUser, videoId = people().videoId, query = '') {
    const response = await call(user, 'GET', `/videos/${videoId}/comments${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  async function react(user: SignedUpUser, commentId: string, emoji: string) {
    const response = await call(user, 'POST', `/comments/${commentId}/reactions`, { emoji });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  /** The notification rows a person received, oldest first. */
  const notificationsOf = (userId: string) =>
    ctx()
      .database.db.select()
      .from(notifications)
      .where(eq(notifications.userId, userId))
      .orderBy(asc(notifications.id));

  /** The notification rows about one comment, as `{userId, type}` pairs sorted by user. */
  async function notifiedAbout(commentId: string) {
    const rows = await ctx()
      .database.db.select({ userId: notifications.userId, type: notifications.type })
      .from(notifications)
      .where(eq(notifications.targetId, commentId));
    return rows.sort((a, b) => a.userId.localeCompare(b.userId) || a.type.localeCompare(b.type));
  }

  return {
    ctx,
    crew: people,
    newVideo,
    call,
    postComment,
    listComments,
    react,
    notificationsOf,
    notifiedAbout,
  };
}
