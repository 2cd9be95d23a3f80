import { createHash, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { type BillingInterval, organizations, subscriptions } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { utcDay } from '../../lib/clock.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { callerOrganization } from '../organizations/access.ts';
import { findPlan, type Plan, type PlanId, planCatalog } from './catalog.ts';
import { periodPrice } from './money.ts';
import { announceBillingEvent } from './notices.ts';
import { billingProvider } from './providers.ts';
import {
  assertSeatsFit,
  assertVideosFit,
  currentPlan,
  planAndSeats,
  type SubscriptionRow,
  seatsUsed,
} from './state.ts';

type Caller = Pick<AuthUser, 'id' | 'defaultOrganizationId'>;

/**
 * A client's Idempotency-Key, when it sent one: the provider's writes reuse it with a digest of
 * what was asked (another request under the same key is another write), so a retry is one write.
 */
type Idempotency = { key?: string | undefined };
const providerKey = (caller: Caller, operation: string, idempotency: Idempotency, request: unknown) => {
  if (!idempotency.key) return randomUUID();
  const asked = createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 16);
  return `${caller.id}:${operation}:${idempotency.key}:${asked}`;
};

export const listPlans = (config: AppContext['config']) => planCatalog(config);

/** The organization's subscription as the API shows it (the free plan when it has none). */
export async function subscriptionView(
  db: Db | Tx,
  context: Pick<AppContext, 'config'>,
  organizationId: string,
  now: Date,
) {
  const { row, paid, plan, seats, used } = await planAndSeats(db, context.config, organizationId, now);
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

function paidPlan(context: Pick<AppContext, 'config'>, planId: PlanId, hint: string): Plan {
  const plan = findPlan(context.config, planId);
  if (!plan || plan.prices.month === 0) {
    throw errors.badRequest(`The free plan is not bought: ${hint}`, 'PLAN_NOT_PURCHASABLE');
  }
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

/** Opens a checkout for a paid plan (owner or admin); the buyer confirms and pays on its page. */
export async function startCheckout(
  tx: Tx,
  context: AppContext,
  caller: Caller,
  input: CheckoutInput,
  idempotency: Idempotency = {},
) {
  const { organizationId } = await callerOrganization(tx, caller, input.organizationId, {
    path: 'body',
    minRole: 'admin',
  });
  const plan = paidPlan(context, input.planId, 'an organization without a paid subscription is on it');
  const now = context.clock.now();
  if ((await currentPlan(tx, context.config, organizationId)).paid) {
    throw errors.badRequest(
      'The organization already has a paid subscription: change it with PATCH /billing/subscription',
      'ALREADY_SUBSCRIBED',
    );
  }
  const seats = input.seats ?? Math.max(1, (await seatsUsed(tx, organizationId, now)).total);
  await assertSeatsFit(tx, plan, organizationId, seats, now);
  await assertVideosFit(tx, plan, organizationId);
  const interval = input.interval ?? 'month';
  const session = await billingProvider(context).startCheckout(tx, {
    organizationId,
    plan,
    seats,
    interval,
    createdBy: caller.id,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
    idempotencyKey: providerKey(caller, 'checkout', idempotency, input),
  });
  return { ...session, amount: periodPrice(plan, interval, seats), currency: plan.currency };
}

/**
 * Opens the billing portal for an owner or admin. Stripe's Customer Portal may let its visitor
 * cancel (as the Stripe dashboard's portal settings say), and cancelling is the owners': with
 * Stripe, only owners open it.
 */
export async function openPortal(
  context: AppContext,
  caller: Caller,
  input: { organizationId?: string | undefined; returnUrl?: string | undefined },
) {
  return context.db.transaction(async (tx) => {
    const { organizationId } = await callerOrganization(tx, caller, input.organizationId, {
      path: 'body',
      minRole: context.config.billing.stripe ? 'owner' : 'admin',
    });
    return billingProvider(context).openPortal(tx, {
      organizationId,
      userId: caller.id,
      returnUrl: input.returnUrl,
    });
  });
}

export type SubscriptionChange = {
  organizationId?: string | undefined;
  planId?: PlanId | undefined;
  seats?: number | undefined;
  interval?: BillingInterval | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
};

/**
 * Moves a paid subscription to another plan, seat count or interval (owner or admin), invoiced at
 * once with proration. `cancelAtPeriodEnd` schedules or withdraws a cancellation (owner only).
 */
export async function changeSubscription(
  tx: Tx,
  context: AppContext,
  caller: Caller,
  input: SubscriptionChange,
  idempotency: Idempotency = {},
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
  const paid = await lockedPaidSubscription(tx, context, organizationId);
  const { plan: fromPlan } = await currentPlan(tx, context.config, organizationId);
  const toPlan = input.planId
    ? paidPlan(context, input.planId, 'to leave a paid plan, cancel with DELETE /billing/subscription')
    : fromPlan;
  const from = { plan: fromPlan, seats: paid.seats, interval: paid.interval };
  const to = { plan: toPlan, seats: input.seats ?? paid.seats, interval: input.interval ?? paid.interval };
  if (to.plan.id !== from.plan.id || to.seats !== from.seats || to.interval !== from.interval) {
    await assertSeatsFit(tx, to.plan, organizationId, to.seats, now);
    await assertVideosFit(tx, to.plan, organizationId);
    const { receipt } = await billingProvider(context).changeSubscription(tx, {
      subscription: paid,
      from,
      to,
      idempotencyKey: providerKey(caller, 'change', idempotency, input),
    });
    const describe = (side: typeof from) =>
      `${side.plan.name} with ${side.seats} seats, billed every ${side.interval}`;
    await announceBillingEvent(tx, context, {
      organizationId,
      actorId: caller.id,
      action: 'subscription.updated',
      targetType: 'subscription',
      targetId: paid.id,
      title: `Subscription changed to ${to.plan.name} with ${to.seats} seats`,
      body: `From ${describe(from)}, to ${describe(to)}. ${receipt}`,
      metadata: {
        from: { planId: from.plan.id, seats: from.seats, interval: from.interval },
        to: { planId: to.plan.id, seats: to.seats, interval: to.interval },
      },
    });
  }
  if (input.cancelAtPeriodEnd !== undefined && input.cancelAtPeriodEnd !== paid.cancelAtPeriodEnd) {
    await setCancellation(tx, context, caller, paid, input.cancelAtPeriodEnd, idempotency);
  }
  return subscriptionView(tx, context, organizationId, now);
}

/** The organization's paid subscription, locked for the change; 400 on the free plan. */
async function lockedPaidSubscription(
  tx: Tx,
  context: AppContext,
  organizationId: string,
): Promise<SubscriptionRow> {
  const { paid } = await currentPlan(tx, context.config, organizationId);
  if (!paid) {
    throw errors.badRequest(
      'The organization is on the free plan: start a paid plan with POST /billing/checkout',
      'NO_PAID_SUBSCRIPTION',
    );
  }
  const [locked] = await tx.select().from(subscriptions).where(eq(subscriptions.id, paid.id)).for('update');
  return locked ?? paid;
}

async function setCancellation(
  tx: Tx,
  context: AppContext,
  caller: Caller,
  subscription: SubscriptionRow,
  cancel: boolean,
  idempotency: Idempotency,
) {
  await billingProvider(context).setCancellation(tx, {
    subscription,
    cancel,
    idempotencyKey: providerKey(caller, cancel ? 'cancel' : 'resume', idempotency, {}),
  });
  const end = utcDay(subscription.currentPeriodEnd);
  await announceBillingEvent(tx, context, {
    organizationId: subscription.organizationId,
    actorId: caller.id,
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
    if (!paid)
      throw errors.badRequest('The organization has no paid subscription to cancel', 'NOTHING_TO_CANCEL');
    // Checked under the row lock: of two cancellations at once, the second finds the first's.
    const locked = await lockedPaidSubscription(tx, context, organizationId);
    if (locked.cancelAtPeriodEnd) {
      throw errors.badRequest(
        'The subscription is already cancelled at the end of its period',
        'NOTHING_TO_CANCEL',
      );
    }
    await setCancellation(tx, context, caller, locked, true, {});
    return subscriptionView(tx, context, organizationId, context.clock.now());
  });
}

/** The organization's invoices, newest first (any member). */
export async function listInvoices(
  context: AppContext,
  caller: Caller,
  query: PageRequest & { organizationId?: string | undefined },
) {
  const { organizationId } = await callerOrganization(context.db, caller, query.organizationId, {
    path: 'querystring',
  });
  return billingProvider(context).listInvoices(context.db, organizationId, query);
}

export const organizationName = async (db: Db, organizationId: string) =>
  (
    await db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
  )[0]?.name ?? '';
