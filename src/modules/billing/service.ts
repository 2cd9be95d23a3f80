import { count, desc, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import {
  type BillingInterval,
  checkoutSessions,
  invoiceLines,
  invoices,
  organizations,
  portalSessions,
  subscriptions,
} from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { addSeconds } from '../../lib/clock.ts';
import { signToken } from '../../lib/signed-token.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { callerOrganization } from '../organizations/access.ts';
import { findPlan, type Plan, type PlanId, planCatalog } from './catalog.ts';
import { issueInvoice, periodLine, prorationLines } from './ledger.ts';
import { periodEnd, periodPrice } from './money.ts';
import { announceBillingEvent } from './notices.ts';
import { currentPlan, seatsUsed, videoCount } from './state.ts';

type Caller = Pick<AuthUser, 'id' | 'defaultOrganizationId'>;

/** How long the links handed out stay valid: a checkout a day, a portal visit an hour, an invoice a month. */
export const LINK_LIFETIME_SECONDS = { checkout: 24 * 3600, portal: 3600, invoice: 30 * 24 * 3600 };
/** What each signed link opens; a token signed for one purpose opens nothing else. */
export const LINK_PURPOSE = {
  checkout: 'billing-checkout',
  portal: 'billing-portal',
  invoice: 'billing-invoice',
} as const;

export const listPlans = (config: AppContext['config']) => planCatalog(config);

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

/** The organization's subscription as the API shows it (the free plan when it has none). */
export async function subscriptionView(
  db: Db | Tx,
  context: Pick<AppContext, 'config'>,
  organizationId: string,
  now: Date,
) {
  const { row, paid, plan, seats } = await currentPlan(db, context.config, organizationId);
  const used = await seatsUsed(db, organizationId, now);
  return {
    organizationId,
    planId: plan.id,
    status: row?.status ?? ('active' as const),
    seats,
    seatsUsed: used.total,
    interval: paid?.interval ?? null,
    currentPeriodStart: paid?.currentPeriodStart ?? null,
    currentPeriodEnd: paid?.currentPeriodEnd ?? null,
    cancelAtPeriodEnd: paid?.cancelAtPeriodEnd ?? false,
    canceledAt: row?.canceledAt ?? null,
    amount: paid ? periodPrice(plan, paid.interval, paid.seats) : 0,
    currency: plan.currency,
    limits: plan.limits,
  };
}

export async function getSubscription(context: AppContext, caller: Caller, named: string | undefined) {
  const { organizationId } = await callerOrganization(context.db, caller, named, { path: 'querystring' });
  return subscriptionView(context.db, context, organizationId, context.clock.now());
}

/** Seats asked for must cover the seats in use and stay within what the plan sells. */
async function assertSeatsFit(tx: Tx, plan: Plan, organizationId: string, seats: number, now: Date) {
  const used = await seatsUsed(tx, organizationId, now);
  if (seats < used.total) {
    throw errors.validation([
      {
        path: 'body.seats',
        message: `must cover the ${used.total} seats in use (${used.members} members, ${used.pendingInvitations} pending invitations)`,
      },
    ]);
  }
  if (seats > plan.limits.seats) {
    throw errors.validation([
      { path: 'body.seats', message: `the ${plan.name} plan sells at most ${plan.limits.seats} seats` },
    ]);
  }
}

/** A plan whose video limit is below what the organization keeps is refused, not scheduled. */
async function assertVideosFit(tx: Tx, plan: Plan, organizationId: string) {
  if (plan.limits.videos === null) return;
  const kept = await videoCount(tx, organizationId);
  if (kept > plan.limits.videos) {
    throw errors.badRequest(
      `The ${plan.name} plan keeps ${plan.limits.videos} videos and the organization has ${kept}: delete videos first`,
      'PLAN_LIMIT_EXCEEDED',
    );
  }
}

function paidPlan(context: Pick<AppContext, 'config'>, planId: PlanId, hint: string): Plan {
  const plan = findPlan(context.config, planId);
  if (!plan || plan.prices.month === 0)
    throw errors.badRequest(`The free plan is not bought: ${hint}`, 'PLAN_NOT_PURCHASABLE');
  return plan;
}

export type CheckoutInput = {
  organizationId?: string | undefined;
  planId: PlanId;
  seats?: number | undefined;
  interval?: BillingInterval | undefined;
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
};

/** Opens a checkout for a paid plan (owner or admin); the returned page confirms it. */
export async function startCheckout(tx: Tx, context: AppContext, caller: Caller, input: CheckoutInput) {
  const { organizationId } = await callerOrganization(tx, caller, input.organizationId, {
    path: 'body',
    minRole: 'admin',
  });
  const plan = paidPlan(context, input.planId, 'an organization without a paid subscription is on it');
  const now = context.clock.now();
  const { paid } = await currentPlan(tx, context.config, organizationId);
  if (paid) {
    throw errors.badRequest(
      'The organization already has a paid subscription: change it with PATCH /billing/subscription',
      'ALREADY_SUBSCRIBED',
    );
  }
  const seats = input.seats ?? Math.max(1, (await seatsUsed(tx, organizationId, now)).total);
  await assertSeatsFit(tx, plan, organizationId, seats, now);
  await assertVideosFit(tx, plan, organizationId);
  const expiresAt = addSeconds(now, LINK_LIFETIME_SECONDS.checkout);
  const [session] = await tx
    .insert(checkoutSessions)
    .values({
      organizationId,
      createdBy: caller.id,
      planId: plan.id,
      seats,
      interval: input.interval ?? 'month',
      successUrl: input.successUrl ?? null,
      cancelUrl: input.cancelUrl ?? null,
      expiresAt,
      createdAt: now,
    })
    .returning();
  if (!session) throw new Error('checkout insert returned nothing');
  return {
    sessionId: session.id,
    url: signedLink(context, 'checkout', `/billing/checkout/${session.id}`, session.id, expiresAt),
    expiresAt,
    amount: periodPrice(plan, session.interval, seats),
    currency: plan.currency,
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
    if (session.expiresAt <= now)
      throw errors.badRequest('This checkout has expired: start a new one', 'CHECKOUT_EXPIRED');
    const plan = paidPlan(context, session.planId as PlanId, 'choose another plan');
    const { organizationId } = session;
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

/** Opens the billing portal for an owner or admin. */
export async function openPortal(
  context: AppContext,
  caller: Caller,
  input: { organizationId?: string | undefined; returnUrl?: string | undefined },
) {
  const { organizationId } = await callerOrganization(context.db, caller, input.organizationId, {
    path: 'body',
    minRole: 'admin',
  });
  const now = context.clock.now();
  const expiresAt = addSeconds(now, LINK_LIFETIME_SECONDS.portal);
  const [session] = await context.db
    .insert(portalSessions)
    .values({
      organizationId,
      userId: caller.id,
      returnUrl: input.returnUrl ?? null,
      expiresAt,
      createdAt: now,
    })
    .returning();
  if (!session) throw new Error('portal insert returned nothing');
  return {
    url: signedLink(context, 'portal', `/billing/portal/${session.id}`, session.id, expiresAt),
    expiresAt,
  };
}

export type SubscriptionChange = {
  organizationId?: string | undefined;
  planId?: PlanId | undefined;
  seats?: number | undefined;
  interval?: BillingInterval | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
};

/**
 * Moves a paid subscription to another plan, seat count or interval (owner or admin), and
 * invoices the difference at once: a credit for the unused time of the old configuration and a
 * charge for the new one's. A new interval starts a new period now. `cancelAtPeriodEnd` schedules
 * or withdraws a cancellation (owner only).
 */
export async function changeSubscription(
  tx: Tx,
  context: AppContext,
  caller: Caller,
  input: SubscriptionChange,
) {
  const { organizationId, role } = await callerOrganization(tx, caller, input.organizationId, {
    path: 'body',
    minRole: 'admin',
  });
  if (input.cancelAtPeriodEnd !== undefined && role !== 'owner') {
    throw errors.forbidden(
      'Only an owner may cancel the subscription or withdraw its cancellation',
      'INSUFFICIENT_ROLE',
    );
  }
  const now = context.clock.now();
  const { paid, plan: fromPlan } = await currentPlan(tx, context.config, organizationId);
  if (!paid) {
    throw errors.badRequest(
      'The organization is on the free plan: start a paid plan with POST /billing/checkout',
      'NO_PAID_SUBSCRIPTION',
    );
  }
  await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(eq(subscriptions.id, paid.id))
    .for('update');
  const toPlan = input.planId
    ? paidPlan(context, input.planId, 'to leave a paid plan, cancel with DELETE /billing/subscription')
    : fromPlan;
  const seats = input.seats ?? paid.seats;
  const interval = input.interval ?? paid.interval;
  const changed = toPlan.id !== fromPlan.id || seats !== paid.seats || interval !== paid.interval;
  if (changed) {
    await assertSeatsFit(tx, toPlan, organizationId, seats, now);
    await assertVideosFit(tx, toPlan, organizationId);
    const from = { plan: fromPlan, seats: paid.seats, interval: paid.interval };
    const to = { plan: toPlan, seats, interval };
    const period = { start: paid.currentPeriodStart, end: paid.currentPeriodEnd };
    // A new interval cannot share the old period: it starts now, and the credit pays towards it.
    const restart = interval !== paid.interval;
    const start = restart ? now : paid.currentPeriodStart;
    const end = restart ? periodEnd(now, interval) : paid.currentPeriodEnd;
    const [credit, charge] = prorationLines({ from, to }, period, now);
    const lines = [credit, restart ? periodLine(toPlan, to, now, end) : charge];
    const { invoice, paid: amount } = await issueInvoice(tx, {
      organizationId,
      currency: toPlan.currency,
      reason: 'subscription_update',
      lines,
      periodStart: now,
      periodEnd: end,
      now,
    });
    await tx
      .update(subscriptions)
      .set({
        planId: toPlan.id,
        seats,
        interval,
        currentPeriodStart: start,
        currentPeriodEnd: end,
        updatedAt: now,
      })
      .where(eq(subscriptions.id, paid.id));
    await announceBillingEvent(tx, context, {
      organizationId,
      actorId: caller.id,
      action: 'subscription.updated',
      targetType: 'subscription',
      targetId: paid.id,
      title: `Subscription changed to ${toPlan.name} with ${seats} seats`,
      body: `From ${fromPlan.name} with ${paid.seats} seats, billed every ${paid.interval}, to ${toPlan.name} with ${seats} seats, billed every ${interval}. Prorated invoice ${invoice.displayNumber}: ${amount} charged.`,
      metadata: {
        from: { planId: fromPlan.id, seats: paid.seats, interval: paid.interval },
        to: { planId: toPlan.id, seats, interval },
        invoiceId: invoice.id,
      },
    });
  }
  if (input.cancelAtPeriodEnd !== undefined && input.cancelAtPeriodEnd !== paid.cancelAtPeriodEnd) {
    await setCancellation(tx, context, caller.id, paid, input.cancelAtPeriodEnd);
  }
  return subscriptionView(tx, context, organizationId, now);
}

async function setCancellation(
  tx: Tx,
  context: AppContext,
  actorId: string,
  subscription: { id: string; organizationId: string; currentPeriodEnd: Date },
  cancel: boolean,
) {
  await tx
    .update(subscriptions)
    .set({ cancelAtPeriodEnd: cancel, updatedAt: context.clock.now() })
    .where(eq(subscriptions.id, subscription.id));
  const end = subscription.currentPeriodEnd.toISOString().slice(0, 10);
  await announceBillingEvent(tx, context, {
    organizationId: subscription.organizationId,
    actorId,
    action: cancel ? 'subscription.cancellation_scheduled' : 'subscription.cancellation_withdrawn',
    targetType: 'subscription',
    targetId: subscription.id,
    title: cancel ? `Subscription ends on ${end}` : 'Subscription renews again',
    body: cancel
      ? `The subscription was cancelled: it stays active until ${end}, then the organization moves to the free plan.`
      : `The cancellation was withdrawn: the subscription renews on ${end}.`,
    metadata: { currentPeriodEnd: subscription.currentPeriodEnd.toISOString() },
  });
}

/** Cancels the paid subscription at the end of its period (owner only). */
export async function cancelSubscription(context: AppContext, caller: Caller, named: string | undefined) {
  return context.db.transaction(async (tx) => {
    const { organizationId } = await callerOrganization(tx, caller, named, {
      path: 'querystring',
      minRole: 'owner',
    });
    const { paid } = await currentPlan(tx, context.config, organizationId);
    if (!paid || paid.cancelAtPeriodEnd) {
      throw errors.badRequest(
        paid
          ? 'The subscription is already cancelled at the end of its period'
          : 'The organization has no paid subscription to cancel',
        'NOTHING_TO_CANCEL',
      );
    }
    await setCancellation(tx, context, caller.id, paid, true);
    return subscriptionView(tx, context, organizationId, context.clock.now());
  });
}

/** The organization's invoices, newest first, each with a signed link to its printable page. */
export async function listInvoices(
  context: AppContext,
  caller: Caller,
  query: PageRequest & { organizationId?: string | undefined },
) {
  const { organizationId } = await callerOrganization(context.db, caller, query.organizationId, {
    path: 'querystring',
  });
  const { limit, offset } = pageBounds(query);
  const rows = await context.db
    .select()
    .from(invoices)
    .where(eq(invoices.organizationId, organizationId))
    .orderBy(desc(invoices.number))
    .limit(limit)
    .offset(offset);
  const [total] = await context.db
    .select({ n: count() })
    .from(invoices)
    .where(eq(invoices.organizationId, organizationId));
  const lines = rows.length
    ? await context.db
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
  const data = rows.map((invoice) => ({
    ...presentInvoice(
      invoice,
      lines.filter((line) => line.invoiceId === invoice.id),
    ),
    url: signedLink(context, 'invoice', `/billing/invoices/${invoice.id}/document`, invoice.id, expiresAt),
  }));
  return toPage(data, total?.n ?? 0, query);
}

type InvoiceRow = typeof invoices.$inferSelect;
type InvoiceLineRow = typeof invoiceLines.$inferSelect;

/** An invoice as the API shows it; its number is the organization's sequence, zero-padded. */
export function presentInvoice(invoice: InvoiceRow, lines: InvoiceLineRow[]) {
  return {
    id: invoice.id,
    number: invoice.displayNumber,
    status: invoice.status,
    reason: invoice.reason,
    currency: invoice.currency,
    subtotal: invoice.subtotal,
    creditApplied: invoice.creditApplied,
    amountDue: invoice.amountDue,
    amountPaid: invoice.amountPaid,
    periodStart: invoice.periodStart,
    periodEnd: invoice.periodEnd,
    paidAt: invoice.paidAt,
    createdAt: invoice.createdAt,
    lines: lines.map((line) => ({
      description: line.description,
      planId: line.planId,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      amount: line.amount,
      proration: line.proration,
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
    })),
  };
}

export const organizationName = async (db: Db, organizationId: string) =>
  (
    await db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
  )[0]?.name ?? '';
