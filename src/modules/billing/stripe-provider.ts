import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import Stripe from 'stripe';
import type { StripeConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import {
  billingCustomers,
  type InvoiceReason,
  type InvoiceStatus,
  memberships,
  organizations,
  type SubscriptionStatus,
  subscriptions,
  users,
} from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { pageBounds, toPage } from '../../http/pagination.ts';
import { findPlan, type Plan, type PlanId } from './catalog.ts';
import type { InvoiceView } from './invoices.ts';
import { lockedCustomer } from './ledger.ts';
import type { BillingProvider } from './provider.ts';

const clients = new WeakMap<StripeConfig, Stripe>();

/** The SDK pointed at the configured API (Stripe's, or a stand-in in tests), made once per configuration. */
export function stripeClient(stripe: StripeConfig) {
  const known = clients.get(stripe);
  if (known) return known;
  const api = new URL(stripe.apiUrl);
  const client = new Stripe(stripe.secretKey, {
    host: api.hostname,
    port: api.port || (api.protocol === 'https:' ? 443 : 80),
    protocol: api.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 2,
    // Calls are made inside a database transaction: a slow Stripe must not hold it long.
    timeout: 10_000,
    telemetry: false,
  });
  clients.set(stripe, client);
  return client;
}

/**
 * A Stripe failure as the API answers it: a refusal of the request (a declined card, a bad
 * parameter) is the client's 400 with Stripe's message; anything else (Stripe unreachable, a 5xx)
 * is a 503 — nothing was changed, try again.
 */
export async function callStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeIdempotencyError) {
      throw errors.badRequest(
        'This Idempotency-Key was already used with a different request',
        'IDEMPOTENCY_KEY_REUSED',
      );
    }
    if (
      error instanceof Stripe.errors.StripeCardError ||
      error instanceof Stripe.errors.StripeInvalidRequestError
    ) {
      throw errors.badRequest(`The payment provider refused: ${error.message}`, 'PAYMENT_REFUSED');
    }
    if (error instanceof Stripe.errors.StripeError) {
      throw new AppError(
        503,
        'PAYMENT_PROVIDER_UNAVAILABLE',
        'The payment provider did not answer: nothing was changed, try again',
        {
          headers: { 'retry-after': '5' },
        },
      );
    }
    throw error;
  }
}

const STATUS: Partial<Record<Stripe.Subscription.Status, SubscriptionStatus>> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
};

const INVOICE_REASONS: Record<string, InvoiceReason> = {
  subscription_create: 'subscription_create',
  subscription_cycle: 'subscription_cycle',
  subscription_update: 'subscription_update',
};

const seconds = (value: number) => new Date(value * 1000);
/** The id of a Stripe field that holds an id or the expanded object. */
export const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : value?.id;

/** The plan a Stripe price is the price of (STRIPE_PRICE_*). */
function planOfPrice(
  context: AppContext,
  stripe: StripeConfig,
  priceId: string | undefined,
): Plan | undefined {
  for (const [planId, intervals] of Object.entries(stripe.prices)) {
    if (Object.values(intervals).includes(priceId ?? '')) return findPlan(context.config, planId as PlanId);
  }
  return undefined;
}

/**
 * Writes a Stripe subscription's state into the subscription row, which every plan limit reads.
 * Webhooks call it with the subscription fetched again from Stripe (never the event's copy), so
 * events applied in any order leave the latest state. A subscription still waiting for its first
 * payment (`incomplete`) gives the organization nothing yet.
 */
