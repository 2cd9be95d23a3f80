import { beforeAll, describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import { invoicesOf, pathOf, startCheckout, subscribe, subscriptionOf } from './test-support.ts';

describe('billing routes', () => {
  const ctx = useMailingTestApp({ APP_URL: 'https://hub.example.com' });
  let a: Team;
  beforeAll(async () => {
    a = await team(ctx());
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => ctx().app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  describe('GET /billing/plans', () => {
    it('lists free, pro and business with prices in minor units and their limits', async () => {
      const response = await call('GET', '/billing/plans', a.viewer.headers);
      expect(response.statusCode).toBe(200);
      const plans = response.json();
      expect(plans.map((plan: { id: string }) => plan.id)).toEqual(['free', 'pro', 'business']);
      expect(plans[1]).toEqual({
        id: 'pro',
        name: 'Pro',
        description: expect.any(String),
        prices: { month: 1500, year: 15000 },
        currency: 'usd',
        perSeat: true,
        limits: { seats: 200, videos: 10000, storageGb: 200, aiCreditsPerMonth: 20000 },
        features: expect.any(Array),
      });
      expect(plans[0]).toMatchObject({
        prices: { month: 0, year: 0 },
        limits: { seats: 10, videos: 500, aiCreditsPerMonth: 1000 },
      });
    });

    it('needs credentials', async () => {
      expect((await call('GET', '/billing/plans', {})).statusCode).toBe(401);
    });
  });

  describe('GET /billing/subscription', () => {
    it('shows the free plan and the seats in use (members and pending invitations) to any member', async () => {
      const body = await subscriptionOf(ctx(), a.viewer, a.organizationId);
      expect(body).toEqual({
        organizationId: a.organizationId,
        planId: 'free',
        status: 'active',
        seats: 10,
        seatsUsed: 4,
        interval: null,
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        canceledAt: null,
        amount: 0,
        currency: 'usd',
        limits: expect.objectContaining({ seats: 10 }),
      });
    });

    it("answers for the caller's default organization when none is named", async () => {
      const body = await subscriptionOf(ctx(), a.outsider, a.outsider.organizationId);
      const response = await call('GET', '/billing/subscription', a.outsider.headers);
      expect(response.json()).toEqual(body);
    });

    it('refuses an organization the caller is not in (403) and a malformed id (400)', async () => {
      const foreign = await call(
        'GET',
        `/billing/subscription?organizationId=${a.organizationId}`,
        a.outsider.headers,
      );
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toEqual(errorBody('NOT_A_MEMBER'));
      const malformed = await call('GET', '/billing/subscription?organizationId=nope', a.owner.headers);
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().details).toEqual([
        { path: 'querystring.organizationId', message: expect.any(String) },
      ]);
      expect((await call('GET', '/billing/subscription', {})).statusCode).toBe(401);
    });
  });

  describe('POST /billing/checkout', () => {
    it('validates the plan, seats, interval and URLs, listing every bad field', async () => {
      const response = await startCheckout(ctx(), a.owner, {
        planId: 'gold',
        seats: 0,
        interval: 'week',
        successUrl: 'ftp://x',
      });
      expect(response.statusCode).toBe(400);
      expect(
        response
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['body.interval', 'body.planId', 'body.seats', 'body.successUrl']);
    });

    it('refuses the free plan, and fewer seats than are in use', async () => {
      const free = await startCheckout(ctx(), a.owner, { organizationId: a.organizationId, planId: 'free' });
      expect(free.json()).toEqual(errorBody('PLAN_NOT_PURCHASABLE'));
      const few = await startCheckout(ctx(), a.owner, {
        organizationId: a.organizationId,
        planId: 'pro',
        seats: 2,
      });
      expect(few.statusCode).toBe(400);
      expect(few.json().details).toEqual([
        { path: 'body.seats', message: expect.stringContaining('must cover the 4 seats in use') },
      ]);
    });

    it('is for owners and admins of the organization', async () => {
      for (const user of [a.member, a.viewer]) {
        const response = await startCheckout(ctx(), user, {
          organizationId: a.organizationId,
          planId: 'pro',
        });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      const outsider = await startCheckout(ctx(), a.outsider, {
        organizationId: a.organizationId,
        planId: 'pro',
      });
      expect(outsider.json()).toEqual(errorBody('NOT_A_MEMBER'));
      expect(
        (await ctx().app.inject({ method: 'POST', url: '/billing/checkout', payload: { planId: 'pro' } }))
          .statusCode,
      ).toBe(401);
    });

    it('answers a signed checkout page; the same Idempotency-Key gives the same checkout, another body is refused', async () => {
      const owner = await signUpUser(ctx().app);
      const key = { 'idempotency-key': `checkout-${owner.id}` };
      const first = await startCheckout(ctx(), owner, { planId: 'pro', seats: 3, interval: 'year' }, key);
      expect(first.statusCode).toBe(201);
      expect(first.json()).toEqual({
        sessionId: expect.any(String),
        url: expect.stringMatching(
          /^https:\/\/hub\.example\.com\/billing\/checkout\/[\w-]+\?token=\d+\.[\w-]{43}$/,
        ),
        expiresAt: isoDate,
        amount: 3 * 15000,
        currency: 'usd',
      });
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const replay = await startCheckout(ctx(), owner, { planId: 'pro', seats: 3, interval: 'year' }, key);
      expect(replay.statusCode).toBe(201);
      expect(replay.json()).toEqual(first.json());
      expect(replay.headers['idempotent-replayed']).toBe('true');
      const other = await startCheckout(ctx(), owner, { planId: 'business' }, key);
      expect(other.json()).toEqual(errorBody('IDEMPOTENCY_KEY_REUSED'));
      const badKey = await startCheckout(ctx(), owner, { planId: 'pro' }, { 'idempotency-key': 'has space' });
      expect(badKey.json().details).toEqual([
        { path: 'headers.idempotency-key', message: expect.any(String) },
      ]);

      const page = await ctx().app.inject({ method: 'GET', url: pathOf(first.json().url) });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('Subscribe and pay $450.00');
      const tampered = await ctx().app.inject({
        method: 'GET',
        url: `${pathOf(first.json().url).slice(0, -3)}AAA`,
      });
      expect(tampered.statusCode).toBe(404);
      expect(tampered.body).toContain('This link is invalid or has expired');
      expect(
        (await ctx().app.inject({ method: 'POST', url: pathOf(first.json().url).split('?')[0] as string }))
          .statusCode,
      ).toBe(404);

      // Confirming twice subscribes once.
      for (let i = 0; i < 2; i++) {
        const confirmed = await ctx().app.inject({ method: 'POST', url: pathOf(first.json().url) });
        expect(confirmed.statusCode).toBe(303);
      }
      expect(await subscriptionOf(ctx(), owner)).toMatchObject({
        planId: 'pro',
        seats: 3,
        interval: 'year',
        amount: 45000,
      });
      expect(await invoicesOf(ctx(), owner)).toHaveLength(1);
      const done = await ctx().app.inject({ method: 'GET', url: pathOf(first.json().url) });
      expect(done.body).toContain('You are subscribed');
      const second = await startCheckout(ctx(), owner, { planId: 'business' });
      expect(second.json()).toEqual(errorBody('ALREADY_SUBSCRIBED'));
    });
  });

  it('serialises two checkouts sent at once with one Idempotency-Key: one checkout, the same answer twice', async () => {
    const owner = await signUpUser(ctx().app);
    const key = { 'idempotency-key': `race-${owner.id}` };
    const [one, two] = await Promise.all([
      startCheckout(ctx(), owner, { planId: 'business', seats: 2 }, key),
      startCheckout(ctx(), owner, { planId: 'business', seats: 2 }, key),
    ]);
    expect([one?.statusCode, two?.statusCode]).toEqual([201, 201]);
    expect(one?.json().sessionId).toBe(two?.json().sessionId);
    const sessions = await ctx().database.pool.query(
      'SELECT count(*)::int AS n FROM checkout_sessions WHERE organization_id = $1',
      [owner.organizationId],
    );
    expect(sessions.rows[0].n).toBe(1);
  });

  describe('PATCH and DELETE /billing/subscription', () => {
    it('refuse an organization on the free plan (400), and members below admin or owner (403)', async () => {
      const patch = await call('PATCH', '/billing/subscription', a.admin.headers, {
        organizationId: a.organizationId,
        seats: 5,
      });
      expect(patch.json()).toEqual(errorBody('NO_PAID_SUBSCRIPTION'));
      const cancel = await call(
        'DELETE',
        `/billing/subscription?organizationId=${a.organizationId}`,
        a.owner.headers,
      );
      expect(cancel.json()).toEqual(errorBody('NOTHING_TO_CANCEL'));
      const byMember = await call('PATCH', '/billing/subscription', a.member.headers, {
        organizationId: a.organizationId,
        seats: 5,
      });
      expect(byMember.statusCode).toBe(403);
      const byOutsider = await call(
        'DELETE',
        `/billing/subscription?organizationId=${a.organizationId}`,
        a.outsider.headers,
      );
      expect(byOutsider.json()).toEqual(errorBody('NOT_A_MEMBER'));
    });

    it('change plans with an Idempotency-Key applied once, refuse the free plan and a downgrade below the seats in use', async () => {
      const owner = await signUpUser(ctx().app);
      await subscribe(ctx(), owner, { planId: 'pro', seats: 2 });
      const key = { 'idempotency-key': `upgrade-${owner.id}` };
      const upgrade = () =>
        call(
          'PATCH',
          '/billing/subscription',
          { ...owner.headers, ...key },
          { planId: 'business', seats: 4 },
        );
      const first = await upgrade();
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json()).toMatchObject({ planId: 'business', seats: 4, amount: 12000 });
      const replay = await upgrade();
      expect(replay.json()).toEqual(first.json());
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(await invoicesOf(ctx(), owner)).toHaveLength(2);

      const toFree = await call('PATCH', '/billing/subscription', owner.headers, { planId: 'free' });
      expect(toFree.json()).toEqual(errorBody('PLAN_NOT_PURCHASABLE'));
      const none = await call('PATCH', '/billing/subscription', owner.headers, { seats: 0 });
      expect(none.json().details).toEqual([{ path: 'body.seats', message: expect.any(String) }]);

      // A downgrade mid-period is a credit, kept for the next invoices.
      const down = await call('PATCH', '/billing/subscription', owner.headers, { planId: 'pro', seats: 1 });
      expect(down.statusCode).toBe(200);
      const [credit] = await invoicesOf(ctx(), owner);
      expect(credit?.subtotal).toBeLessThan(0);
      expect(credit).toMatchObject({ amountDue: 0, amountPaid: 0 });
      const up = await call('PATCH', '/billing/subscription', owner.headers, { seats: 2 });
      expect(up.statusCode).toBe(200);
      const [paidFromCredit] = await invoicesOf(ctx(), owner);
      expect(paidFromCredit?.creditApplied).toBeGreaterThan(0);
      expect((paidFromCredit?.amountDue ?? -1) + (paidFromCredit?.creditApplied ?? 0)).toBe(
        paidFromCredit?.subtotal,
      );
    });

    it('withdraw a cancellation (owner only) and keep other organizations untouched', async () => {
      const owner = await signUpUser(ctx().app);
      await subscribe(ctx(), owner, { planId: 'pro', seats: 1 });
      expect((await call('DELETE', '/billing/subscription', owner.headers)).json().cancelAtPeriodEnd).toBe(
        true,
      );
      const resumed = await call('PATCH', '/billing/subscription', owner.headers, {
        cancelAtPeriodEnd: false,
      });
      expect(resumed.json()).toMatchObject({ cancelAtPeriodEnd: false, planId: 'pro' });
      expect((await subscriptionOf(ctx(), a.owner, a.organizationId)).planId).toBe('free');
      const invoices = await call(
        'GET',
        `/billing/invoices?organizationId=${owner.organizationId}`,
        a.owner.headers,
      );
      expect(invoices.statusCode).toBe(403);
    });
  });

  describe('GET /billing/invoices', () => {
    it('lists invoices newest first for any member, paginated, each with a printable page', async () => {
      const empty = await call(
        'GET',
        `/billing/invoices?organizationId=${a.organizationId}`,
        a.viewer.headers,
      );
      expect(empty.json()).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });
      const owner = await signUpUser(ctx().app, { name: 'Ines Invoice' });
      await subscribe(ctx(), owner, { planId: 'pro', seats: 2 });
      const [invoice] = await invoicesOf(ctx(), owner);
      expect(invoice).toMatchObject({
        status: 'paid',
        currency: 'usd',
        amountDue: 3000,
        amountPaid: 3000,
        creditApplied: 0,
      });
      const page = await ctx().app.inject({ method: 'GET', url: pathOf(invoice?.url as string) });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`Invoice ${invoice?.number}`);
      expect(page.body).toContain('Pro plan × 2 seats');
      const forged = await ctx().app.inject({
        method: 'GET',
        url: pathOf(invoice?.url as string).replace(/token=\d+/, 'token=9999999999999'),
      });
      expect(forged.statusCode).toBe(404);
      expect((await call('GET', '/billing/invoices?limit=101', owner.headers)).statusCode).toBe(400);
    });
  });

  describe('the billing portal', () => {
    it('opens for owners and admins, and changes seats, cancels and resumes from its forms', async () => {
      const owner = await signUpUser(ctx().app, { name: 'Pat Portal' });
      for (const user of [a.member, a.viewer]) {
        expect(
          (await call('POST', '/billing/portal', user.headers, { organizationId: a.organizationId }))
            .statusCode,
        ).toBe(403);
      }
      const free = await call('POST', '/billing/portal', owner.headers, {
        returnUrl: 'https://hub.example.com/settings',
      });
      expect(free.statusCode).toBe(201);
      const portal = pathOf(free.json().url);
      const upgrade = await ctx().app.inject({
        method: 'POST',
        url: portal,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'action=upgrade&planId=pro&seats=2&interval=month',
      });
      expect(upgrade.statusCode).toBe(303);
      expect(upgrade.headers.location).toMatch(/^https:\/\/hub\.example\.com\/billing\/checkout\//);
      const confirmed = await ctx().app.inject({
        method: 'POST',
        url: pathOf(upgrade.headers.location as string),
      });
      expect(confirmed.headers.location).toBe(`https://hub.example.com${portal}`);

      const form = (payload: string) =>
        ctx().app.inject({
          method: 'POST',
          url: portal,
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
          payload,
        });
      const changed = await form('action=change&planId=pro&seats=3&interval=month');
      expect(changed.statusCode).toBe(303);
      expect(changed.headers.location).toBe(`${portal}&notice=change`);
      expect((await subscriptionOf(ctx(), owner)).seats).toBe(3);
      const view = await ctx().app.inject({ method: 'GET', url: changed.headers.location as string });
      expect(view.body).toContain('The subscription was changed');
      expect(view.body).toContain('1 of 3 in use');
      expect(view.body.match(/KH[0-9A-Z]{8}-000\d/g)?.length).toBe(2);

      expect((await form('action=cancel')).statusCode).toBe(303);
      expect((await subscriptionOf(ctx(), owner)).cancelAtPeriodEnd).toBe(true);
      expect((await form('action=resume')).statusCode).toBe(303);
      expect((await subscriptionOf(ctx(), owner)).cancelAtPeriodEnd).toBe(false);

      const invalid = await form('action=change&seats=0');
      expect(invalid.statusCode).toBe(400);
      expect(invalid.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(invalid.body).toContain('seats');
      const unknown = await form('action=explode');
      expect(unknown.statusCode).toBe(400);
      const noToken = await ctx().app.inject({ method: 'GET', url: portal.split('?')[0] as string });
      expect(noToken.statusCode).toBe(404);
    });
  });
});
