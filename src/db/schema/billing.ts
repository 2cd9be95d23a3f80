import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from './columns.ts';
import { organizations } from './organizations.ts';
import { users } from './users.ts';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const BILLING_INTERVALS = ['month', 'year'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
/** Why an invoice was issued; `other` for a payment network's invoices of any other kind. */
export const INVOICE_REASONS = [
  'subscription_create',
  'subscription_cycle',
  'subscription_update',
  'other',
] as const;
export type InvoiceReason = (typeof INVOICE_REASONS)[number];

/**
 * The organization as a customer of the billing provider. `balance` is money the customer is owed
 * (a proration credit, in minor units of `currency`), taken off the next invoices.
 */
export const billingCustomers = pgTable(
  'billing_customers',
  {
    organizationId: uuid('organization_id')
      .primaryKey()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    providerCustomerId: text('provider_customer_id'),
    currency: text('currency').notNull(),
    creditBalance: integer('credit_balance').notNull().default(0),
    /** Random, unique per customer: the start of its invoice numbers (`KH7Q2M4XK-0001`). */
    invoicePrefix: text('invoice_prefix').notNull(),
    /** Invoice numbers run 1, 2, 3… per organization; the last one issued. */
    lastInvoiceNumber: integer('last_invoice_number').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('billing_customers_invoice_prefix_key').on(table.invoicePrefix)],
);

/**
 * The organization's paid subscription (at most one). No row: the free plan. A canceled row keeps
 * the last period for the record; the organization is on the free plan again.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    planId: text('plan_id').notNull(),
    status: text('status').$type<SubscriptionStatus>().notNull(),
    seats: integer('seats').notNull(),
    interval: text('interval').$type<BillingInterval>().notNull(),
    currentPeriodStart: timestamptz('current_period_start').notNull(),
    currentPeriodEnd: timestamptz('current_period_end').notNull(),
    /** The local provider's periods all end on this instant's day of the month (clamped in shorter months). */
    billingAnchor: timestamptz('billing_anchor'),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    canceledAt: timestamptz('canceled_at'),
    providerSubscriptionId: text('provider_subscription_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('subscriptions_organization_id_key').on(table.organizationId),
    index('subscriptions_due_idx').on(table.currentPeriodEnd).where(sql`status <> 'canceled'`),
    check(
      'subscriptions_status_check',
      sql`${table.status} IN ('trialing', 'active', 'past_due', 'canceled')`,
    ),
    check('subscriptions_interval_check', sql`${table.interval} IN ('month', 'year')`),
    check('subscriptions_seats_check', sql`${table.seats} > 0`),
  ],
);

/** An invoice: money in integer minor units of its currency; `number` is sequential per organization. */
export const invoices = pgTable(
  'invoices',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    /** The number as printed: the customer's prefix and the sequence, unique across organizations. */
    displayNumber: text('display_number').notNull(),
    status: text('status').$type<InvoiceStatus>().notNull(),
    currency: text('currency').notNull(),
    subtotal: integer('subtotal').notNull(),
    /** Credit from the customer's balance applied to this invoice. */
    creditApplied: integer('credit_applied').notNull().default(0),
    amountDue: integer('amount_due').notNull(),
    amountPaid: integer('amount_paid').notNull().default(0),
    reason: text('reason').$type<InvoiceReason>().notNull(),
    periodStart: timestamptz('period_start').notNull(),
    periodEnd: timestamptz('period_end').notNull(),
    /** What the invoice was addressed to when issued (an organization may be renamed later). */
    billedTo: jsonb('billed_to').$type<{ name: string; email: string | null }>().notNull(),
    providerInvoiceId: text('provider_invoice_id'),
    paidAt: timestamptz('paid_at'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('invoices_organization_number_key').on(table.organizationId, table.number),
    uniqueIndex('invoices_display_number_key').on(table.displayNumber),
    check('invoices_status_check', sql`${table.status} IN ('open', 'paid', 'void', 'uncollectible')`),
    check('invoices_amounts_check', sql`${table.amountDue} >= 0 AND ${table.amountPaid} >= 0`),
  ],
);

/** A line of an invoice; a proration credit is a negative amount. */
export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: id(),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    description: text('description').notNull(),
    planId: text('plan_id').notNull(),
    quantity: integer('quantity').notNull(),
    unitAmount: integer('unit_amount').notNull(),
    amount: integer('amount').notNull(),
    proration: boolean('proration').notNull().default(false),
    periodStart: timestamptz('period_start').notNull(),
    periodEnd: timestamptz('period_end').notNull(),
  },
  (table) => [uniqueIndex('invoice_lines_invoice_position_key').on(table.invoiceId, table.position)],
);

/** A payment towards an invoice (the local provider records each one it settles). */
export const payments = pgTable(
  'payments',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<'succeeded' | 'failed'>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('payments_invoice_id_idx').on(table.invoiceId)],
);

/** A checkout started by an owner or admin: what they chose, confirmed on the checkout page. */
export const checkoutSessions = pgTable('checkout_sessions', {
  id: id(),
  organizationId: uuid('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  planId: text('plan_id').notNull(),
  seats: integer('seats').notNull(),
  interval: text('interval').$type<BillingInterval>().notNull(),
  status: text('status').$type<'open' | 'complete'>().notNull().default('open'),
  successUrl: text('success_url'),
  cancelUrl: text('cancel_url'),
  expiresAt: timestamptz('expires_at').notNull(),
  completedAt: timestamptz('completed_at'),
  createdAt: createdAt(),
});

/** A visit to the billing portal, opened for one person of one organization. */
export const portalSessions = pgTable('portal_sessions', {
  id: id(),
  organizationId: uuid('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  returnUrl: text('return_url'),
  expiresAt: timestamptz('expires_at').notNull(),
  createdAt: createdAt(),
});

/**
 * The answer given to a write sent with an `Idempotency-Key`, kept for a day: the same key from
 * the same person on the same operation gets the same answer and no second effect.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    operation: text('operation').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code'),
    response: jsonb('response'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('idempotency_keys_key').on(table.userId, table.operation, table.key),
    index('idempotency_keys_created_at_idx').on(table.createdAt),
  ],
);

/** Every payment-provider event received (Stripe's `evt_…` id): an event delivered twice is applied once. */
export const billingEvents = pgTable('billing_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: timestamptz('received_at').notNull().defaultNow(),
});
