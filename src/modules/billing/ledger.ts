import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import type { InvoiceReason } from '../../db/schema/billing.ts';
import {
  billingCustomers,
  invoiceLines,
  invoices,
  memberships,
  organizations,
  payments,
  users,
} from '../../db/schema/index.ts';
import { utcDay } from '../../lib/clock.ts';
import type { Plan } from './catalog.ts';
import type { InvoiceLine } from './invoices.ts';
import { formatMoney, periodPrice, prorate } from './money.ts';

/** The line that charges a whole period of a plan. */
export function periodLine(
  plan: Plan,
  subscription: { seats: number; interval: 'month' | 'year' },
  start: Date,
  end: Date,
): InvoiceLine {
  const quantity = plan.perSeat ? subscription.seats : 1;
  return {
    description: `${plan.name} plan${plan.perSeat ? ` × ${quantity} seats` : ''}, ${utcDay(start)} – ${utcDay(end)}`,
    planId: plan.id,
    quantity,
    unitAmount: plan.prices[subscription.interval],
    amount: periodPrice(plan, subscription.interval, subscription.seats),
    proration: false,
    periodStart: start,
    periodEnd: end,
  };
}

/**
 * The two lines of a change in the middle of a period: a credit for the old configuration's
 * unused time and a charge for the new one's, each the share of a period price for the time left.
 */
export function prorationLines(
  change: {
    from: { plan: Plan; seats: number; interval: 'month' | 'year' };
    to: { plan: Plan; seats: number; interval: 'month' | 'year' };
  },
  period: { start: Date; end: Date },
  now: Date,
): [credit: InvoiceLine, charge: InvoiceLine] {
  const whole = period.end.getTime() - period.start.getTime();
  const left = period.end.getTime() - now.getTime();
  const { from, to } = change;
  const describe = (side: typeof from) =>
    `${side.plan.name} plan${side.plan.perSeat ? ` × ${side.seats} seats` : ''}`;
  return [
    {
      description: `Unused time on ${describe(from)} after ${utcDay(now)}`,
      planId: from.plan.id,
      quantity: from.plan.perSeat ? from.seats : 1,
      unitAmount: from.plan.prices[from.interval],
      amount: -prorate(periodPrice(from.plan, from.interval, from.seats), left, whole),
      proration: true,
      periodStart: now,
      periodEnd: period.end,
    },
    {
      description: `Remaining time on ${describe(to)} after ${utcDay(now)}`,
      planId: to.plan.id,
      quantity: to.plan.perSeat ? to.seats : 1,
      unitAmount: to.plan.prices[to.interval],
      amount: prorate(periodPrice(to.plan, to.interval, to.seats), left, whole),
      proration: true,
      periodStart: now,
      periodEnd: period.end,
    },
  ];
}

/** Eight characters of Crockford's base32 (no I, L, O, U): 40 random bits, easy to read out. */
function invoicePrefix() {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return Array.from(randomBytes(8), (byte) => alphabet[byte % 32]).join('');
}

/**
 * The organization's billing record, made on its first invoice with a prefix no other customer
 * has (a draw that collides inserts nothing and is drawn again). Locked for the caller's transaction.
 */
export async function lockedCustomer(
  tx: Tx,
  organizationId: string,
  currency: string,
  provider: 'local' | 'stripe' = 'local',
) {
  for (let attempt = 0; attempt < 5; attempt++) {
    await tx
      .insert(billingCustomers)
      .values({ organizationId, provider, currency, invoicePrefix: `KH${invoicePrefix()}` })
      .onConflictDoNothing();
    const [customer] = await tx
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.organizationId, organizationId))
      .for('update');
    if (customer) return customer;
  }
  throw new Error('no free invoice prefix after 5 draws');
}

/** Whom an invoice is addressed to: the organization, care of its first owner. */
async function billedTo(tx: Tx, organizationId: string) {
  const [row] = await tx
    .select({ name: organizations.name, email: users.email })
    .from(organizations)
    .leftJoin(
      memberships,
      sql`${memberships.organizationId} = ${organizations.id} AND ${memberships.role} = 'owner'`,
    )
    .leftJoin(users, eq(users.id, memberships.userId))
    .where(eq(organizations.id, organizationId))
    .orderBy(memberships.createdAt)
    .limit(1);
  return { name: row?.name ?? '', email: row?.email ?? null };
}

/**
 * Issues the next invoice of an organization and settles it, as the local provider does: the
 * customer's credit is applied first, what is left is paid at once (a payment row), and a net
 * credit (a downgrade mid-period) goes to the customer's balance for the next invoices.
 */
export async function issueInvoice(
  tx: Tx,
  input: {
    organizationId: string;
    currency: string;
    reason: InvoiceReason;
    lines: InvoiceLine[];
    periodStart: Date;
    periodEnd: Date;
    now: Date;
  },
) {
  const customer = await lockedCustomer(tx, input.organizationId, input.currency);
  const subtotal = input.lines.reduce((sum, line) => sum + line.amount, 0);
  const creditApplied = subtotal > 0 ? Math.min(customer.creditBalance, subtotal) : 0;
  const amountDue = Math.max(0, subtotal - creditApplied);
  const creditBalance = customer.creditBalance - creditApplied + (subtotal < 0 ? -subtotal : 0);
  const number = customer.lastInvoiceNumber + 1;
  await tx
    .update(billingCustomers)
    .set({ creditBalance, lastInvoiceNumber: number, updatedAt: input.now })
    .where(eq(billingCustomers.organizationId, input.organizationId));

  const [invoice] = await tx
    .insert(invoices)
    .values({
      organizationId: input.organizationId,
      number,
      displayNumber: `${customer.invoicePrefix}-${String(number).padStart(4, '0')}`,
      status: 'paid',
      currency: input.currency,
      subtotal,
      creditApplied,
      amountDue,
      amountPaid: amountDue,
      reason: input.reason,
      periodStart: input.periodStart,
      periodEnd: input.periodEnd,
      billedTo: await billedTo(tx, input.organizationId),
      paidAt: input.now,
      createdAt: input.now,
    })
    .returning();
  if (!invoice) throw new Error('invoice insert returned nothing');
  await tx
    .insert(invoiceLines)
    .values(input.lines.map((line, position) => ({ ...line, invoiceId: invoice.id, position })));
  if (amountDue > 0) {
    await tx.insert(payments).values({
      organizationId: input.organizationId,
      invoiceId: invoice.id,
      amount: amountDue,
      currency: input.currency,
      status: 'succeeded',
      createdAt: input.now,
    });
  }
  return { invoice, paid: formatMoney(amountDue, input.currency) };
}
