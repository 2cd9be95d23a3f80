import { and, eq, isNull, lte, ne } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { subscriptions } from '../../db/schema/index.ts';
import type { JobDefinition, JobQueue } from '../../jobs/queue.ts';
import { utcDay } from '../../lib/clock.ts';
import { findPlan } from './catalog.ts';
import { issueInvoice, periodLine } from './ledger.ts';
import { formatMoney, periodEnd } from './money.ts';
import { announceBillingEvent } from './notices.ts';

/** What ending periods needs: the catalog, the database, and what telling the owners needs. */
type RenewalContext = Pick<AppContext, 'config' | 'db' | 'clock'> & { jobs: Pick<JobQueue, 'send'> };

/**
 * Ends every period of the local provider's subscriptions that ended by `now`: a subscription cancelled at period end is canceled (the
 * organization is on the free plan again); any other renews for the next period, with its invoice
 * paid. One subscription per transaction, locked with SKIP LOCKED so that instances share the
 * work; a subscription several periods behind (a server that was off) catches up one by one.
 * Returns what it did.
 */
export async function endDuePeriods(context: RenewalContext, now: Date) {
  const outcome = { renewed: 0, canceled: 0 };
  for (;;) {
    const done = await endOnePeriod(context, now);
    if (!done) return outcome;
    outcome[done] += 1;
  }
}

async function endOnePeriod(context: RenewalContext, now: Date): Promise<'renewed' | 'canceled' | null> {
  return context.db.transaction(async (tx) => {
    const [due] = await tx
      .select()
      .from(subscriptions)
      // Stripe's subscriptions renew at Stripe, which says so by webhook.
      .where(
        and(
          ne(subscriptions.status, 'canceled'),
          lte(subscriptions.currentPeriodEnd, now),
          isNull(subscriptions.providerSubscriptionId),
        ),
      )
      .orderBy(subscriptions.currentPeriodEnd)
      .limit(1)
      .for('update', { skipLocked: true });
    if (!due) return null;
    const plan = findPlan(context.config, due.planId);
    const end = due.currentPeriodEnd;
    if (due.cancelAtPeriodEnd || !plan) {
      await tx
        .update(subscriptions)
        .set({ status: 'canceled', cancelAtPeriodEnd: false, canceledAt: end, updatedAt: now })
        .where(eq(subscriptions.id, due.id));
      await announceBillingEvent(tx, context, {
        organizationId: due.organizationId,
        actorId: null,
        action: 'subscription.canceled',
        targetType: 'subscription',
        targetId: due.id,
        title: 'Subscription ended: the organization is on the free plan',
        body: `The ${plan?.name ?? due.planId} subscription ended on ${utcDay(end)}. The free plan's limits apply from now on.`,
        metadata: { planId: due.planId },
      });
      return 'canceled';
    }
    const nextEnd = periodEnd(end, due.interval, due.billingAnchor ?? due.currentPeriodStart);
    const { invoice, paid } = await issueInvoice(tx, {
      organizationId: due.organizationId,
      currency: plan.currency,
      reason: 'subscription_cycle',
      lines: [periodLine(plan, due, end, nextEnd)],
      periodStart: end,
      periodEnd: nextEnd,
      now,
    });
    await tx
      .update(subscriptions)
      .set({ status: 'active', currentPeriodStart: end, currentPeriodEnd: nextEnd, updatedAt: now })
      .where(eq(subscriptions.id, due.id));
    await announceBillingEvent(tx, context, {
      organizationId: due.organizationId,
      actorId: null,
      action: 'invoice.paid',
      targetType: 'invoice',
      targetId: invoice.id,
      title: `Payment of ${paid} received`,
      body: `${plan.name} renewed until ${utcDay(nextEnd)}: invoice ${invoice.displayNumber}, ${formatMoney(invoice.amountPaid, invoice.currency)} paid.`,
      metadata: { invoiceId: invoice.id, amountPaid: invoice.amountPaid, currency: invoice.currency },
    });
    return 'renewed';
  });
}

const renewalJobData = z.object({ now: z.iso.datetime({ offset: true }).optional() });

/** Every ten minutes. `now` (ISO 8601) may be given to end the periods due by another time. */
export const billingRenewalJob = (context: Pick<RenewalContext, 'config' | 'clock'>): JobDefinition => ({
  name: 'billing-renewals',
  cron: '*/10 * * * *',
  handler: async (data, { db, logger, jobs }) => {
    const given = renewalJobData.parse(data).now;
    const now = given ? new Date(given) : context.clock.now();
    const outcome = await endDuePeriods({ ...context, db, jobs }, now);
    logger.info(outcome, 'billing periods ended');
  },
});
