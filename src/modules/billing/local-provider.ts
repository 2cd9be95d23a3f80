import { count, desc, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import {
  checkoutSessions,
  invoiceLines,
  invoices,
  organizations,
  portalSessions,
  subscriptions,
} from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { pageBounds, toPage } from '../../http/pagination.ts';
import { addSeconds } from '../../lib/clock.ts';
import { signToken } from '../../lib/signed-token.ts';
import { findPlan } from './catalog.ts';
import { presentInvoice } from './invoices.ts';
import { issueInvoice, periodLine, prorationLines } from './ledger.ts';
import { periodEnd } from './money.ts';
import { announceBillingEvent } from './notices.ts';
import type { BillingProvider } from './provider.ts';
import { assertSeatsFit, currentPlan } from './state.ts';

/** How long the links handed out stay valid: a checkout a day, a portal visit an hour, an invoice a month. */
const LINK_LIFETIME_SECONDS = { checkout: 24 * 3600, portal: 3600, invoice: 30 * 24 * 3600 };
/** What each signed link opens; a token signed for one purpose opens nothing else. */
export const LINK_PURPOSE = {
  checkout: 'billing-checkout',
  portal: 'billing-portal',
  invoice: 'billing-invoice',
} as const;

/** An absolute link to one of the service's billing pages, signed for its subject. */
function signedLink(
  context: Pick<AppContext, 'config'>,
  kind: keyof typeof LINK_PURPOSE,
  path: string,
  subject: string,
  expiresAt: Date,
) {
  const token = signToken(context.config.secret, LINK_PURPOSE[kind], subject, expiresAt);
  return `${context.config.appUrl}${path}?token=${token}`;
}

/**
 * The local provider: the ledger in the service's database, with its own checkout, portal and
 * invoice pages (page-routes.ts). Every invoice is settled when issued.
 */
export function localProvider(context: AppContext): BillingProvider {
  return {
    async startCheckout(tx, request) {
      const now = context.clock.now();
      const expiresAt = addSeconds(now, LINK_LIFETIME_SECONDS.checkout);
      const [session] = await tx
        .insert(checkoutSessions)
        .values({
          organizationId: request.organizationId,
          createdBy: request.createdBy,
          planId: request.plan.id,
          seats: request.seats,
          interval: request.interval,
          successUrl: request.successUrl ?? null,
          cancelUrl: request.cancelUrl ?? null,
          expiresAt,
          createdAt: now,
        })
        .returning();
      if (!session) throw new Error('checkout insert returned nothing');
      const url = signedLink(context, 'checkout', `/billing/checkout/${session.id}`, session.id, expiresAt);
      return { sessionId: session.id, url, expiresAt };
    },

    async openPortal(tx, request) {
      const now = context.clock.now();
      const expiresAt = addSeconds(now, LINK_LIFETIME_SECONDS.portal);
      const [session] = await tx
        .insert(portalSessions)
        .values({ ...request, returnUrl: request.returnUrl ?? null, expiresAt, createdAt: now })
        .returning();
      if (!session) throw new Error('portal insert returned nothing');
      return {
        url: signedLink(context, 'portal', `/billing/portal/${session.id}`, session.id, expiresAt),
        expiresAt,
      };
    },

    async changeSubscription(tx, { subscription, from, to }) {
      const now = context.clock.now();
      const period = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
      // A new interval cannot share the old period: it starts now, and the credit pays towards it.
      const restart = to.interval !== from.interval;
      const start = restart ? now : period.start;
      const end = restart ? periodEnd(now, to.interval) : period.end;
      const [credit, charge] = prorationLines({ from, to }, period, now);
      const { invoice, paid } = await issueInvoice(tx, {
        organizationId: subscription.organizationId,
        currency: to.plan.currency,
        reason: 'subscription_update',
        lines: [credit, restart ? periodLine(to.plan, to, now, end) : charge],
        periodStart: now,
        periodEnd: end,
        now,
      });
      await tx
        .update(subscriptions)
        .set({
          planId: to.plan.id,
          seats: to.seats,
          interval: to.interval,
          currentPeriodStart: start,
          currentPeriodEnd: end,
          ...(restart ? { billingAnchor: now } : {}),
          updatedAt: now,
        })
        .where(eq(subscriptions.id, subscription.id));
      return { receipt: `Prorated invoice ${invoice.displayNumber}: ${paid} charged.` };
    },

    async setCancellation(tx, { subscription, cancel }) {
      await tx
        .update(subscriptions)
        .set({ cancelAtPeriodEnd: cancel, updatedAt: context.clock.now() })
        .where(eq(subscriptions.id, subscription.id));
    },

    async listInvoices(db, organizationId, query) {
      const { limit, offset } = pageBounds(query);
      const rows = await db
        .select()
        .from(invoices)
        .where(eq(invoices.organizationId, organizationId))
        .orderBy(desc(invoices.number))
        .limit(limit)
        .offset(offset);
      const [total] = await db
        .select({ n: count() })
        .from(invoices)
        .where(eq(invoices.organizationId, organizationId));
      const lines = rows.length
        ? await db
            .select()
            .from(invoiceLines)
            .where(
              inArray(
                invoiceLines.invoiceId,
                rows.map((invoice) => invoice.id),
              ),
            )
            .orderBy(invoiceLines.position)
        : [];
      const expiresAt = addSeconds(context.clock.now(), LINK_LIFETIME_SECONDS.invoice);
      const data = rows.map((invoice) =>
        presentInvoice(
          invoice,
          lines.filter((line) => line.invoiceId === invoice.id),
          signedLink(context, 'invoice', `/billing/invoices/${invoice.id}/document`, invoice.id, expiresAt),
        ),
      );
      return toPage(data, total?.n ?? 0, query);
    },
  };
}

/**
 * Confirms a checkout from its page: the subscription starts now, its first invoice is issued
 * and paid. Confirming twice changes nothing the second time.
 */
export async function completeCheckout(context: AppContext, sessionId: string) {
  return context.db.transaction(async (tx) => {
    const [session] = await tx
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sessionId))
      .for('update');
    if (!session) throw errors.notFound('Checkout not found');
    if (session.status === 'complete') return session;
    const now = context.clock.now();
    if (session.expiresAt <= now) {
      throw errors.badRequest('This checkout has expired: start a new one', 'CHECKOUT_EXPIRED');
    }
    const plan = findPlan(context.config, session.planId);
    if (!plan)
      throw errors.badRequest('This plan is no longer sold: start a new checkout', 'PLAN_NOT_PURCHASABLE');
    const { organizationId } = session;
    // One subscription per organization: two checkouts confirmed at once wait on each other here.
    await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for('update');
    if ((await currentPlan(tx, context.config, organizationId)).paid) {
      throw errors.conflict('The organization already has a paid subscription', 'ALREADY_SUBSCRIBED');
    }
    await assertSeatsFit(tx, plan, organizationId, session.seats, now);
    const end = periodEnd(now, session.interval);
    const values = {
      planId: plan.id,
      status: 'active' as const,
      seats: session.seats,
      interval: session.interval,
      currentPeriodStart: now,
      currentPeriodEnd: end,
      billingAnchor: now,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      updatedAt: now,
    };
    const [subscription] = await tx
      .insert(subscriptions)
      .values({ organizationId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: subscriptions.organizationId, set: values })
      .returning();
    if (!subscription) throw new Error('subscription upsert returned nothing');
    const { invoice, paid } = await issueInvoice(tx, {
      organizationId,
      currency: plan.currency,
      reason: 'subscription_create',
      lines: [periodLine(plan, session, now, end)],
      periodStart: now,
      periodEnd: end,
      now,
    });
    await tx
      .update(checkoutSessions)
      .set({ status: 'complete', completedAt: now })
      .where(eq(checkoutSessions.id, session.id));
    await announceBillingEvent(tx, context, {
      organizationId,
      actorId: session.createdBy,
      action: 'subscription.created',
      targetType: 'subscription',
      targetId: subscription.id,
      title: `Subscribed to ${plan.name}`,
      body: `${plan.name} with ${session.seats} seats, billed every ${session.interval}. Payment of ${paid} received (invoice ${invoice.displayNumber}).`,
      metadata: { planId: plan.id, seats: session.seats, interval: session.interval, invoiceId: invoice.id },
    });
    return { ...session, status: 'complete' as const };
  });
}
