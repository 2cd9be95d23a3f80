import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { roleIn } from '../organizations/access.ts';
import type { RetrievalScope } from '../search/retrieval.ts';

type ScopeInput = {
  organizationId?: string | undefined;
  videoIds?: string[] | undefined;
  channelId?: string | undefined;
  seriesId?: string | undefined;
  collectionId?: string | undefined;
};

/**
 * The organization an AI request is about — the one named, else the caller's default — and
 * what it may read there. An organization the caller does not belong to, or videos that are not
 * readable in it, are errors of the request (400): the spec lists no 403 or 404 for these routes.
 */
export async function resolveAiScope(
  db: Db,
  user: AuthUser,
  input: ScopeInput,
  path = 'body',
): Promise<RetrievalScope & { organizationId: string }> {
  const organizationId = input.organizationId ?? user.defaultOrganizationId;
  if (!organizationId || !(await roleIn(db, user.id, organizationId))) {
    throw errors.validation([
      {
        path: `${path}.organizationId`,
        message: input.organizationId
          ? 'is not an organization you belong to'
          : 'is required (you have no default organization)',
      },
    ]);
  }
  if (input.videoIds) {
    const found = await db
      .select({ id: videos.id })
      .from(videos)
      .where(
        and(
          inArray(videos.id, input.videoIds),
          eq(videos.organizationId, organizationId),
          eq(videos.isDeleted, false),
        ),
      );
    const known = new Set(found.map((row) => row.id));
    const missing = input.videoIds.filter((id) => !known.has(id));
    if (missing.length > 0) {
      throw errors.validation([
        { path: `${path}.videoIds`, message: `are not videos of the organization: ${missing.join(', ')}` },
      ]);
    }
  }
  return {
    organizationId,
    organizationIds: [organizationId],
    ...(input.videoIds ? { videoIds: input.videoIds } : {}),
    ...(input.channelId ? { channelId: input.channelId } : {}),
    ...(input.seriesId ? { seriesId: input.seriesId } : {}),
    ...(input.collectionId ? { collectionId: input.collectionId } : {}),
  };
}
