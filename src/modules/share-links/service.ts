import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { shareLinks, videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/service.ts';
import { mediaUrl, sharedMediaUrl } from '../media/urls.ts';
import { transcriptSegmentsOf } from '../transcripts/segments.ts';
import { requireVideoAccess } from '../videos/access.ts';
import { issueAccessToken, isValidAccessToken } from './access-tokens.ts';
import type { CreateShareLinkInput, SharedPage, ShareLinkView } from './schemas.ts';

type ShareLinkRow = typeof shareLinks.$inferSelect;

const NOT_FOUND = 'Share link not found';

const toView = (row: ShareLinkRow): ShareLinkView => ({
  id: row.id,
  expiresAt: row.expiresAt,
  maxViews: row.maxViews,
  viewCount: row.viewCount,
  hasPassword: row.passwordHash !== null,
  allowedEmailDomains: row.allowedEmailDomains,
  revokedAt: row.revokedAt,
  createdAt: row.createdAt,
});

/** Creates a link to a video (its author or an admin). The token is returned once, stored hashed. */
export async function createShareLink(
  context: AppContext,
  userId: string,
  videoId: string,
  input: CreateShareLinkInput,
) {
  const now = context.clock.now();
  if (input.expiresAt && input.expiresAt <= now) {
    throw errors.validation([{ path: 'body.expiresAt', message: 'must be in the future' }]);
  }
  // Checked before hashing, so that a caller without the right cannot make the server run argon2;
  // the password is hashed outside the transaction so that no connection waits on it.
  const { video } = await requireVideoAccess(context.db, { videoId, userId, action: 'edit' });
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const domains = input.allowedEmailDomains?.length ? [...new Set(input.allowedEmailDomains)] : null;
  const token = randomToken(32);
  return context.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(shareLinks)
      .values({
        videoId: video.id,
        organizationId: video.organizationId,
        tokenHash: hashToken(token),
        passwordHash,
        expiresAt: input.expiresAt ?? null,
        maxViews: input.maxViews ?? null,
        allowedEmailDomains: domains,
        createdBy: userId,
      })
      .returning();
    if (!row) throw new Error('share link insert returned nothing');
    await recordActivity(tx, {
      organizationId: video.organizationId,
      actorId: userId,
      action: 'share_link.created',
      targetType: 'share_link',
      targetId: row.id,
      metadata: { videoId: video.id, hasPassword: passwordHash !== null, maxViews: row.maxViews },
    });
    const { revokedAt: _revokedAt, ...view } = toView(row);
    return { ...view, token, url: `${context.config.appUrl}/share/${token}` };
  });
}

/** Every link of a video, revoked ones included, newest first (its author or an admin). */
export async function listShareLinks(db: Db, userId: string, videoId: string) {
  await requireVideoAccess(db, { videoId, userId, action: 'edit' });
  const rows = await db
    .select()
    .from(shareLinks)
    .where(eq(shareLinks.videoId, videoId))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));
  return { data: rows.map(toView) };
}

/** Revokes a link for good (idempotent). Works while the video is deleted, so a restore does not revive it. */
export async function revokeShareLink(context: AppContext, userId: string, linkId: string) {
  return context.db.transaction(async (tx) => {
    const [link] = await tx.select().from(shareLinks).where(eq(shareLinks.id, linkId)).for('update');
    if (!link) throw errors.notFound(NOT_FOUND);
    await requireVideoAccess(tx, { videoId: link.videoId, userId, action: 'edit', includeDeleted: true });
    if (!link.revokedAt) {
      await tx.update(shareLinks).set({ revokedAt: context.clock.now() }).where(eq(shareLinks.id, link.id));
      await recordActivity(tx, {
        organizationId: link.organizationId,
        actorId: userId,
        action: 'share_link.revoked',
        targetType: 'share_link',
        targetId: link.id,
        metadata: { videoId: link.videoId },
      });
    }
    return { id: link.id, revoked: true as const };
  });
}

const isOpenable = (link: ShareLinkRow, now: Date) =>
  !link.revokedAt &&
  !(link.expiresAt && link.expiresAt <= now) &&
  !(link.maxViews !== null && link.viewCount >= link.maxViews);

