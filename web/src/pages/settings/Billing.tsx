import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, InlineSelect } from '../../components/Form.tsx';
import { QueryView } from '../../components/States.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { useCurrent } from '../../lib/session.tsx';
import { formatDate } from '../../lib/time.ts';

/** Amounts travel in the currency's smallest unit (cents). */
const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(
    amount / 100,
  );

type Interval = 'month' | 'year';

function Plans({ subscription }: { subscription: Schemas['Subscription'] }) {
  const { organization } = useCurrent();
  const [interval, setInterval] = useState<Interval>('month');
  const plans = useQuery({
    queryKey: ['plans'],
    queryFn: async () => expectData(await api.GET('/billing/plans')),
  });
  const checkout = useMutation({
    mutationFn: async (planId: Schemas['Plan']['id']) =>
      expectData(
        await api.POST('/billing/checkout', {
          params: { header: { 'idempotency-key': crypto.randomUUID() } },
          body: {
            organizationId: organization.id,
            planId,
            interval,
            successUrl: `${location.origin}/settings/billing`,
            cancelUrl: `${location.origin}/settings/billing`,
          },
        }),
      ),
    // The checkout page (the local provider's or Stripe's) takes the payment, then returns here.
    onSuccess: (session) => location.assign(session.url),
  });
  const manage = organization.role === 'owner' || organization.role === 'admin';
  return (
    <section className="panel" aria-labelledby="plans-heading">
      <div className="panel-header">
        <h2 id="plans-heading">Plans</h2>
        <InlineSelect label="Billed" value={interval} onChange={(value) => setInterval(value as Interval)}>
          <option value="month">monthly</option>
          <option value="year">yearly</option>
        </InlineSelect>
      </div>
      <FormError error={checkout.error} />
      <QueryView query={plans}>
        {(data) => (
          <ul className="cards">
            {data.map((plan) => (
              <li key={plan.id} className="card">
                <p className="card-title">{plan.name}</p>
                <p>
                  {money(plan.prices[interval], plan.currency)} / {interval}
                  {plan.perSeat ? ' per seat' : ''}
                </p>
                <ul className="muted">
                  {plan.features.map((feature) => (
                    <li key={feature}>{feature}</li>
                  ))}
                </ul>
                {subscription.planId === plan.id ? (
                  <strong>Current plan</strong>
                ) : (
                  manage &&
                  plan.id !== 'free' && (
                    <button
                      type="button"
                      onClick={() => checkout.mutate(plan.id)}
                      disabled={checkout.isPending}
                    >
                      Choose {plan.name}
                    </button>
                  )
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

/** The organization's plan, seats, invoices, and the way to change them. */
export function Billing() {
  const { organization } = useCurrent();
  const organizationId = organization.id;
  const subscription = useQuery({
    queryKey: ['subscription', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/billing/subscription', { params: { query: { organizationId } } })),
  });
  const invoices = useQuery({
    queryKey: ['invoices', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/billing/invoices', { params: { query: { organizationId, limit: 20 } } }))
        .data,
  });
  const portal = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/billing/portal', {
          body: { organizationId, returnUrl: `${location.origin}/settings/billing` },
        }),
      ),
    onSuccess: (session) => location.assign(session.url),
  });
  const manage = organization.role === 'owner' || organization.role === 'admin';
  return (
    <QueryView query={subscription}>
      {(current) => (
        <>
          <section className="panel" aria-labelledby="subscription-heading">
            <div className="panel-header">
              <h2 id="subscription-heading">Subscription</h2>
              {manage && current.planId !== 'free' && (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => portal.mutate()}
                  disabled={portal.isPending}
                >
                  Manage billing
                </button>
              )}
            </div>
            <FormError error={portal.error} />
            <p>
              <strong>{current.planId}</strong> · {current.status} · {current.seatsUsed} of {current.seats}{' '}
              seats used
              {current.currentPeriodEnd &&
                ` · ${current.cancelAtPeriodEnd ? 'ends' : 'renews'} ${formatDate(current.currentPeriodEnd)}`}
            </p>
          </section>
          <Plans subscription={current} />
          <section className="panel" aria-labelledby="invoices-heading">
            <h2 id="invoices-heading">Invoices</h2>
            <QueryView query={invoices} isEmpty={(data) => data.length === 0} empty="No invoices yet.">
              {(data) => (
                <ul>
                  {data.map((invoice) => (
                    <li key={invoice.id}>
                      <a href={invoice.url}>{invoice.number}</a> {money(invoice.amountDue, invoice.currency)}{' '}
                      <span className="muted">
                        {invoice.status} · {formatDate(invoice.createdAt)}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </QueryView>
          </section>
        </>
      )}
    </QueryView>
  );
}
