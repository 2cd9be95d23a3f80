import { and, eq, getTableColumns } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { poolOf, runPrepared, selectColumns } from '../../db/hot-path.ts';
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
const videoWithRole = (db: Db | Tx, videoId: string, userId: string | null) =>
  db
    .select({ video: videos, role: memberships.role })
    .from(videos)
    .leftJoin(
      memberships,
      and(eq(memberships.organizationId, videos.organizationId), eq(memberships.userId, userId ?? NO_USER)),
    )
    .where(eq(videos.id, videoId));

const VIDEO_WITH_CALLER_ROLE = `SELECT ${selectColumns(getTableColumns(videos), 'v')}, m.role AS "callerRole"
  FROM videos v
  LEFT JOIN memberships m ON m.organization_id = v.organization_id AND m.user_id = $2
  WHERE v.id = $1`;

/** Outside a transaction, the same query as a prepared raw statement (db/hot-path.ts says why). */
async function readVideoWithRole(db: Db | Tx, videoId: string, userId: string | null) {
  const pool = poolOf(db);
  if (!pool) return videoWithRole(db, videoId, userId);
  const rows = await runPrepared<VideoRow & { callerRole: Role | null }>(
    pool,
    'video_with_caller_role',
    VIDEO_WITH_CALLER_ROLE,
    [videoId, userId ?? NO_USER],
  );
  return rows.map(({ callerRole, ...video }) => ({ video, role: callerRole }));
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
    : await readVideoWithRole(db, input.videoId, input.userId);
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
