import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { videos } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { roleAtLeast, roleIn } from '../organizations/access.ts';

export type VideoRow = typeof videos.$inferSelect;

/**
 * What a caller wants to do with a video:
 * - `read`: members (any role), or anyone when the video is public;
 * - `edit`: its author (member or above) or an admin;
 * - `contribute`: attach things to it (comments, progress): any member.
 */
export type VideoAction = 'read' | 'edit' | 'contribute';

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
  const query = db.select().from(videos).where(eq(videos.id, input.videoId));
  const [video] = input.forUpdate ? await query.for('update') : await query;
  if (!video || (video.isDeleted && !input.includeDeleted)) throw errors.notFound('Video not found');
  const role = input.userId ? ((await roleIn(db, input.userId, video.organizationId)) ?? null) : null;
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