/** What a public share request brings: the access token header, and who is signed in (throws 401 if nobody). */
export type ShareCaller = { accessToken: string | undefined; signedInEmail: () => string };

/**
 * The link behind a token, when it may be opened at all: revoked, expired or exhausted links and
 * deleted videos are all "not found", like an unknown token. Then the email domain restriction.
 */
async function openableLink(
  context: AppContext,
  token: string,
  caller: ShareCaller,
  { viewCap = true }: { viewCap?: boolean } = {},
) {
  const [row] = await context.db
    .select({ link: shareLinks, video: videos })
    .from(shareLinks)
    .innerJoin(videos, eq(videos.id, shareLinks.videoId))
    .where(eq(shareLinks.tokenHash, hashToken(token)));
  const now = context.clock.now();
  const open =
    row && (viewCap ? isOpenable(row.link, now) : isOpenable({ ...row.link, maxViews: null }, now));
  if (!row || !open || row.video.isDeleted) throw errors.notFound(NOT_FOUND);
  const { link } = row;
  if (link.allowedEmailDomains?.length) {
    const domain = caller.signedInEmail().split('@').pop()?.toLowerCase() ?? '';
    if (!link.allowedEmailDomains.includes(domain)) {
      throw errors.forbidden('Your email domain may not open this link', 'EMAIL_DOMAIN_NOT_ALLOWED');
    }
  }
  return { link, video: row.video, now };
}

/** Exchanges a link's password for a short-lived access token. */
export async function verifySharePassword(
  context: AppContext,
  token: string,
  password: string,
  caller: ShareCaller,
) {
  const { link, now } = await openableLink(context, token, caller);
  if (!link.passwordHash) throw errors.badRequest('This link has no password', 'NO_PASSWORD');
  if (!(await verifyPassword(link.passwordHash, password))) {
    throw errors.badRequest('Invalid password', 'INVALID_PASSWORD');
  }
  return issueAccessToken(context.config.secret, link, now);
}

/**
 * The video a share link plays, password checked. Its views are counted when the page opens, not
 * per range request of the player: a link on its last allowed view still plays what it opened.
 */
export async function playableSharedVideo(context: AppContext, token: string, caller: ShareCaller) {
  const { link, video, now } = await openableLink(context, token, caller, { viewCap: false });
  if (link.passwordHash && !isValidAccessToken(context.config.secret, link.id, caller.accessToken, now)) {
    throw errors.unauthorized('Password required', 'PASSWORD_REQUIRED');
  }
  return video.id;
}

/** The shared video's public fields and transcript; each successful request counts one view. */
export async function openSharedVideo(
  context: AppContext,
  token: string,
  caller: ShareCaller,
): Promise<SharedPage> {
  const { link, video, now } = await openableLink(context, token, caller);
  if (link.passwordHash && !isValidAccessToken(context.config.secret, link.id, caller.accessToken, now)) {
    throw errors.unauthorized('Password required', 'PASSWORD_REQUIRED');
  }
  // The conditions are checked again in the UPDATE so that concurrent views never exceed maxViews.
  const [counted] = await context.db
    .update(shareLinks)
    .set({ viewCount: sql`${shareLinks.viewCount} + 1` })
    .where(
      and(
        eq(shareLinks.id, link.id),
        isNull(shareLinks.revokedAt),
        or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, now)),
        or(isNull(shareLinks.maxViews), lt(shareLinks.viewCount, shareLinks.maxViews)),
      ),
    )
    .returning({ id: shareLinks.id });
  if (!counted) throw errors.notFound(NOT_FOUND);
  const segments = (await transcriptSegmentsOf(context.db, video.id)).map(
    ({ start, end, speaker, text }) => ({
      start,
      end,
      speaker,
      text,
    }),
  );
  return {
    video: {
      id: video.id,
      title: video.title,
      description: video.description,
      duration: video.duration,
      durationSeconds: video.durationSeconds,
      thumbnailUrl: video.thumbnailUrl,
      // A recording the service stores plays through the link, to people without an account.
      videoUrl:
        video.videoUrl === mediaUrl(context, video.id) ? sharedMediaUrl(context, token) : video.videoUrl,
      recordedAt: video.recordedAt,
      createdAt: video.createdAt,
    },
    transcript: segments.length > 0 ? { segments } : null,
    expiresAt: link.expiresAt,
  };
}
