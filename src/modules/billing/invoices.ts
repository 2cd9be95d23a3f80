import type { InvoiceReason, InvoiceStatus } from '../../db/schema/billing.ts';
import type { invoiceLines, invoices } from '../../db/schema/index.ts';

/** A line of an invoice; a credit (unused time) is a negative amount. */
export type InvoiceLine = {
  description: string;
  planId: string;
  quantity: number;
  unitAmount: number;
  amount: number;
  proration: boolean;
  periodStart: Date;
  periodEnd: Date;
};

/** An invoice as the API shows it, whichever provider issued it. Money in minor units. */
export type InvoiceView = {
  id: string;
  number: string;
  status: InvoiceStatus;
  reason: InvoiceReason;
  currency: string;
  subtotal: number;
  creditApplied: number;
  amountDue: number;
  amountPaid: number;
  periodStart: Date;
  periodEnd: Date;
  paidAt: Date | null;
  createdAt: Date;
  /** The invoice a person can open: a signed printable page (local) or Stripe's hosted invoice. */
  url: string;
  lines: InvoiceLine[];
};

type InvoiceRow = typeof invoices.$inferSelect;
type InvoiceLineRow = typeof invoiceLines.$inferSelect;

/** A ledger invoice (local provider) and its lines, as the API shows it. */
export function presentInvoice(invoice: InvoiceRow, lines: InvoiceLineRow[], url: string): InvoiceView {
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
    url,
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
