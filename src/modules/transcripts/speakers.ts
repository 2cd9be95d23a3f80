import { and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { isUniqueViolation, retriedTransaction } from '../../db/errors.ts';
import { memberships, speakers, transcriptChunks, transcriptSegments } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { AppError, type ErrorDetail, errors } from '../../http/errors.ts';
import { type Page, type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { renameSpeakerInKnowledge } from '../knowledge/service.ts';
import { requireRole } from '../organizations/access.ts';
import { requestEmbeddings } from '../search/embeddings.ts';
import { requireVideoAccess } from '../videos/access.ts';
import type { SpeakerView } from './schemas.ts';
import { rebuildChunks } from './service.ts';

/** Videos (not deleted) in which the speaker has at least one segment: one index-backed subquery per row. */
const videoCount = sql<number>`(
  SELECT count(DISTINCT ts.video_id)::int FROM transcript_segments ts
  JOIN videos v ON v.id = ts.video_id AND NOT v.is_deleted
  WHERE ts.speaker_id = speakers.id)`;

const speakerColumns = {
  id: speakers.id,
  organizationId: speakers.organizationId,
  name: speakers.name,
  userId: speakers.userId,
  videoCount,
  createdAt: speakers.createdAt,
};

/** Speakers of one organization (403 for outsiders) or of every organization of the caller, by name. */
export async function listSpeakers(
  db: Db,
  userId: string,
  query: PageRequest & { organizationId?: string },
): Promise<Page<SpeakerView>> {
  let scope: SQL;
  if (query.organizationId) {
    await requireRole(db, { userId, organizationId: query.organizationId });
    scope = eq(speakers.organizationId, query.organizationId);
  } else {
    const mine = db
      .select({ organizationId: memberships.organizationId })
      .from(memberships)
      .where(eq(memberships.userId, userId));
    scope = inArray(speakers.organizationId, mine);
  }
  const { limit, offset } = pageBounds(query);
  const [rows, [total]] = await Promise.all([
    db
      .select(speakerColumns)
      .from(speakers)
      .where(scope)
      .orderBy(asc(speakers.organizationId), asc(speakers.normalizedName))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(speakers).where(scope),
  ]);
  return toPage(rows, total?.total ?? 0, query);
}

/**
 * A speaker, for a caller with at least `minRole` in its organization. Another organization's
 * speaker is a 404, as if it did not exist.
 */
async function requireSpeaker(tx: Tx, userId: string, speakerId: string, minRole: Role) {
  const [speaker] = await tx.select().from(speakers).where(eq(speakers.id, speakerId)).for('update');
  if (!speaker) throw errors.notFound('Speaker not found');
  try {
    await requireRole(tx, { userId, organizationId: speaker.organizationId, minRole, outsider: 'not_found' });
  } catch (error) {
    throw error instanceof AppError && error.statusCode === 404
      ? errors.notFound('Speaker not found')
      : error;
  }
  return speaker;
}

async function requireMembers(
  tx: Tx,
  organizationId: string,
  wanted: Array<{ userId: string; path: string }>,
) {
  const ids = [...new Set(wanted.map((entry) => entry.userId))];
  if (ids.length === 0) return;
  const found = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), inArray(memberships.userId, ids)));
  const members = new Set(found.map((row) => row.userId));
  const details: ErrorDetail[] = wanted
    .filter((entry) => !members.has(entry.userId))
    .map((entry) => ({ path: entry.path, message: 'must be a member of the organization' }));
  if (details.length > 0) throw errors.validation(details);
}

async function speakerView(db: Db | Tx, speakerIds: string[]): Promise<SpeakerView[]> {
  if (speakerIds.length === 0) return [];
  return db
    .select(speakerColumns)
    .from(speakers)
    .where(inArray(speakers.id, speakerIds))
    .orderBy(asc(speakers.normalizedName));
}

const nameTaken = () =>
  new AppError(400, 'SPEAKER_NAME_TAKEN', 'Another speaker already has this name', {
    details: [{ path: 'body.name', message: 'another speaker of the organization has this name' }],
  });

