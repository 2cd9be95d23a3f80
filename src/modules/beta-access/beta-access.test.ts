import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { firstLink, startSmtpServer } from '../../../test/helpers/smtp.ts';
import { betaAccessRequests, mailOutbox, users } from '../../db/schema/index.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ADMIN_EMAIL = 'admin@example.com';

const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

describe('beta access', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let testApp: TestApp;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let ipCounter = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // Configured in a different letter case: admin emails are compared normalised.
    testApp = await buildTestApp({
      env: { SMTP_URL: smtp.url, ADMIN_EMAILS: 'Admin@Example.com, ops@example.com' },
    });
    admin = await signUpUser(testApp.app, { email: ADMIN_EMAIL });
    // As after a password reset or an OAuth sign-in: the admin has proven they own the address.
    await testApp.database.db
      .update(users)
      .set({ emailVerifiedAt: new Date() })
      .where(eq(users.id, admin.id));
    member = await signUpUser(testApp.app);
  });
  afterAll(async () => {
    await testApp?.close();
    await smtp?.close();
  });

  /** Each call comes from its own client IP, so the per-IP limit of POST /beta-access stays out of the way. */
  const requestAccess = (payload: unknown) =>
    testApp.app.inject({
      method: 'POST',
      url: '/beta-access',
      payload: payload as Record<string, unknown>,
      remoteAddress: `10.1.0.${++ipCounter}`,
    });

  const list = (query: string, headers: Record<string, string> = admin.headers) =>
    testApp.app.inject({ method: 'GET', url: `/beta-access${query}`, headers });

  const approve = (id: string, headers: Record<string, string> = admin.headers) =>
    testApp.app.inject({ method: 'POST', url: `/beta-access/${id}/approve`, headers });

  const mailsTo = (email: string) =>
    testApp.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email));

  describe('POST /beta-access', () => {
    it('records a request without authentication and answers 201 with the public receipt', async () => {
      const email = uniqueEmail('ada');
      const response = await requestAccess({
        email: `  ${email.toUpperCase()} `,
        name: ' Ada Lovelace ',
        company: 'Analytical Engines',
        useCase: 'Searching our design reviews',
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        id: expect.stringMatching(UUID),
        email,
        status: 'pending',
        createdAt: expect.stringMatching(ISO),
      });

      const [row] = await testApp.database.db
        .select()
        .from(betaAccessRequests)
        .where(eq(betaAccessRequests.id, body.id));
      expect(row).toMatchObject({
        email,
        name: 'Ada Lovelace',
        company: 'Analytical Engines',
        useCase: 'Searching our design reviews',
        status: 'pending',
        approvedAt: null,
        approvedBy: null,
      });
    });

    it('needs only an email, storing absent and blank optional fields as null', async () => {
      const email = uniqueEmail('minimal');
      const response = await requestAccess({ email, name: '   ', company: '' });
      expect(response.statusCode).toBe(201);
      const [row] = await testApp.database.db
        .select()
        .from(betaAccessRequests)
        .where(eq(betaAccessRequests.email, email));
      expect(row).toMatchObject({ name: null, company: null, useCase: null });
    });

    it('accepts fields at their maximum lengths', async () => {
      const response = await requestAccess({
        email: uniqueEmail('long'),
        name: 'n'.repeat(100),
        company: 'c'.repeat(200),
        useCase: 'u'.repeat(2000),
      });
      expect(response.statusCode).toBe(201);
    });

    it('answers 400 listing every invalid field', async () => {
      const response = await requestAccess({
        email: 'not-an-email',
        name: 'n'.repeat(101),
        company: 'c'.repeat(201),
        useCase: 'u'.repeat(2001),
      });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body).toMatchObject({ success: false, error: 'Invalid request', code: 'VALIDATION_ERROR' });
      expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
        'body.company',
        'body.email',
        'body.name',
        'body.useCase',
      ]);
    });

    it('answers 400 for a missing email or a non-string field', async () => {
      for (const payload of [{}, { name: 'No Email' }, { email: uniqueEmail('typed'), useCase: 42 }]) {
        const response = await requestAccess(payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        const paths = response.json().details.map((detail: { path: string }) => detail.path);
        expect(paths).toEqual('useCase' in payload ? ['body.useCase'] : ['body.email']);
      }
      const count = await testApp.database.db.$count(
        betaAccessRequests,
        eq(betaAccessRequests.name, 'No Email'),
      );
      expect(count).toBe(0);
    });

    it('returns the same record, unchanged, when an email asks again', async () => {
      const email = uniqueEmail('again');
      const first = await requestAccess({ email, name: 'First', company: 'One' });
      const second = await requestAccess({ email: email.toUpperCase(), name: 'Second', useCase: 'other' });
      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(201);
      expect(second.json()).toEqual(first.json());

      const rows = await testApp.database.db
        .select()
        .from(betaAccessRequests)
        .where(eq(betaAccessRequests.email, email));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ name: 'First', company: 'One', useCase: null });
    });
  });

  describe('GET /beta-access', () => {
    it('answers 401 without credentials or with an invalid token', async () => {
      const anonymous = await list('', {});
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({
        success: false,
        error: 'Authentication required',
        code: 'UNAUTHORIZED',
      });
      const invalid = await list('', { authorization: 'Bearer not-a-session' });
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toEqual({ success: false, error: 'Invalid session', code: 'INVALID_SESSION' });
    });

    it('answers 401, not 400, to an anonymous caller with an invalid query', async () => {
      const response = await list('?status=bogus', {});
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    });

    it('answers 403 to a signed-in user who is not a platform administrator', async () => {
      const response = await list('', member.headers);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        success: false,
        error: 'Only platform administrators can do this',
        code: 'NOT_PLATFORM_ADMIN',
      });
    });

    it('answers 403 to an account with an admin address it has not proven it owns', async () => {
      const claimant = await signUpUser(testApp.app, { email: 'ops@example.com' });
      const response = await list('', claimant.headers);
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('NOT_PLATFORM_ADMIN');
    });

    it('lists every request, newest first, with all fields, to an administrator', async () => {
      const older = uniqueEmail('older');
      const newer = uniqueEmail('newer');
      await requestAccess({ email: older, name: 'Older', company: 'Co', useCase: 'Why' });
      await requestAccess({ email: newer });

      const response = await list('?limit=100');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const total = await testApp.database.db.$count(betaAccessRequests);
      expect(body.pagination).toEqual({ page: 1, limit: 100, total, totalPages: 1 });
      expect(body.data).toHaveLength(total);
      expect(body.data[0].email).toBe(newer);
      expect(body.data[1]).toEqual({
        id: expect.stringMatching(UUID),
        email: older,
        name: 'Older',
        company: 'Co',
        useCase: 'Why',
        status: 'pending',
        createdAt: expect.stringMatching(ISO),
        approvedAt: null,
      });
      const createdAts = body.data.map((item: { createdAt: string }) => item.createdAt);
      expect(createdAts).toEqual([...createdAts].sort().reverse());
    });

    it('pages through the requests', async () => {
      const all = (await list('?limit=100')).json().data;
      const page = await list('?page=2&limit=2');
      expect(page.statusCode).toBe(200);
      expect(page.json()).toEqual({
        data: all.slice(2, 4),
        pagination: { page: 2, limit: 2, total: all.length, totalPages: Math.ceil(all.length / 2) },
      });
    });

    it('filters by status', async () => {
      const email = uniqueEmail('filtered');
      const { id } = (await requestAccess({ email })).json();
      expect((await approve(id)).statusCode).toBe(200);

      const approved = (await list('?status=approved&limit=100')).json();
      expect(approved.data.map((item: { id: string }) => item.id)).toContain(id);
      for (const item of approved.data) expect(item.status).toBe('approved');
      expect(approved.pagination.total).toBe(
        await testApp.database.db.$count(betaAccessRequests, eq(betaAccessRequests.status, 'approved')),
      );

      const pending = (await list('?status=pending&limit=100')).json();
      expect(pending.data.map((item: { id: string }) => item.id)).not.toContain(id);
      for (const item of pending.data) expect(item.status).toBe('pending');
      expect(pending.pagination.total + approved.pagination.total).toBe(
        await testApp.database.db.$count(betaAccessRequests),
      );
    });

    it('answers 400 for an unknown status or an out-of-range page', async () => {
      const response = await list('?status=rejected&limit=0&page=0');
      expect(response.statusCode).toBe(400);
      expect(
        response
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['querystring.limit', 'querystring.page', 'querystring.status']);
    });
  });

  describe('POST /beta-access/{id}/approve', () => {
    it('approves the request and mails the requester a sign-up link', async () => {
      const email = uniqueEmail('grace+beta');
      const { id } = (await requestAccess({ email, name: 'Grace Hopper' })).json();

      const response = await approve(id);
      expect(response.statusCode).toBe(200);
      const approved = response.json();
      expect(approved).toEqual({
        id,
        email,
        name: 'Grace Hopper',
        company: null,
        useCase: null,
        status: 'approved',
        createdAt: expect.stringMatching(ISO),
        approvedAt: expect.stringMatching(ISO),
      });

      const mail = await smtp.waitForMail(email);
      expect(mail.subject).toBe('Your Knowledge Hub beta access is approved');
      expect(mail.text).toContain('Hi Grace Hopper,');
      const link = new URL(firstLink(mail));
      expect(`${link.origin}${link.pathname}`).toBe('http://localhost:3000/sign-up');
      expect(link.searchParams.get('email')).toBe(email);

      const [row] = await testApp.database.db
        .select()
        .from(betaAccessRequests)
        .where(eq(betaAccessRequests.id, id));
      expect(row).toMatchObject({ status: 'approved', approvedBy: admin.id });
      expect(row?.approvedAt?.toISOString()).toBe(approved.approvedAt);
    });

    it('is idempotent: a second approval changes nothing and sends no second mail', async () => {
      const email = uniqueEmail('twice');
      const { id } = (await requestAccess({ email })).json();
      const first = await approve(id);
      expect(first.statusCode).toBe(200);
      await smtp.waitForMail(email);

      const second = await approve(id);
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual(first.json());
      expect(await mailsTo(email)).toHaveLength(1);
      await sleep(1500);
      expect(smtp.received.filter((mail) => mail.to.includes(email))).toHaveLength(1);
    });

    it('queues exactly one mail when two approvals race', async () => {
      const email = uniqueEmail('race');
      const { id } = (await requestAccess({ email })).json();
      const answers = await Promise.all([approve(id), approve(id), approve(id)]);
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
      expect(new Set(answers.map((answer) => answer.json().approvedAt)).size).toBe(1);
      expect(await mailsTo(email)).toHaveLength(1);
    });

    it('hands the same record back when an approved email asks again', async () => {
      const email = uniqueEmail('returning');
      const { id } = (await requestAccess({ email })).json();
      await approve(id);
      const again = await requestAccess({ email });
      expect(again.statusCode).toBe(201);
      expect(again.json()).toMatchObject({ id, email, status: 'approved' });
    });

    it('answers 401 without credentials and 403 to a non-administrator, approving nothing', async () => {
      const email = uniqueEmail('guarded');
      const { id } = (await requestAccess({ email })).json();

      const anonymous = await approve(id, {});
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({
        success: false,
        error: 'Authentication required',
        code: 'UNAUTHORIZED',
      });
      expect((await approve('not-a-uuid', {})).statusCode).toBe(401);
      const forbidden = await approve(id, member.headers);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ success: false, code: 'NOT_PLATFORM_ADMIN' });

      const [row] = await testApp.database.db
        .select()
        .from(betaAccessRequests)
        .where(eq(betaAccessRequests.id, id));
      expect(row).toMatchObject({ status: 'pending', approvedAt: null });
      expect(await mailsTo(email)).toHaveLength(0);
    });

    it('answers 404 for an unknown id and for an id that is not a UUID', async () => {
      for (const id of ['0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091', 'not-a-uuid']) {
        const response = await approve(id);
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toMatchObject({
          success: false,
          error: expect.any(String),
          code: 'NOT_FOUND',
        });
      }
    });
  });
});