export async function mirrorSubscription(
  tx: Tx,
  context: AppContext,
  stripe: StripeConfig,
  subscription: Stripe.Subscription,
): Promise<{ organizationId: string; subscriptionId: string; plan: Plan } | undefined> {
  const organizationId = await organizationOf(tx, subscription);
  const item = subscription.items.data[0];
  const plan = planOfPrice(context, stripe, item?.price.id);
  const status = STATUS[subscription.status];
  if (!organizationId || !item || !plan || !status) return undefined;
  const [current] = await tx
    .select({ providerSubscriptionId: subscriptions.providerSubscriptionId, status: subscriptions.status })
    .from(subscriptions)
    .where(eq(subscriptions.organizationId, organizationId))
    .for('update');
  // The row is the organization's one live subscription: news of another Stripe subscription (an
  // ended one, retried) may not overwrite it, unless the row's own has ended and the other lives.
  const another = current?.providerSubscriptionId && current.providerSubscriptionId !== subscription.id;
  if (another && (current.status !== 'canceled' || status === 'canceled')) return undefined;
  const now = context.clock.now();
  const values = {
    planId: plan.id,
    status,
    seats: item.quantity ?? 1,
    interval: item.price.recurring?.interval === 'year' ? ('year' as const) : ('month' as const),
    currentPeriodStart: seconds(item.current_period_start),
    currentPeriodEnd: seconds(item.current_period_end),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    canceledAt: subscription.ended_at ? seconds(subscription.ended_at) : null,
    providerSubscriptionId: subscription.id,
    updatedAt: now,
  };
  const [row] = await tx
    .insert(subscriptions)
    .values({ organizationId, ...values, createdAt: now })
    .onConflictDoUpdate({ target: subscriptions.organizationId, set: values })
    .returning({ id: subscriptions.id });
  return row ? { organizationId, subscriptionId: row.id, plan } : undefined;
}

async function organizationOf(db: Db | Tx, subscription: Stripe.Subscription) {
  const named = subscription.metadata?.organizationId;
  if (named) return named;
  const [customer] = await db
    .select({ organizationId: billingCustomers.organizationId })
    .from(billingCustomers)
    .where(eq(billingCustomers.providerCustomerId, idOf(subscription.customer) ?? ''));
  return customer?.organizationId;
}

