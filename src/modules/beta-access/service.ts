import { and, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { betaAccessRequests } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type Page, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { type Mail, queueMail } from '../mail/service.ts';
import type { BetaAccessInput, BetaAccessListQuery, BetaAccessStatus } from './schemas.ts';

type BetaAccessRequest = {
  id: string;
  email: string;
  name: string | null;
  company: string | null;
  useCase: string | null;
  status: BetaAccessStatus;
  createdAt: Date;
  approvedAt: Date | null;
};

const requestColumns = {
  id: betaAccessRequests.id,
  email: betaAccessRequests.email,
  name: betaAccessRequests.name,
  company: betaAccessRequests.company,
  useCase: betaAccessRequests.useCase,
  status: betaAccessRequests.status,
  createdAt: betaAccessRequests.createdAt,
  approvedAt: betaAccessRequests.approvedAt,
};

/**
 * Records a request for beta access. An email that already asked gets its existing request back,
 * unchanged, so the endpoint neither errors on nor reveals who has asked before.
 */
export async function requestBetaAccess(context: AppContext, input: BetaAccessInput) {
  return context.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(betaAccessRequests)
      .values({
        email: input.email,
        name: input.name || null,
        company: input.company || null,
        useCase: input.useCase || null,
      })
      .onConflictDoNothing({ target: betaAccessRequests.email })
      .returning(requestColumns);
    if (created) {
      // Anonymous: nobody acts, and the request belongs to no organization.
      await recordActivity(tx, {
        organizationId: null,
        actorId: null,
        action: 'beta_access.requested',
        targetType: 'beta_access_request',
        targetId: created.id,
      });
      return created;
    }
    const [existing] = await tx
      .select(requestColumns)
      .from(betaAccessRequests)
      .where(eq(betaAccessRequests.email, input.email));
    if (!existing) throw new Error('beta access request vanished after a conflicting insert');
    return existing;
  });
}

/**
 * Platform administrators are configured by email (ADMIN_EMAILS), not by an organization role.
 * The account must have proven it owns that address (OAuth, a password reset or an invitation):
 * otherwise whoever signed up first with an admin's address would be an admin.
 */
function assertPlatformAdmin(context: AppContext, caller: AuthUser) {
  if (!context.config.adminEmails.includes(caller.email) || !caller.emailVerifiedAt) {
    throw errors.forbidden('Only platform administrators can do this', 'NOT_PLATFORM_ADMIN');
  }
}

/** The request made with this email, if any (for the user's data export). */
export async function findBetaAccessRequest(db: Db | Tx, email: string): Promise<BetaAccessRequest | null> {
  const [row] = await db
    .select(requestColumns)
    .from(betaAccessRequests)
    .where(eq(betaAccessRequests.email, email));
  return row ?? null;
}

export async function listBetaAccessRequests(
  context: AppContext,
  caller: AuthUser,
  query: BetaAccessListQuery,
): Promise<Page<BetaAccessRequest>> {
  assertPlatformAdmin(context, caller);
  const where = query.status ? eq(betaAccessRequests.status, query.status) : undefined;
  const { limit, offset } = pageBounds(query);
  const [rows, total] = await Promise.all([
    context.db
      .select(requestColumns)
      .from(betaAccessRequests)
      .where(where)
      .orderBy(desc(betaAccessRequests.createdAt), desc(betaAccessRequests.id))
      .limit(limit)
      .offset(offset),
    context.db.$count(betaAccessRequests, where),
  ]);
  return toPage(rows, total, query);
}

/**
 * Approves a request and mails the requester an invitation to sign up. Approving an approved
 * request changes nothing and sends no second mail.
 */
export async function approveBetaAccessRequest(
  context: AppContext,
  caller: AuthUser,
  id: string,
): Promise<BetaAccessRequest> {
  assertPlatformAdmin(context, caller);
  return context.db.transaction(async (tx) => {
    // Only a pending row matches, so of two concurrent approvals exactly one updates and mails.
    const [approved] = await tx
      .update(betaAccessRequests)
      .set({ status: 'approved', approvedAt: context.clock.now(), approvedBy: caller.id })
      .where(and(eq(betaAccessRequests.id, id), eq(betaAccessRequests.status, 'pending')))
      .returning(requestColumns);
    if (approved) {
      await queueMail(tx, context.jobs, approvalMail(context.config.appUrl, approved));
      await recordActivity(tx, {
        organizationId: null,
        actorId: caller.id,
        action: 'beta_access.approved',
        targetType: 'beta_access_request',
        targetId: approved.id,
      });
      return approved;
    }
    const [existing] = await tx
      .select(requestColumns)
      .from(betaAccessRequests)
      .where(eq(betaAccessRequests.id, id));
    if (!existing) throw errors.notFound('Beta access request not found');
    return existing;
  });
}

function approvalMail(appUrl: string, request: BetaAccessRequest): Mail {
  const signUpUrl = `${appUrl}/sign-up?${new URLSearchParams({ email: request.email })}`;
  return {
    to: request.email,
    subject: 'Your Knowledge Hub beta access is approved',
    text: [
      request.name ? `Hi ${request.name},` : 'Hi,',
      '',
      'Your request for access to the Knowledge Hub beta has been approved. Create your account here:',
      '',
      signUpUrl,
      '',
      'Welcome aboard!',
    ].join('\n'),
  };
}