describe('beta access rate limit', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await buildTestApp();
  });
  afterAll(async () => {
    await testApp?.close();
  });

  const requestAccess = (email: string, remoteAddress: string) =>
    testApp.app.inject({ method: 'POST', url: '/beta-access', payload: { email }, remoteAddress });

  it('allows 20 requests per hour per IP, then answers 429 with retry-after; other IPs are unaffected', async () => {
    const statuses = [];
    for (let i = 0; i < 20; i++)
      statuses.push((await requestAccess(`spam-${i}@example.com`, '10.9.9.9')).statusCode);
    expect(statuses).toEqual(Array(20).fill(201));

    const limited = await requestAccess('spam-20@example.com', '10.9.9.9');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      success: false,
      error: expect.stringContaining('Rate limit exceeded'),
      code: 'RATE_LIMITED',
    });
    expect(limited.headers['ratelimit-limit']).toBe('20');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(
      await testApp.database.db.$count(
        betaAccessRequests,
        eq(betaAccessRequests.email, 'spam-20@example.com'),
      ),
    ).toBe(0);

    // The limit is per IP, not per credential: a bearer token does not buy a fresh budget.
    const withToken = await testApp.app.inject({
      method: 'POST',
      url: '/beta-access',
      payload: { email: 'spam-21@example.com' },
      remoteAddress: '10.9.9.9',
      headers: { authorization: 'Bearer anything' },
    });
    expect(withToken.statusCode).toBe(429);

    const elsewhere = await requestAccess('spam-20@example.com', '10.9.9.10');
    expect(elsewhere.statusCode).toBe(201);
  });
});
