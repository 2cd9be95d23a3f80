import { and, eq, getTableColumns } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { jsonObjectOf, poolOf, rowReader, runPrepared, selectColumns } from '../../db/hot-path.ts';
import { memberships, videos } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { UUID_PATTERN } from '../../http/ids.ts';
import type { SameTripRead, SameTripRow } from '../auth/sessions.ts';
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

const VIDEO_COLUMNS = getTableColumns(videos);
const VIDEO_WITH_CALLER_ROLE = `SELECT ${selectColumns(VIDEO_COLUMNS, 'v')}, m.role AS "callerRole"
  FROM videos v
  LEFT JOIN memberships m ON m.organization_id = v.organization_id AND m.user_id = $2
  WHERE v.id = $1`;

type VideoWithCallerRole = VideoRow & { callerRole: Role | null };
const withCallerRole = (rows: VideoWithCallerRole[]) =>
  rows.map(({ callerRole, ...video }) => ({ video, role: callerRole }));

/** Outside a transaction, the same query as a prepared raw statement (db/hot-path.ts says why). */
async function readVideoWithRole(db: Db | Tx, videoId: string, userId: string | null) {
  const pool = poolOf(db);
  if (!pool) return videoWithRole(db, videoId, userId);
  const rows = await runPrepared<VideoWithCallerRole>(
    pool,
    'video_with_caller_role',
    VIDEO_WITH_CALLER_ROLE,
    [videoId, userId ?? NO_USER],
  );
  return withCallerRole(rows);
}

const videoFromJson = rowReader<VideoWithCallerRole>(VIDEO_COLUMNS);
const VIDEO_ALONGSIDE = {
  name: 'video_with_caller_role',
  // One json value rather than 26 fields: `pg` does work per field of every result (db/hot-path.ts).
  value: `CASE WHEN v.id IS NULL THEN NULL ELSE ${jsonObjectOf(VIDEO_COLUMNS, 'v', { callerRole: 'm.role' })} END`,
  joins: `LEFT JOIN videos v ON v.id = $2
    LEFT JOIN memberships m ON m.organization_id = v.organization_id AND m.user_id = u.id`,
};

/**
 * The same video-with-role read, done in the caller's credential statement (route config
 * `readAlongsideCredential` of a route with an `{id}` param); nothing when the id is not a UUID,
 * which the route answers with 404 before it reads anything.
 */
export function videoAlongsideCredential(request: { params: unknown }): SameTripRead | null {
  const { id } = request.params as { id?: unknown };
  return typeof id === 'string' && UUID_PATTERN.test(id) ? { ...VIDEO_ALONGSIDE, values: [id] } : null;
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
    /** The row `videoAlongsideCredential` read with this caller's credential, when it was read. */
    readAlongside?: SameTripRow | undefined;
  },
): Promise<{ video: VideoRow; role: Role | null }> {
  const [row] = input.forUpdate
    ? await videoWithRole(db, input.videoId, input.userId).for('update', { of: videos })
    : input.readAlongside !== undefined
      ? withCallerRole(input.readAlongside ? [videoFromJson(input.readAlongside)] : [])
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
