import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import {
  STANDIN_WEBHOOK_SECRET,
  type StripeStandin,
  standinEnv,
  startStripeStandin,
} from '../../../test/helpers/stripe-standin.ts';
import { errorBody } from '../organizations/test-support.ts';
import { endDuePeriods } from './renewals.ts';
import { invoicesOf, startCheckout, subscriptionOf } from './test-support.ts';

/**
 * The Stripe provider, end to end with the real `stripe` SDK against a stand-in that speaks
 * Stripe's wire protocol on loopback, and events delivered over HTTP with Stripe's signatures.
 */
describe('billing with Stripe', () => {
  let standin: StripeStandin;
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    standin = await startStripeStandin();
    t = await buildTestApp({ env: standinEnv(standin.apiUrl) });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await standin?.close();
  });

  const deliver = (delivery: { body: string; headers: Record<string, string> }) =>
    fetch(`${baseUrl}/billing/webhook`, { method: 'POST', headers: delivery.headers, body: delivery.body });

  const billingTitles = async (user: SignedUpUser) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/notifications?limit=100',
      headers: user.headers,
    });
    return response
      .json()
      .data.filter((item: { type: string }) => item.type === 'billing')
      .map((item: { title: string }) => item.title) as string[];
  };

  /** A checkout through the API, paid at the stand-in, its events delivered in the order given. */
  async function subscribeThroughStripe(
    owner: SignedUpUser,
    payload: Record<string, unknown>,
    order = [0, 1, 2],
  ) {
    const started = await startCheckout(t, owner, payload);
    expect(started.statusCode, started.body).toBe(201);
    const { subscription, events } = standin.payCheckout(started.json().sessionId);
    for (const index of order) {
      const response = await deliver(standin.signed(events[index] as Record<string, unknown>));
      expect(response.status).toBe(200);
    }
    return { subscription, events, checkout: started.json() };
  }

  it('opens a Stripe Checkout Session for the plan and seats, with idempotency keys on every write', async () => {
    const owner = await signUpUser(t.app);
    const key = { 'idempotency-key': `stripe-checkout-${owner.id}` };
    const first = await startCheckout(t, owner, { planId: 'pro', seats: 4 }, key);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({
      sessionId: expect.stringMatching(/^cs_test_/),
      url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/),
      amount: 6000,
      currency: 'usd',
    });
    const replay = await startCheckout(t, owner, { planId: 'pro', seats: 4 }, key);
    expect(replay.json()).toEqual(first.json());
    const writes = standin.requests.filter((request) => request.method === 'POST');
    expect(writes.every((request) => request.idempotencyKey)).toBe(true);
    const created = writes.filter((request) => request.path === '/v1/checkout/sessions');
    expect(created.at(-1)?.params).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: 'price_pro_month', quantity: '4' }],
      metadata: { organizationId: owner.organizationId },
    });
    expect(
      created.filter((request) => request.params.customer === created.at(-1)?.params.customer),
    ).toHaveLength(1);
  });

  it('applies the webhook events of a paid checkout in any order, and a redelivery once', async () => {
    const owner = await signUpUser(t.app);
    // The invoice and the subscription arrive before the checkout: the state is right all the same.
    const { subscription, events } = await subscribeThroughStripe(
      owner,
      { planId: 'business', seats: 3, interval: 'year' },
      [2, 1, 0],
    );
    expect(await subscriptionOf(t, owner)).toMatchObject({
      planId: 'business',
      status: 'active',
      seats: 3,
      interval: 'year',
      amount: 90000,
    });
    const replay = await deliver(standin.signed(events[0] as Record<string, unknown>));
    expect(await replay.json()).toEqual({ received: true, duplicate: true });
    const titles = await billingTitles(owner);
    expect(titles.filter((title) => title === 'Subscribed to Business')).toHaveLength(1);
    expect(titles).toContain('Payment of $900.00 received');
    expect(standin.subscriptions.get(subscription.id)?.metadata).toEqual({
      organizationId: owner.organizationId,
    });
  });

  it('refuses a delivery whose signature is wrong, stale or of another body, changing nothing', async () => {
    const owner = await signUpUser(t.app);
    const started = await startCheckout(t, owner, { planId: 'pro', seats: 1 });
    const { events } = standin.payCheckout(started.json().sessionId);
    const event = events[0] as Record<string, unknown>;
    const wrongSecret = await deliver(standin.signed(event, { secret: 'whsec_other' }));
    expect(wrongSecret.status).toBe(400);
    expect(await wrongSecret.json()).toEqual(errorBody('INVALID_SIGNATURE'));
    const stale = await deliver(standin.signed(event, { timestamp: Math.floor(Date.now() / 1000) - 600 }));
    expect(stale.status).toBe(400);
    const genuine = standin.signed(event);
    const tampered = await deliver({ ...genuine, body: genuine.body.replace('"complete"', '"open"') });
    expect(tampered.status).toBe(400);
    const unsigned = await fetch(`${baseUrl}/billing/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: genuine.body,
    });
    expect(unsigned.status).toBe(400);
    expect((await subscriptionOf(t, owner)).planId).toBe('free');
    expect(STANDIN_WEBHOOK_SECRET).toBe(t.config.billing.stripe?.webhookSecret);
  });

  it('changes seats with Stripe proration, lists Stripe invoices, cancels at period end and ends on Stripe’s word', async () => {
    const owner = await signUpUser(t.app);
    const { subscription } = await subscribeThroughStripe(owner, { planId: 'pro', seats: 2 });
    const key = { 'idempotency-key': `stripe-seats-${owner.id}` };
    const patch = () =>
      t.app.inject({
        method: 'PATCH',
        url: '/billing/subscription',
        headers: { ...owner.headers, ...key },
        payload: { seats: 5 },
      });
    const changed = await patch();
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ planId: 'pro', seats: 5, amount: 7500 });
    expect((await patch()).headers['idempotent-replayed']).toBe('true');
    const updates = standin.requests.filter(
      (request) => request.path === `/v1/subscriptions/${subscription.id}` && request.method === 'POST',
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]?.params).toMatchObject({
      proration_behavior: 'always_invoice',
      items: [{ price: 'price_pro_month', quantity: '5' }],
    });

    const invoices = await invoicesOf(t, owner);
    expect(invoices.map((invoice) => invoice.reason)).toEqual(['subscription_update', 'subscription_create']);
    expect(invoices[0]?.lines.map((line) => line.proration)).toEqual([true, true]);
    expect(invoices[0]?.url).toMatch(/^https:\/\/invoice\.stripe\.test\//);

    const portal = await t.app.inject({
      method: 'POST',
      url: '/billing/portal',
      headers: owner.headers,
      payload: {},
    });
    expect(portal.statusCode).toBe(201);
    expect(portal.json()).toEqual({
      url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\//),
      expiresAt: null,
    });

    const cancelled = await t.app.inject({
      method: 'DELETE',
      url: '/billing/subscription',
      headers: owner.headers,
    });
    expect(cancelled.json()).toMatchObject({ cancelAtPeriodEnd: true, planId: 'pro' });
    expect(standin.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(true);
    expect((await deliver(standin.signed(standin.endSubscription(subscription.id)))).status).toBe(200);
    expect(await subscriptionOf(t, owner)).toMatchObject({ planId: 'free', status: 'canceled' });
    expect(await billingTitles(owner)).toContain('Subscription ended: the organization is on the free plan');
  });

  it('goes past due when a renewal payment fails, and tells the owners', async () => {
    const owner = await signUpUser(t.app);
    const { subscription } = await subscribeThroughStripe(owner, { planId: 'pro', seats: 1 });
    for (const event of standin.failRenewal(subscription.id)) {
      expect((await deliver(standin.signed(event))).status).toBe(200);
    }
    expect((await subscriptionOf(t, owner)).status).toBe('past_due');
    expect(await billingTitles(owner)).toContain('Payment of $15.00 failed');
  });

  it('leaves renewals to Stripe, and an ended subscription’s news does not overwrite the live one', async () => {
    const owner = await signUpUser(t.app);
    const first = await subscribeThroughStripe(owner, { planId: 'pro', seats: 1 });
    const ended = standin.endSubscription(first.subscription.id);
    expect((await deliver(standin.signed(ended))).status).toBe(200);
    const second = await subscribeThroughStripe(owner, { planId: 'business', seats: 2 });
    // Stripe retries the first subscription's end (another event id): the live one stays.
    const retried = standin.event(
      'customer.subscription.deleted',
      standin.subscriptions.get(first.subscription.id) as Record<string, unknown>,
    );
    expect((await deliver(standin.signed(retried))).status).toBe(200);
    expect(await subscriptionOf(t, owner)).toMatchObject({ planId: 'business', status: 'active', seats: 2 });
    // The local renewal job finds nothing of Stripe's to renew, even a year on.
    const yearOn = new Date(Date.now() + 400 * 24 * 3600 * 1000);
    const outcome = await endDuePeriods(
      { config: t.config, db: t.database.db, clock: t.clock, jobs: t.jobs },
      yearOn,
    );
    expect(outcome).toEqual({ renewed: 0, canceled: 0 });
    expect(second.subscription.id).not.toBe(first.subscription.id);
  });

  it('answers 503 when Stripe fails, and changes nothing', async () => {
    const owner = await signUpUser(t.app);
    await subscribeThroughStripe(owner, { planId: 'pro', seats: 1 });
    standin.failNext(10);
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/billing/subscription',
      headers: owner.headers,
      payload: { seats: 2 },
    });
    standin.failNext(0);
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual(errorBody('PAYMENT_PROVIDER_UNAVAILABLE'));
    expect(response.headers['retry-after']).toBe('5');
    expect((await subscriptionOf(t, owner)).seats).toBe(1);
  });
});
