import { and, eq, type Placeholder, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { memberships, videos } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { roleAtLeast } from '../organizations/access.ts';

export type VideoRow = typeof videos.$inferSelect;

/** Matches no membership: anonymous callers join against nobody. */
const NO_USER = '00000000-0000-0000-0000-000000000000';

/**
 * What a caller wants to do with a video:
 * - `read`: members (any role), or anyone when the video is public;
 * - `edit`: its author (member or above) or an admin;
 * - `contribute`: attach things to it (comments, progress): any member.
 */
export type VideoAction = 'read' | 'edit' | 'contribute';

/** One query: the video and the caller's role in its organization (the hot path of every video read). */
const videoWithRole = (db: Db | Tx, videoId: Placeholder | string, userId: Placeholder | string | null) =>
  db
    .select({ video: videos, role: memberships.role })
    .from(videos)
    .leftJoin(
      memberships,
      and(eq(memberships.organizationId, videos.organizationId), eq(memberships.userId, userId ?? NO_USER)),
    )
    .where(eq(videos.id, videoId));

const prepared = new WeakMap<Db | Tx, ReturnType<typeof prepareVideoWithRole>>();
const prepareVideoWithRole = (db: Db | Tx) =>
  videoWithRole(db, sql.placeholder('videoId'), sql.placeholder('userId')).prepare('video_with_caller_role');

function preparedVideoWithRole(db: Db | Tx) {
  let statement = prepared.get(db);
  if (!statement) {
    statement = prepareVideoWithRole(db);
    prepared.set(db, statement);
  }
  return statement;
}

/**
 * The one authorization check for videos. A video the caller may not see (another organization's,
 * soft-deleted unless asked for, or missing) is a 404; one they see but may not change is a 403.
 */
export async function requireVideoAccess(
  db: Db | Tx,
  input: {
    videoId: string;
    userId: string | null;
    action: VideoAction;
    includeDeleted?: boolean;
    forUpdate?: boolean;
  },
): Promise<{ video: VideoRow; role: Role | null }> {
  const [row] = input.forUpdate
    ? await videoWithRole(db, input.videoId, input.userId).for('update', { of: videos })
    : await preparedVideoWithRole(db).execute({ videoId: input.videoId, userId: input.userId ?? NO_USER });
  const video = row?.video;
  if (!video || (video.isDeleted && !input.includeDeleted)) throw errors.notFound('Video not found');
  const role = row.role;
  if (!role) {
    if (input.action === 'read' && video.isPublic && !video.isDeleted) return { video, role: null };
    throw errors.notFound('Video not found');
  }
  if (input.action === 'edit') {
    const isAuthor = video.authorId === input.userId && roleAtLeast(role, 'member');
    if (!isAuthor && !roleAtLeast(role, 'admin')) {
      throw errors.forbidden('Only the author or an admin can change this video', 'INSUFFICIENT_ROLE');
    }
  }
  return { video, role };
}
