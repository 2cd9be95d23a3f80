import type { Db, Tx } from '../../db/client.ts';
import type { BillingInterval } from '../../db/schema/billing.ts';
import type { Page, PageRequest } from '../../http/pagination.ts';
import type { Plan } from './catalog.ts';
import type { InvoiceView } from './invoices.ts';
import type { SubscriptionRow } from './state.ts';

export type PlanChoice = { plan: Plan; seats: number; interval: BillingInterval };

/**
 * Where money moves: the local ledger, or Stripe. The rules — who may, which plans, seats against
 * usage, plan limits — are the service's and the same for both; a provider only carries out a
 * change that is already allowed, and keeps the subscription row (the plan every limit reads) true.
 * `idempotencyKey` is unique per logical write, and the same when a client retries it.
 */
export type BillingProvider = {
  startCheckout(
    tx: Tx,
    request: PlanChoice & {
      organizationId: string;
      createdBy: string;
      successUrl: string | undefined;
      cancelUrl: string | undefined;
      idempotencyKey: string;
    },
  ): Promise<{ sessionId: string; url: string; expiresAt: Date | null }>;
  openPortal(
    tx: Tx,
    request: { organizationId: string; userId: string; returnUrl: string | undefined },
  ): Promise<{ url: string; expiresAt: Date | null }>;
  /** Applies a plan, seat or interval change with proration; answers what was charged, for people. */
  changeSubscription(
    tx: Tx,
    change: { subscription: SubscriptionRow; from: PlanChoice; to: PlanChoice; idempotencyKey: string },
  ): Promise<{ receipt: string }>;
  setCancellation(
    tx: Tx,
    request: { subscription: SubscriptionRow; cancel: boolean; idempotencyKey: string },
  ): Promise<void>;
  listInvoices(db: Db, organizationId: string, page: PageRequest): Promise<Page<InvoiceView>>;
};
