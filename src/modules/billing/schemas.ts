import { z } from 'zod';
import {
  BILLING_INTERVALS,
  INVOICE_REASONS,
  INVOICE_STATUSES,
  SUBSCRIPTION_STATUSES,
} from '../../db/schema/billing.ts';
import { uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { PLAN_IDS } from './catalog.ts';

const minorUnits = (description: string) =>
  z.int().meta({ description: `${description} In minor units of the currency (cents).` });
const currency = z.string().meta({ description: 'ISO 4217, lower case.', example: 'usd' });
const organizationField = uuid()
  .optional()
  .meta({ description: "Default: the caller's default organization." });
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);

const planLimits = z.object({
  seats: z.int().meta({
    description: 'Free: the members an organization may have. Paid: the most seats one subscription may buy.',
  }),
  videos: z
    .int()
    .nullable()
    .meta({ description: 'Videos an organization may keep (deleted ones do not count); null: no limit.' }),
  storageGb: z.int(),
  aiCreditsPerMonth: z.int(),
});

export const planSchema = z
  .object({
    id: z.enum(PLAN_IDS),
    name: z.string(),
    description: z.string(),
    prices: z.object({ month: minorUnits('One month.'), year: minorUnits('One year.') }),
    currency,
    perSeat: z.boolean().meta({ description: 'Whether the prices are per seat.' }),
    limits: planLimits,
    features: z.array(z.string()),
  })
  .meta({ id: 'Plan' });

export const planListSchema = z.array(planSchema);

export const subscriptionSchema = z
  .object({
    organizationId: uuid(),
    planId: z.enum(PLAN_IDS).meta({ description: 'free without a paid subscription, and after one ends.' }),
    status: z.enum(SUBSCRIPTION_STATUSES),
    seats: z.int().meta({ description: 'Seats bought (free plan: the members it allows).' }),
    seatsUsed: z
      .int()
      .meta({ description: 'Members, plus invitations waiting for an answer (each holds a seat).' }),
    interval: z.enum(BILLING_INTERVALS).nullable(),
    currentPeriodStart: timestamp().nullable(),
    currentPeriodEnd: timestamp()
      .nullable()
      .meta({ description: 'When the subscription renews, or ends if cancelled.' }),
    cancelAtPeriodEnd: z.boolean(),
    canceledAt: timestamp().nullable().meta({ description: 'When a cancelled subscription ended.' }),
    amount: minorUnits('What one period costs.'),
    currency,
    limits: planLimits,
  })
  .meta({ id: 'Subscription' });

export const organizationQuery = z.object({ organizationId: organizationField });

export const checkoutBody = z
  .object({
    organizationId: organizationField,
    planId: z.enum(PLAN_IDS).meta({ description: 'A paid plan (pro or business).' }),
    seats: z
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .meta({ description: 'Default: the seats in use (at least 1).' }),
    interval: z.enum(BILLING_INTERVALS).optional().meta({ description: 'Default: month.' }),
    successUrl: httpUrl
      .optional()
      .meta({ description: 'Where the checkout page sends the buyer once paid.' }),
    cancelUrl: httpUrl.optional().meta({ description: 'Where its "Back" link goes.' }),
  })
  .meta(requestExample('Pro for five seats, billed yearly', { planId: 'pro', seats: 5, interval: 'year' }));

export const checkoutSchema = z
  .object({
    sessionId: z
      .string()
      .meta({ description: "The checkout's id at the provider (a UUID with the local one)." }),
    url: z.url().meta({
      description:
        'The checkout page to open in a browser: a signed link of the service, or Stripe Checkout.',
    }),
    expiresAt: timestamp().nullable(),
    amount: minorUnits('What the first period will cost.'),
    currency,
  })
  .meta({ id: 'CheckoutSession' });

export const portalBody = z
  .object({
    organizationId: organizationField,
    returnUrl: httpUrl.optional().meta({ description: 'Where the portal\'s "Back" link goes.' }),
  })
  .meta(requestExample('Open the billing portal', { returnUrl: 'https://app.example.com/settings' }));

export const portalSchema = z
  .object({
    url: z.url().meta({
      description:
        "The billing portal: a signed link of the service valid for an hour, or Stripe's Customer Portal.",
    }),
    expiresAt: timestamp().nullable().meta({ description: 'null when the provider does not say.' }),
  })
  .meta({ id: 'PortalSession' });

export const subscriptionChangeBody = z
  .object({
    organizationId: organizationField,
    planId: z.enum(PLAN_IDS).optional(),
    seats: z.int().min(1).max(100_000).optional(),
    interval: z.enum(BILLING_INTERVALS).optional(),
    cancelAtPeriodEnd: z.boolean().optional().meta({
      description: 'true cancels at the end of the period, false withdraws a cancellation (owner only).',
    }),
  })
  .meta(requestExample('Two more seats', { seats: 7 }));

const invoiceLineSchema = z.object({
  description: z.string(),
  planId: z.string(),
  quantity: z.int(),
  unitAmount: minorUnits('Price of one unit for a whole period.'),
  amount: minorUnits('Negative for a credit (unused time).'),
  proration: z.boolean(),
  periodStart: timestamp(),
  periodEnd: timestamp(),
});

export const invoiceSchema = z
  .object({
    id: z.string().meta({ description: "The invoice's id at the provider (a UUID with the local one)." }),
    number: z.string().meta({
      example: 'KH7Q2M4XKD-0007',
      description: 'A prefix of the organization, then its invoices in sequence (0001, 0002, …).',
    }),
    status: z.enum(INVOICE_STATUSES),
    reason: z.enum(INVOICE_REASONS),
    currency,
    subtotal: minorUnits('Sum of the lines.'),
    creditApplied: minorUnits('Credit from earlier prorations used.'),
    amountDue: minorUnits(''),
    amountPaid: minorUnits(''),
    periodStart: timestamp(),
    periodEnd: timestamp(),
    paidAt: timestamp().nullable(),
    createdAt: timestamp(),
    url: z.url().meta({
      description:
        "The invoice to open: a printable page (a signed link, valid for 30 days), or Stripe's hosted invoice.",
    }),
    lines: z.array(invoiceLineSchema),
  })
  .meta({ id: 'Invoice' });

export const invoiceListQuery = paginationQuery.extend({ organizationId: organizationField });
