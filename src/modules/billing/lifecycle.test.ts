import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { signUpUser, withApiKey } from '../../../test/helpers/factories.ts';
import { addMember, errorBody, invite, useMailingTestApp } from '../organizations/test-support.ts';
import { endDuePeriods } from './renewals.ts';
import { DAY_MS, invoicesOf, pathOf, subscribe, subscriptionOf } from './test-support.ts';

/**
 * The whole local lifecycle, as issue 14 states it: free → checkout Pro with 5 seats → invoice →
 * a 6th member refused → a seat change with proration → cancel (owner) → the period ends (test
 * clock) → canceled, back on the free plan, its limits applied.
 */
describe('a subscription from checkout to cancellation', () => {
  const ctx = useMailingTestApp({ FREE_PLAN_SEATS: '3', FREE_PLAN_VIDEOS: '2', AI_MONTHLY_CREDITS: '100' });

  const renewals = () => {
    const t = ctx();
    return { config: t.config, db: t.database.db, clock: t.clock, jobs: t.jobs };
  };

  const createVideo = (user: { headers: Record<string, string> }, organizationId: string, title: string) =>
    ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: user.headers,
      payload: { organizationId, title, duration: '1:00' },
    });

  const aiBudgetLimit = async (user: { headers: Record<string, string> }, organizationId: string) => {
    const response = await ctx().app.inject({
      method: 'GET',
      url: `/ai/budget?organizationId=${organizationId}`,
      headers: user.headers,
    });
    return response.json().limit as number;
  };

  it('is charged, limited, prorated, cancelled and ended as promised', async () => {
    const t = ctx();
    const owner = await withApiKey(t, await signUpUser(t.app, { name: 'Olivia Owner' }));
    const org = owner.organizationId;

    // Free: the configured seats, videos and AI credits.
    const free = await subscriptionOf(t, owner);
    expect(free).toMatchObject({ planId: 'free', status: 'active', seats: 3, seatsUsed: 1, interval: null });
    expect(free.limits).toMatchObject({ seats: 3, videos: 2, aiCreditsPerMonth: 100 });
    expect(await aiBudgetLimit(owner, org)).toBe(100);

    // Checkout Pro with 5 seats: the first invoice is issued and paid.
    const checkout = await subscribe(t, owner, { organizationId: org, planId: 'pro', seats: 5 });
    expect(checkout.amount).toBe(5 * 1500);
    const pro = await subscriptionOf(t, owner);
    expect(pro).toMatchObject({
      planId: 'pro',
      status: 'active',
      seats: 5,
      interval: 'month',
      cancelAtPeriodEnd: false,
      amount: 7500,
    });
    const [first] = await invoicesOf(t, owner);
    expect(first).toMatchObject({
      number: expect.stringMatching(/-0001$/),
      amountDue: 7500,
      amountPaid: 7500,
      reason: 'subscription_create',
    });
    expect(first?.lines).toEqual([expect.objectContaining({ quantity: 5, amount: 7500, proration: false })]);
    expect(await aiBudgetLimit(owner, org)).toBe(20_000);

    // Five seats: the owner and four members; a sixth is refused with the limit in the message.
    const admin = await withApiKey(t, await addMember(t, org, owner, 'admin'));
    for (let i = 0; i < 3; i++) await addMember(t, org, owner, 'member');
    const refused = await t.app.inject({
      method: 'POST',
      url: `/organizations/${org}/invitations`,
      headers: owner.headers,
      payload: { email: 'sixth@example.com', role: 'member' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual(
      errorBody('SEAT_LIMIT_REACHED', expect.stringContaining('All 5 seats of the Pro plan are taken')),
    );

    // Ten days later, a sixth seat: the rest of the period is invoiced, prorated to the millisecond.
    t.clock.advance(10 * DAY_MS);
    const changed = await t.app.inject({
      method: 'PATCH',
      url: '/billing/subscription',
      headers: admin.headers,
      payload: { organizationId: org, seats: 6 },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ seats: 6, seatsUsed: 5, amount: 9000 });
    const [proration] = await invoicesOf(t, owner);
    const start = Date.parse(pro.currentPeriodStart);
    const end = Date.parse(pro.currentPeriodEnd);
    const changedAt = Date.parse(
      (proration as { lines: Array<{ periodStart?: string }> }).lines[0]?.periodStart as string,
    );
    const share = (amount: number) => Math.round((amount * (end - changedAt)) / (end - start));
    expect(proration).toMatchObject({
      number: expect.stringMatching(/-0002$/),
      reason: 'subscription_update',
    });
    expect(proration?.lines.map((line) => line.amount)).toEqual([-share(7500), share(9000)]);
    expect(proration?.amountPaid).toBe(share(9000) - share(7500));
    expect(proration?.amountPaid).toBeGreaterThan(0);
    const sixth = await t.app.inject({
      method: 'POST',
      url: `/organizations/${org}/invitations`,
      headers: owner.headers,
      payload: { email: 'sixth@example.com', role: 'member' },
    });
    expect(sixth.statusCode).toBe(201);

    // Cancelling is the owner's alone; the admin is refused and nothing changes.
    const byAdmin = await t.app.inject({
      method: 'DELETE',
      url: `/billing/subscription?organizationId=${org}`,
      headers: admin.headers,
    });
    expect(byAdmin.statusCode).toBe(403);
    expect((await subscriptionOf(t, owner)).cancelAtPeriodEnd).toBe(false);
    const cancelled = await t.app.inject({
      method: 'DELETE',
      url: `/billing/subscription?organizationId=${org}`,
      headers: owner.headers,
    });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({
      planId: 'pro',
      status: 'active',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: pro.currentPeriodEnd,
    });
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/billing/subscription?organizationId=${org}`,
      headers: owner.headers,
    });
    expect(again.json()).toEqual(errorBody('NOTHING_TO_CANCEL'));

    // A last invitation, the day before the period ends; until it ends nothing changes, then the
    // scheduled job ends it.
    t.clock.advance(end - t.clock.now().getTime() - DAY_MS);
    const late = await signUpUser(t.app);
    const lateInvitation = await invite(t, org, owner, late.email, 'member');
    expect(await endDuePeriods(renewals(), t.clock.now())).toEqual({ renewed: 0, canceled: 0 });
    t.clock.advance(DAY_MS + 1000);
    await t.jobs.send('billing-renewals', { now: t.clock.now().toISOString() });
    let ended = await subscriptionOf(t, owner);
    for (let waited = 0; ended.status !== 'canceled' && waited < 15_000; waited += 100) {
      await sleep(100);
      ended = await subscriptionOf(t, owner);
    }
    // Five members and the late invitation (the one to the sixth expired after its 7 days).
    expect(ended).toMatchObject({
      planId: 'free',
      status: 'canceled',
      seats: 3,
      seatsUsed: 6,
      interval: null,
      cancelAtPeriodEnd: false,
    });
    expect(ended.canceledAt).toBe(pro.currentPeriodEnd);
    expect(await invoicesOf(t, owner)).toHaveLength(2);

    // The free plan's limits apply again: no one new joins an organization over its seats, AI
    // credits are the free allowance, and the video limit holds.
    const overSeats = await t.app.inject({
      method: 'POST',
      url: `/organizations/${org}/invitations`,
      headers: owner.headers,
      payload: { email: 'seventh@example.com', role: 'member' },
    });
    expect(overSeats.json()).toEqual(
      errorBody('SEAT_LIMIT_REACHED', expect.stringContaining('All 3 seats of the Free plan')),
    );
    const lateJoin = await t.app.inject({
      method: 'POST',
      url: `/invitations/${lateInvitation.token}/accept`,
      headers: late.headers,
    });
    expect(lateJoin.statusCode).toBe(400);
    expect(lateJoin.json()).toEqual(errorBody('SEAT_LIMIT_REACHED'));
    expect(await aiBudgetLimit(owner, org)).toBe(100);
    expect((await createVideo(owner, org, 'one')).statusCode).toBe(201);
    expect((await createVideo(owner, org, 'two')).statusCode).toBe(201);
    const third = await createVideo(owner, org, 'three');
    expect(third.statusCode).toBe(400);
    expect(third.json()).toEqual(errorBody('VIDEO_LIMIT_REACHED', expect.stringContaining('keeps 2 videos')));

    // The owner heard of each step; the activity log has them too.
    const notifications = await t.app.inject({
      method: 'GET',
      url: '/notifications?limit=100',
      headers: owner.headers,
    });
    const titles = notifications
      .json()
      .data.filter((item: { type: string }) => item.type === 'billing')
      .map((item: { title: string }) => item.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Subscribed to Pro',
        'Subscription changed to Pro with 6 seats',
        expect.stringMatching(/^Subscription ends on /),
        'Subscription ended: the organization is on the free plan',
      ]),
    );
    const activity = await t.app.inject({
      method: 'GET',
      url: `/activity?organizationId=${org}&limit=100`,
      headers: owner.headers,
    });
    const actions = activity.json().data.map((event: { action: string }) => event.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'subscription.created',
        'subscription.updated',
        'subscription.cancellation_scheduled',
        'subscription.canceled',
      ]),
    );
  });

  it('renews at the end of a period with a new invoice, catching up periods a stopped server missed', async () => {
    const t = ctx();
    const owner = await withApiKey(t, await signUpUser(t.app));
    await subscribe(t, owner, { planId: 'business', seats: 2 });
    const before = await subscriptionOf(t, owner);
    t.clock.advance(Date.parse(before.currentPeriodEnd) - t.clock.now().getTime() + 40 * DAY_MS);
    const outcome = await endDuePeriods(renewals(), t.clock.now());
    expect(outcome.renewed).toBeGreaterThanOrEqual(2);
    const after = await subscriptionOf(t, owner);
    expect(after).toMatchObject({ planId: 'business', status: 'active', seats: 2 });
    expect(Date.parse(after.currentPeriodEnd)).toBeGreaterThan(t.clock.now().getTime());
    const invoices = await invoicesOf(t, owner);
    expect(invoices.map((invoice) => invoice.number.slice(-4))).toEqual(['0003', '0002', '0001']);
    expect(invoices[0]).toMatchObject({ reason: 'subscription_cycle', amountPaid: 6000 });
    const page = await t.app.inject({ method: 'GET', url: pathOf(invoices[0]?.url as string) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(invoices[0]?.number);
    expect(page.body).toContain('$60.00');
    t.clock.reset();
  });
});