export function stripeProvider(context: AppContext, stripe: StripeConfig): BillingProvider {
  const client = stripeClient(stripe);

  /** The organization's Stripe customer, created on first use (one per organization, by its key). */
  async function customerOf(tx: Tx, organizationId: string) {
    const customer = await lockedCustomer(tx, organizationId, context.config.billing.currency, 'stripe');
    if (customer.providerCustomerId) return customer.providerCustomerId;
    const [owner] = await tx
      .select({ name: organizations.name, email: users.email })
      .from(organizations)
      .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(organizations.id, organizationId), eq(memberships.role, 'owner')))
      .orderBy(memberships.createdAt)
      .limit(1);
    const created = await callStripe(() =>
      client.customers.create(
        { name: owner?.name, email: owner?.email, metadata: { organizationId } },
        { idempotencyKey: `customer:${organizationId}` },
      ),
    );
    await tx
      .update(billingCustomers)
      .set({ providerCustomerId: created.id })
      .where(eq(billingCustomers.organizationId, organizationId));
    return created.id;
  }

  /** The subscription's id at Stripe; one made by the local provider (before a switch to Stripe) has none. */
  async function remote(subscription: { providerSubscriptionId: string | null }) {
    if (subscription.providerSubscriptionId) return subscription.providerSubscriptionId;
    throw errors.badRequest(
      'This subscription was made in the local ledger, not at Stripe: it cannot be changed there',
      'SUBSCRIPTION_NOT_AT_PROVIDER',
    );
  }

  return {
    async startCheckout(tx, request) {
      const customer = await customerOf(tx, request.organizationId);
      const session = await callStripe(() =>
        client.checkout.sessions.create(
          {
            mode: 'subscription',
            customer,
            client_reference_id: request.organizationId,
            line_items: [
              {
                price: stripe.prices[request.plan.id as 'pro' | 'business'][request.interval],
                quantity: request.seats,
              },
            ],
            success_url: request.successUrl ?? `${context.config.appUrl}/?checkout=success`,
            cancel_url: request.cancelUrl ?? `${context.config.appUrl}/?checkout=canceled`,
            metadata: { organizationId: request.organizationId },
            subscription_data: { metadata: { organizationId: request.organizationId } },
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      );
      if (!session.url) throw new Error('Stripe answered a checkout session without a URL');
      return { sessionId: session.id, url: session.url, expiresAt: seconds(session.expires_at) };
    },

    async openPortal(tx, request) {
      const customer = await customerOf(tx, request.organizationId);
      const session = await callStripe(() =>
        client.billingPortal.sessions.create(
          { customer, return_url: request.returnUrl ?? context.config.appUrl },
          { idempotencyKey: randomUUID() },
        ),
      );
      return { url: session.url, expiresAt: null };
    },

    async changeSubscription(tx, { subscription, to, idempotencyKey }) {
      const id = await remote(subscription);
      const current = await callStripe(() => client.subscriptions.retrieve(id));
      const item = current.items.data[0];
      if (!item) throw new Error(`Stripe subscription ${id} has no item`);
      const updated = await callStripe(() =>
        client.subscriptions.update(
          id,
          {
            items: [
              {
                id: item.id,
                price: stripe.prices[to.plan.id as 'pro' | 'business'][to.interval],
                quantity: to.seats,
              },
            ],
            proration_behavior: 'always_invoice',
            payment_behavior: 'error_if_incomplete',
          },
          { idempotencyKey },
        ),
      );
      await mirrorSubscription(tx, context, stripe, updated);
      const invoice = idOf(updated.latest_invoice);
      return { receipt: `Stripe invoiced the prorated difference${invoice ? ` (invoice ${invoice})` : ''}.` };
    },

    async setCancellation(tx, { subscription, cancel, idempotencyKey }) {
      const id = await remote(subscription);
      const updated = await callStripe(() =>
        client.subscriptions.update(id, { cancel_at_period_end: cancel }, { idempotencyKey }),
      );
      await mirrorSubscription(tx, context, stripe, updated);
    },

    async listInvoices(db, organizationId, query) {
      const [customer] = await db
        .select({ id: billingCustomers.providerCustomerId })
        .from(billingCustomers)
        .where(eq(billingCustomers.organizationId, organizationId));
      if (!customer?.id) return toPage([], 0, query);
      const customerId = customer.id;
      // Stripe pages by cursor, newest first; an organization has a few invoices a year, so they
      // are read whole and cut into this API's numbered pages.
      const all = await callStripe(() =>
        client.invoices.list({ customer: customerId, limit: 100 }).autoPagingToArray({ limit: 10_000 }),
      );
      const { limit, offset } = pageBounds(query);
      const page = all.slice(offset, offset + limit);
      return toPage(
        page.map((invoice) => presentStripeInvoice(context, stripe, invoice)),
        all.length,
        query,
      );
    },
  };
}

function presentStripeInvoice(
  context: AppContext,
  stripe: StripeConfig,
  invoice: Stripe.Invoice,
): InvoiceView {
  return {
    id: invoice.id ?? '',
    number: invoice.number ?? invoice.id ?? '',
    status: (invoice.status ?? 'draft') as InvoiceStatus,
    reason: INVOICE_REASONS[invoice.billing_reason ?? ''] ?? 'other',
    currency: invoice.currency,
    subtotal: invoice.subtotal,
    creditApplied: Math.max(0, invoice.total - invoice.amount_due),
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    periodStart: seconds(invoice.period_start),
    periodEnd: seconds(invoice.period_end),
    paidAt: invoice.status_transitions?.paid_at ? seconds(invoice.status_transitions.paid_at) : null,
    createdAt: seconds(invoice.created),
    url: invoice.hosted_invoice_url ?? `${context.config.appUrl}/`,
    lines: invoice.lines.data.map((line) => {
      const priceId = line.pricing?.price_details?.price;
      return {
        description: line.description ?? '',
        planId: planOfPrice(context, stripe, typeof priceId === 'string' ? priceId : undefined)?.id ?? '',
        quantity: line.quantity ?? 1,
        unitAmount: Math.round(Number(line.pricing?.unit_amount_decimal ?? 0)),
        amount: line.amount,
        proration: Boolean(line.parent?.subscription_item_details?.proration),
        periodStart: seconds(line.period.start),
        periodEnd: seconds(line.period.end),
      };
    }),
  };
}
