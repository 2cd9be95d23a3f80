import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { channelFollows, channels, videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { requireRole } from '../organizations/access.ts';
import { pageOfVideos } from '../videos/queries.ts';
import type { ListInclude } from '../videos/schemas.ts';
import { type ContentAction, organizationScope, requireContentAccess } from './access.ts';
import type { ChannelView } from './schemas.ts';

const NOT_FOUND = 'Channel not found';

/**
 * Channels with their counts and the caller's follow, aggregated per channel by lateral joins in
 * the same query (one aggregate row each, so inner joins on true).
 */
function selectChannels(db: Db | Tx, userId: string) {
  const videoStats = db
    .select({ videoCount: count().as('video_count') })
    .from(videos)
    .where(and(eq(videos.channelId, channels.id), eq(videos.isDeleted, false)))
    .as('video_stats');
  const followStats = db
    .select({
      followerCount: count().as('follower_count'),
      following: sql<boolean>`coalesce(bool_or(${channelFollows.userId} = ${userId}), false)`.as('following'),
    })
    .from(channelFollows)
    .where(eq(channelFollows.channelId, channels.id))
    .as('follow_stats');
  return db
    .select({
      id: channels.id,
      organizationId: channels.organizationId,
      name: channels.name,
      description: channels.description,
      createdBy: channels.createdBy,
      videoCount: videoStats.videoCount,
      followerCount: followStats.followerCount,
      following: followStats.following,
      createdAt: channels.createdAt,
      updatedAt: channels.updatedAt,
    })
    .from(channels)
    .innerJoinLateral(videoStats, sql`true`)
    .innerJoinLateral(followStats, sql`true`)
    .$dynamic();
}

async function channelView(db: Db | Tx, userId: string, channelId: string): Promise<ChannelView> {
  const [view] = await selectChannels(db, userId).where(eq(channels.id, channelId));
  if (!view) throw errors.notFound(NOT_FOUND);
  return view;
}

/** Loads a channel and checks the caller may `action` it; `forUpdate` locks it for the transaction. */
async function requireChannel(
  db: Db | Tx,
  input: { userId: string; channelId: string; action: ContentAction; forUpdate?: boolean },
) {
  const query = db.select().from(channels).where(eq(channels.id, input.channelId));
  const [channel] = input.forUpdate ? await query.for('update') : await query;
  if (!channel) throw errors.notFound(NOT_FOUND);
  await requireContentAccess(db, {
    userId: input.userId,
    organizationId: channel.organizationId,
    createdBy: channel.createdBy,
    action: input.action,
    notFoundMessage: NOT_FOUND,
  });
  return channel;
}

export async function createChannel(
  context: AppContext,
  userId: string,
  input: { organizationId: string; name: string; description?: string | null | undefined },
) {
  return context.db.transaction(async (tx) => {
    await requireRole(tx, { userId, organizationId: input.organizationId, minRole: 'member' });
    const now = context.clock.now();
    const [channel] = await tx
      .insert(channels)
      .values({
        organizationId: input.organizationId,
        name: input.name,
        description: input.description ?? null,
        createdBy: userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: channels.id });
    if (!channel) throw new Error('channel insert returned nothing');
    await recordActivity(tx, {
      organizationId: input.organizationId,
      actorId: userId,
      action: 'channel.created',
      targetType: 'channel',
      targetId: channel.id,
      metadata: { name: input.name },
    });
    return channelView(tx, userId, channel.id);
  });
}

/** Channels of one organization of the caller's (or all of them), by name. */
export async function listChannels(
  db: Db,
  userId: string,
  query: PageRequest & { organizationId?: string | undefined },
) {
  const scope = await organizationScope(db, {
    userId,
    organizationId: query.organizationId,
    column: channels.organizationId,
  });
  const { limit, offset } = pageBounds(query);
  const [rows, [counted]] = await Promise.all([
    selectChannels(db, userId)
      .where(scope)
      .orderBy(asc(channels.name), asc(channels.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(channels).where(scope),
  ]);
  return toPage(rows, counted?.total ?? 0, query);
}

export async function getChannel(db: Db, userId: string, channelId: string) {
  await requireChannel(db, { userId, channelId, action: 'read' });
  return channelView(db, userId, channelId);
}

export async function updateChannel(
  context: AppContext,
  userId: string,
  channelId: string,
  input: { name?: string | undefined; description?: string | null | undefined },
) {
  return context.db.transaction(async (tx) => {
    const channel = await requireChannel(tx, { userId, channelId, action: 'edit', forUpdate: true });
    await tx
      .update(channels)
      .set({ name: input.name, description: input.description, updatedAt: context.clock.now() })
      .where(eq(channels.id, channelId));
    await recordActivity(tx, {
      organizationId: channel.organizationId,
      actorId: userId,
      action: 'channel.updated',
      targetType: 'channel',
      targetId: channelId,
      metadata: { name: input.name ?? channel.name, changed: changedFields(input) },
    });
    return channelView(tx, userId, channelId);
  });
}

/** Deletes a channel; its videos stay, without a channel (the foreign key sets it null). */
export async function deleteChannel(context: AppContext, userId: string, channelId: string) {
  await context.db.transaction(async (tx) => {
    const channel = await requireChannel(tx, { userId, channelId, action: 'edit', forUpdate: true });
    await tx.delete(channels).where(eq(channels.id, channelId));
    await recordActivity(tx, {
      organizationId: channel.organizationId,
      actorId: userId,
      action: 'channel.deleted',
      targetType: 'channel',
      targetId: channelId,
      metadata: { name: channel.name },
    });
  });
  return { id: channelId, deleted: true as const };
}

/** The channel's videos, newest first, deleted ones excluded. */
export async function listChannelVideos(
  db: Db,
  userId: string,
  channelId: string,
  page: PageRequest & ListInclude,
) {
  const channel = await requireChannel(db, { userId, channelId, action: 'read' });
  const where = and(
    eq(videos.channelId, channelId),
    eq(videos.organizationId, channel.organizationId),
    eq(videos.isDeleted, false),
  );
  return pageOfVideos(db, where, [desc(videos.createdAt), desc(videos.id)], page);
}

/** The names of the fields a PATCH body sets, for the activity feed. */
export const changedFields = (input: Record<string, unknown>) =>
  Object.keys(input).filter((key) => input[key] !== undefined);

async function followerCount(tx: Tx, channelId: string) {
  const [counted] = await tx
    .select({ total: count() })
    .from(channelFollows)
    .where(eq(channelFollows.channelId, channelId));
  return counted?.total ?? 0;
}

/** Follows a channel (any member may); following it again changes nothing and records nothing. */
export async function followChannel(context: AppContext, userId: string, channelId: string) {
  return context.db.transaction(async (tx) => {
    const channel = await requireChannel(tx, { userId, channelId, action: 'read' });
    const inserted = await tx
      .insert(channelFollows)
      .values({ channelId, userId, createdAt: context.clock.now() })
      .onConflictDoNothing()
      .returning({ channelId: channelFollows.channelId });
    if (inserted.length > 0) {
      await recordActivity(tx, {
        organizationId: channel.organizationId,
        actorId: userId,
        action: 'channel.followed',
        targetType: 'channel',
        targetId: channelId,
        metadata: { name: channel.name },
      });
    }
    return { channelId, following: true, followerCount: await followerCount(tx, channelId) };
  });
}

/** Unfollows a channel; unfollowing one the caller does not follow changes nothing. */
export async function unfollowChannel(context: AppContext, userId: string, channelId: string) {
  return context.db.transaction(async (tx) => {
    const channel = await requireChannel(tx, { userId, channelId, action: 'read' });
    const removed = await tx
      .delete(channelFollows)
      .where(and(eq(channelFollows.channelId, channelId), eq(channelFollows.userId, userId)))
      .returning({ channelId: channelFollows.channelId });
    if (removed.length > 0) {
      await recordActivity(tx, {
        organizationId: channel.organizationId,
        actorId: userId,
        action: 'channel.unfollowed',
        targetType: 'channel',
        targetId: channelId,
        metadata: { name: channel.name },
      });
    }
    return { channelId, following: false, followerCount: await followerCount(tx, channelId) };
  });
}
