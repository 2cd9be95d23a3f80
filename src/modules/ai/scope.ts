import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { callerOrganization } from '../organizations/access.ts';
import { assertOrganizationReferences } from '../organizations/references.ts';
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
 * what it may read there. Naming an organization the caller does not belong to is a 403, as
 * everywhere (API.md); videos, a channel, a series or a collection that are not the
 * organization's are errors of the request (400).
 */
export async function resolveAiScope(
  db: Db,
  user: AuthUser,
  input: ScopeInput,
  path = 'body',
): Promise<RetrievalScope & { organizationId: string }> {
  const { organizationId } = await callerOrganization(db, user, input.organizationId, { path });
  await assertOrganizationReferences(db, organizationId, input, path);
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
