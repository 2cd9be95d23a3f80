import { utcDay } from '../../lib/clock.ts';
import type { Plan } from './catalog.ts';
import type { InvoiceView } from './invoices.ts';
import { formatMoney } from './money.ts';
import type { subscriptionView } from './service.ts';

/**
 * The billing pages the local provider serves in place of a payment network's: plain HTML forms
 * (no script), every value escaped. Each page is opened by a signed link the API handed out.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (value: unknown) => String(value).replace(/[&<>"']/g, (char) => ESCAPES[char] as string);

/** A template tag that escapes every interpolated value, except nested Html. */
class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}
const html = (strings: TemplateStringsArray, ...values: unknown[]) =>
  new Html(
    strings.reduce((out, part, index) => {
      if (index === 0) return part;
      const value = values[index - 1];
      const rendered = Array.isArray(value)
        ? value.map((item) => (item instanceof Html ? item.text : escapeHtml(item))).join('')
        : value instanceof Html
          ? value.text
          : escapeHtml(value ?? '');
      return out + rendered + part;
    }, ''),
  );

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;color:#1f2328;background:#f6f8fa;margin:0}
main{max-width:720px;margin:2rem auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:2rem}
h1{font-size:1.5rem;margin-top:0}h2{font-size:1.1rem;margin-top:2rem}
table{width:100%;border-collapse:collapse}td,th{padding:.4rem;border-bottom:1px solid #d0d7de;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.total{font-weight:600}.muted{color:#57606a}.notice{background:#dafbe1;padding:.6rem 1rem;border-radius:6px}
.error{background:#ffebe9;padding:.6rem 1rem;border-radius:6px}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
button.danger{background:#fff;color:#cf222e;border-color:#cf222e}
label{display:block;margin:.5rem 0}input,select{font:inherit;padding:.3rem}
@media print{body{background:#fff}main{border:0;margin:0}form,.no-print{display:none}}
`;

function page(title: string, body: Html): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title} · Knowledge Hub</title><style>${new Html(STYLE)}</style></head><body><main>${body}</main></body></html>`}`;
}

const day = (date: Date | null) => (date ? utcDay(date) : '—');
const priceLabel = (plan: Plan, interval: 'month' | 'year') =>
  `${formatMoney(plan.prices[interval], plan.currency)}${plan.perSeat ? ' per seat' : ''} a ${interval}`;

export function messagePage(title: string, message: string, link?: { href: string; label: string }) {
  return page(
    title,
    html`<h1>${title}</h1><p>${message}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`,
  );
}

export function checkoutPage(input: {
  action: string;
  organizationName: string;
  plan: Plan;
  seats: number;
  interval: 'month' | 'year';
  amount: number;
  backUrl: string;
  complete: boolean;
  continueUrl: string;
}) {
  const { plan } = input;
  if (input.complete) {
    return page(
      'Subscribed',
      html`<h1>You are subscribed</h1><p class="notice">${input.organizationName} is on ${plan.name} with ${input.seats} seats. The receipt is in the billing portal and in the owners' notifications.</p><p><a href="${input.continueUrl}">Continue</a></p>`,
    );
  }
  return page(
    `Subscribe to ${plan.name}`,
    html`<h1>Subscribe ${input.organizationName} to ${plan.name}</h1>
<p class="muted">${plan.description}</p>
<table><tr><th>Plan</th><td>${plan.name} (${priceLabel(plan, input.interval)})</td></tr>
<tr><th>Seats</th><td>${input.seats}</td></tr><tr><th>Billed</th><td>every ${input.interval}, from today</td></tr>
<tr class="total"><th>Due today</th><td>${formatMoney(input.amount, plan.currency)}</td></tr></table>
<form method="post" action="${input.action}"><p><button type="submit">Subscribe and pay ${formatMoney(input.amount, plan.currency)}</button></p></form>
<p class="muted">This server keeps its own ledger: confirming records the subscription, its invoice and the payment.</p>
<p><a href="${input.backUrl}">Back</a></p>`,
  );
}

type SubscriptionView = Awaited<ReturnType<typeof subscriptionView>>;

export function portalPage(input: {
  action: string;
  organizationName: string;
  subscription: SubscriptionView;
  plans: Plan[];
  invoices: InvoiceView[];
  canCancel: boolean;
  backUrl: string;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { subscription: sub, plans } = input;
  const current = plans.find((plan) => plan.id === sub.planId) as Plan;
  const paidPlans = plans.filter((plan) => plan.prices.month > 0);
  const planOptions = paidPlans.map(
    (plan) =>
      html`<option value="${plan.id}"${new Html(plan.id === sub.planId ? ' selected' : '')}>${plan.name} — ${priceLabel(plan, sub.interval ?? 'month')}</option>`,
  );
  const intervalOptions = (['month', 'year'] as const).map(
    (interval) =>
      html`<option value="${interval}"${new Html(interval === (sub.interval ?? 'month') ? ' selected' : '')}>every ${interval}</option>`,
  );
  const paid = sub.planId !== 'free' && sub.status !== 'canceled';
  const status = paid
    ? sub.cancelAtPeriodEnd
      ? `Cancelled: active until ${day(sub.currentPeriodEnd)}, then the free plan.`
      : `Renews on ${day(sub.currentPeriodEnd)} for ${formatMoney(sub.amount, sub.currency)}.`
    : 'No paid subscription.';
  const change = paid
    ? html`<h2>Change plan or seats</h2><form method="post" action="${input.action}"><input type="hidden" name="action" value="change">
<label>Plan <select name="planId">${planOptions}</select></label>
<label>Seats <input type="number" name="seats" min="1" value="${sub.seats}"></label>
<label>Billed <select name="interval">${intervalOptions}</select></label>
<p class="muted">The difference for the rest of the period is invoiced now.</p><button type="submit">Change subscription</button></form>`
    : html`<h2>Upgrade</h2><form method="post" action="${input.action}"><input type="hidden" name="action" value="upgrade">
<label>Plan <select name="planId">${planOptions}</select></label>
<label>Seats <input type="number" name="seats" min="1" value="${Math.max(1, sub.seatsUsed)}"></label>
<label>Billed <select name="interval">${intervalOptions}</select></label><button type="submit">Go to checkout</button></form>`;
  const cancel =
    paid && input.canCancel
      ? sub.cancelAtPeriodEnd
        ? html`<h2>Cancellation</h2><form method="post" action="${input.action}"><input type="hidden" name="action" value="resume"><button type="submit">Keep the subscription</button></form>`
        : html`<h2>Cancel</h2><form method="post" action="${input.action}"><input type="hidden" name="action" value="cancel"><p class="muted">The subscription stays active until ${day(sub.currentPeriodEnd)}.</p><button class="danger" type="submit">Cancel at the end of the period</button></form>`
      : '';
  const rows = input.invoices.map(
    (invoice) =>
      html`<tr><td><a href="${invoice.url}">${invoice.number}</a></td><td>${day(invoice.createdAt)}</td><td>${invoice.status}</td><td class="num">${formatMoney(invoice.amountPaid, invoice.currency)}</td></tr>`,
  );
  return page(
    'Billing',
    html`<h1>Billing of ${input.organizationName}</h1>
${input.notice ? html`<p class="notice">${input.notice}</p>` : ''}${input.error ? html`<p class="error">${input.error}</p>` : ''}
<table><tr><th>Plan</th><td>${current.name}</td></tr><tr><th>Seats</th><td>${sub.seatsUsed} of ${sub.seats} in use</td></tr><tr><th>Status</th><td>${status}</td></tr></table>
${change}${cancel}
<h2>Invoices</h2>${rows.length ? html`<table><tr><th>Number</th><th>Date</th><th>Status</th><th class="num">Paid</th></tr>${rows}</table>` : html`<p class="muted">No invoices yet.</p>`}
<p><a href="${input.backUrl}">Back</a></p>`,
  );
}

export function invoicePage(input: {
  invoice: InvoiceView;
  billedTo: { name: string; email: string | null };
}) {
  const { invoice } = input;
  const money = (amount: number) => formatMoney(amount, invoice.currency);
  const lines = invoice.lines.map(
    (line) =>
      html`<tr><td>${line.description}</td><td class="num">${line.quantity}</td><td class="num">${money(line.amount)}</td></tr>`,
  );
  return page(
    `Invoice ${invoice.number}`,
    html`<h1>Invoice ${invoice.number}</h1>
<p>Knowledge Hub<br><span class="muted">Billed to</span> ${input.billedTo.name}${input.billedTo.email ? html`<br>${input.billedTo.email}` : ''}</p>
<p>Issued ${day(invoice.createdAt)} · period ${day(invoice.periodStart)} – ${day(invoice.periodEnd)} · ${invoice.paidAt ? `paid ${day(invoice.paidAt)}` : invoice.status}</p>
<table><tr><th>Description</th><th class="num">Qty</th><th class="num">Amount</th></tr>${lines}
<tr><td colspan="2">Subtotal</td><td class="num">${money(invoice.subtotal)}</td></tr>
${invoice.creditApplied ? html`<tr><td colspan="2">Credit applied</td><td class="num">${money(-invoice.creditApplied)}</td></tr>` : ''}
<tr class="total"><td colspan="2">Amount due</td><td class="num">${money(invoice.amountDue)}</td></tr>
<tr><td colspan="2">Amount paid</td><td class="num">${money(invoice.amountPaid)}</td></tr></table>
<p class="no-print muted">Print this page, or save it as a PDF from the browser's print dialog.</p>`,
  );
}