/** Renames a speaker or links it to a member (admin or owner). */
export async function updateSpeaker(
  context: AppContext,
  userId: string,
  speakerId: string,
  body: { name?: string; userId?: string | null },
): Promise<SpeakerView> {
  return retriedTransaction(context.db, async (tx) => {
    const speaker = await requireSpeaker(tx, userId, speakerId, 'admin');
    if (body.userId)
      await requireMembers(tx, speaker.organizationId, [{ userId: body.userId, path: 'body.userId' }]);
    const changes: Partial<typeof speakers.$inferInsert> = {};
    if (body.name !== undefined) {
      const name = body.name.replace(/\s+/g, ' ');
      const normalizedName = name.toLowerCase();
      const [taken] = await tx
        .select({ id: speakers.id })
        .from(speakers)
        .where(
          and(
            eq(speakers.organizationId, speaker.organizationId),
            eq(speakers.normalizedName, normalizedName),
          ),
        );
      if (taken && taken.id !== speaker.id) throw nameTaken();
      Object.assign(changes, { name, normalizedName });
    }
    if (body.userId !== undefined) changes.userId = body.userId;
    if (Object.keys(changes).length > 0) {
      await tx
        .update(speakers)
        .set(changes)
        .where(eq(speakers.id, speaker.id))
        .catch((error: unknown) => {
          // The name was taken after the check (a rename or a transcript at the same moment).
          throw isUniqueViolation(error) ? nameTaken() : error;
        });
    }
    if (changes.name !== undefined && changes.name !== speaker.name) {
      // Passages name their speakers: searching the new name must find what they said.
      const spokenIn = await tx
        .selectDistinct({ id: transcriptChunks.videoId, organizationId: transcriptChunks.organizationId })
        .from(transcriptChunks)
        .where(sql`${transcriptChunks.speakerIds} @> array[${speaker.id}]::uuid[]`);
      for (const video of spokenIn) {
        await rebuildChunks(tx, video);
        await requestEmbeddings(tx, context.jobs, video.id, context.config);
      }
      await renameSpeakerInKnowledge(tx, speaker.organizationId, speaker.name, changes.name);
    }
    await recordActivity(tx, {
      organizationId: speaker.organizationId,
      actorId: userId,
      action: 'speaker.updated',
      targetType: 'speaker',
      targetId: speaker.id,
      metadata: { name: changes.name ?? speaker.name, userId: changes.userId ?? speaker.userId },
    });
    const [view] = await speakerView(tx, [speaker.id]);
    return view as SpeakerView;
  });
}

/** Links (or unlinks, with null) the speakers of a video's transcript to members (author or admin). */
export async function linkVideoSpeakers(
  context: AppContext,
  userId: string,
  videoId: string,
  links: Array<{ speakerId: string; userId: string | null }>,
): Promise<{ videoId: string; speakers: SpeakerView[] }> {
  return context.db.transaction(async (tx) => {
    const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'edit', forUpdate: true });
    const inVideo = await videoSpeakerIds(tx, video.id);
    const unknown = links.flatMap((link, index) =>
      inVideo.includes(link.speakerId)
        ? []
        : [{ path: `body.speakers.${index}.speakerId`, message: 'is not a speaker of this video' }],
    );
    if (unknown.length > 0) throw errors.validation(unknown);
    await requireMembers(
      tx,
      video.organizationId,
      links.flatMap((link, index) =>
        link.userId ? [{ userId: link.userId, path: `body.speakers.${index}.userId` }] : [],
      ),
    );
    for (const link of links) {
      await tx.update(speakers).set({ userId: link.userId }).where(eq(speakers.id, link.speakerId));
    }
    await recordActivity(tx, {
      organizationId: video.organizationId,
      actorId: userId,
      action: 'video.speakers_linked',
      targetType: 'video',
      targetId: video.id,
      metadata: { links },
    });
    return { videoId: video.id, speakers: await speakerView(tx, inVideo) };
  });
}

async function videoSpeakerIds(tx: Tx, videoId: string): Promise<string[]> {
  const rows = await tx
    .selectDistinct({ speakerId: transcriptSegments.speakerId })
    .from(transcriptSegments)
    .where(eq(transcriptSegments.videoId, videoId));
  return rows.flatMap((row) => (row.speakerId ? [row.speakerId] : []));
}
