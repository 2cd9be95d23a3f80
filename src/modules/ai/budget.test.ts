import { and, eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import type { AppContext } from '../../context.ts';
import { aiUsage, memberships, users } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type Team, team, unknownId } from '../transcripts/test-support.ts';
import {
  AI_COSTS,
  AI_FEATURES,
  type AiFeature,
  budgetPeriod,
  chargeCredits,
  requireCredits,
} from './budget.ts';

const LIMIT = 5;
const zeros = AI_FEATURES.map((feature) => ({ feature, credits: 0, operations: 0 }));
const exceeded = {
  success: false,
  error: 'The organization has used its AI credits for this month',
  code: 'AI_BUDGET_EXCEEDED',
};

describe('AI credit budget', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: String(LIMIT) } });
  const context = (): AppContext => ({
    config: ctx().config,
    db: ctx().database.db,
    jobs: ctx().jobs,
    clock: ctx().clock,
    logger: ctx().app.log,
  });
  let t: Team;
  let outsider: SignedUpUser;

  beforeAll(async () => {
    // A stand-in AI operation, registered before the app is ready, that uses the budget as real
    // features do: check first, work, charge in the work's transaction only when it succeeded.
    ctx().app.post(
      '/test/ai-operation',
      {
        schema: {
          body: z.object({ organizationId: z.string(), feature: z.enum(AI_FEATURES), fail: z.boolean() }),
        },
      },
      async (request) => {
        const { organizationId, feature, fail } = request.body;
        const credits = AI_COSTS[feature];
        await requireCredits(context().db, context(), { organizationId, credits });
        await context().db.transaction(async (tx) => {
          if (fail) throw errors.badRequest('The engine could not answer', 'ENGINE_FAILED');
          await chargeCredits(tx, context(), { organizationId, feature, credits });
        });
        return { ok: true };
      },
    );
    t = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
  });

  afterEach(() => ctx().clock.reset());

  const getBudget = (user: SignedUpUser | null, query = '') =>
    ctx().app.inject({ method: 'GET', url: `/ai/budget${query}`, headers: user ? user.headers : {} });

  const operate = (organizationId: string, feature: AiFeature, fail = false) =>
    ctx().app.inject({
      method: 'POST',
      url: '/test/ai-operation',
      payload: { organizationId, feature, fail },
    });

  const charge = (organizationId: string, feature: AiFeature, credits = AI_COSTS[feature]) =>
    context().db.transaction((tx) => chargeCredits(tx, context(), { organizationId, feature, credits }));

  const usageRows = (organizationId: string) =>
    ctx()
      .database.db.select({
        period: aiUsage.period,
        feature: aiUsage.feature,
        credits: aiUsage.credits,
        operations: aiUsage.operations,
      })
      .from(aiUsage)
      .where(eq(aiUsage.organizationId, organizationId))
      .orderBy(aiUsage.period, aiUsage.feature);

  const emptyBudget = (organizationId: string) => {
    const { period, startsAt, resetsAt } = budgetPeriod(ctx().clock.now());
    return {
      organizationId,
      period: { month: period, start: startsAt.toISOString(), end: resetsAt.toISOString() },
      limit: LIMIT,
      used: 0,
      remaining: LIMIT,
      percentUsed: 0,
      byFeature: zeros,
    };
  };

  it('costs credits in proportion to the work of each feature', () => {
    expect(AI_COSTS).toStrictEqual({
      qa: 1,
      chat: 1,
      summary: 2,
      meeting_prep: 3,
      insights: 1,
      extraction: 2,
      transcription: 1,
    });
  });

  it("starts at zero, for the caller's default organization when none is named", async () => {
    const user = await signUpUser(ctx().app);
    const response = await getBudget(user);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toStrictEqual(emptyBudget(user.organizationId));
    expect(response.json().period.month).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
    expect(await usageRows(user.organizationId)).toStrictEqual([]);
  });

  it('answers any member of a named organization, viewers included', async () => {
    const response = await getBudget(t.viewer, `?organizationId=${t.organizationId.toUpperCase()}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toStrictEqual(emptyBudget(t.organizationId));
  });

  it('accumulates charges per feature and shows them, only in their organization', async () => {
    const user = await signUpUser(ctx().app);
    await charge(user.organizationId, 'qa');
    await charge(user.organizationId, 'qa');
    await charge(user.organizationId, 'summary');
    const { period } = budgetPeriod(ctx().clock.now());
    expect(await usageRows(user.organizationId)).toStrictEqual([
      { period, feature: 'qa', credits: 2, operations: 2 },
      { period, feature: 'summary', credits: 2, operations: 1 },
    ]);

    const response = await getBudget(user, `?organizationId=${user.organizationId}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({
      ...emptyBudget(user.organizationId),
      used: 4,
      remaining: 1,
      percentUsed: 80,
      byFeature: zeros.map((row) =>
        row.feature === 'qa'
          ? { feature: 'qa', credits: 2, operations: 2 }
          : row.feature === 'summary'
            ? { feature: 'summary', credits: 2, operations: 1 }
            : row,
      ),
    });

    const other = await getBudget(outsider);
    expect(other.json()).toStrictEqual(emptyBudget(outsider.organizationId));
  });

  it('refuses an operation over the budget with 429 and Retry-After until the next month, charging nothing', async () => {
    const user = await signUpUser(ctx().app);
    await charge(user.organizationId, 'meeting_prep');
    expect((await operate(user.organizationId, 'summary')).statusCode).toBe(200);

    const now = ctx().clock.now();
    const refused = await operate(user.organizationId, 'qa');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toStrictEqual(exceeded);
    const retryAfter = refused.headers['retry-after'];
    expect(retryAfter).toMatch(/^\d+$/);
    const secondsToNextMonth = (budgetPeriod(now).resetsAt.getTime() - now.getTime()) / 1000;
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(Math.ceil(secondsToNextMonth));
    expect(Number(retryAfter)).toBeGreaterThan(secondsToNextMonth - 60);

    const budget = await getBudget(user);
    expect(budget.json()).toMatchObject({ used: 5, remaining: 0 });
    expect((await usageRows(user.organizationId)).map((row) => [row.feature, row.credits])).toStrictEqual([
      ['meeting_prep', 3],
      ['summary', 2],
    ]);
  });

  it('refuses an operation that costs more than what is left, even when some is left', async () => {
    const user = await signUpUser(ctx().app);
    await charge(user.organizationId, 'meeting_prep');
    await charge(user.organizationId, 'qa');
    const refused = await operate(user.organizationId, 'summary');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toStrictEqual(exceeded);
    expect((await operate(user.organizationId, 'chat')).statusCode).toBe(200);
    expect((await getBudget(user)).json()).toMatchObject({ used: 5, remaining: 0 });
  });

  it('never charges a failed operation', async () => {
    const user = await signUpUser(ctx().app);
    const failed = await operate(user.organizationId, 'extraction', true);
    expect(failed.statusCode).toBe(400);
    expect(failed.json().code).toBe('ENGINE_FAILED');
    expect(await usageRows(user.organizationId)).toStrictEqual([]);
  });

  it("rolls back the caller's transaction when a charge goes over the limit", async () => {
    const user = await signUpUser(ctx().app);
    const attempt = context().db.transaction(async (tx) => {
      await chargeCredits(tx, context(), { organizationId: user.organizationId, feature: 'qa', credits: 1 });
      await chargeCredits(tx, context(), {
        organizationId: user.organizationId,
        feature: 'chat',
        credits: 5,
      });
    });
    await expect(attempt).rejects.toMatchObject({ statusCode: 429, code: 'AI_BUDGET_EXCEEDED' });
    expect(await usageRows(user.organizationId)).toStrictEqual([]);
  });

  it('lets exactly the affordable share of concurrent charges through', async () => {
    const user = await signUpUser(ctx().app);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => charge(user.organizationId, 'qa')),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    const rejected = results.filter((result) => result.status === 'rejected');
    expect(rejected).toHaveLength(5);
    for (const result of rejected) {
      expect(result.reason).toMatchObject({
        statusCode: 429,
        code: 'AI_BUDGET_EXCEEDED',
        headers: { 'retry-after': expect.stringMatching(/^\d+$/) },
      });
    }
    const { period } = budgetPeriod(ctx().clock.now());
    expect(await usageRows(user.organizationId)).toStrictEqual([
      { period, feature: 'qa', credits: 5, operations: 5 },
    ]);
  });

  it('starts a new month from zero and keeps the past month', async () => {
    const user = await signUpUser(ctx().app);
    await charge(user.organizationId, 'insights', 5);
    expect((await operate(user.organizationId, 'qa')).statusCode).toBe(429);
    const previous = budgetPeriod(ctx().clock.now());

    ctx().clock.advance(previous.resetsAt.getTime() - ctx().clock.now().getTime() + 60_000);
    const next = budgetPeriod(ctx().clock.now());
    expect(next.period).not.toBe(previous.period);
    // Sessions last a week: read as a member who signs in after the clock moved.
    const reader = await signUpUser(ctx().app);
    await ctx()
      .database.db.insert(memberships)
      .values({ organizationId: user.organizationId, userId: reader.id, role: 'viewer' });
    const response = await getBudget(reader, `?organizationId=${user.organizationId}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toStrictEqual(emptyBudget(user.organizationId));
    expect(response.json().period.end).toBe(next.resetsAt.toISOString());

    expect((await operate(user.organizationId, 'qa')).statusCode).toBe(200);
    expect(await usageRows(user.organizationId)).toStrictEqual([
      { period: previous.period, feature: 'insights', credits: 5, operations: 1 },
      { period: next.period, feature: 'qa', credits: 1, operations: 1 },
    ]);
  });

  it('tells owners and admins once when 80 % and when all of the credits are used', async () => {
    const titles = async (user: SignedUpUser) => {
      const response = await ctx().app.inject({
        method: 'GET',
        url: '/notifications?type=ai_budget',
        headers: user.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data.map((notification: { title: string }) => notification.title);
    };
    const { period } = budgetPeriod(ctx().clock.now());
    for (let charged = 1; charged <= 3; charged++) await charge(t.organizationId, 'qa');
    expect(await titles(t.owner)).toEqual([]);
    await charge(t.organizationId, 'qa');
    expect(await titles(t.owner)).toEqual([expect.stringMatching(/has used 80 % of its AI credits/)]);
    await charge(t.organizationId, 'qa');
    for (const admin of [t.owner, t.admin]) {
      const received = await titles(admin);
      expect(received).toHaveLength(2);
      expect(received[0]).toMatch(new RegExp(`has used all of its AI credits for ${period}$`));
      expect(received[1]).toMatch(/has used 80 % of its AI credits/);
    }
    expect(await titles(t.member)).toEqual([]);
    expect(await titles(t.viewer)).toEqual([]);
  });

  it('answers 401 without credentials or with invalid ones', async () => {
    const anonymous = await getBudget(null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toStrictEqual({
      success: false,
      error: 'Authentication required',
      code: 'UNAUTHORIZED',
    });
    const invalid = await ctx().app.inject({
      method: 'GET',
      url: '/ai/budget',
      headers: { authorization: 'Bearer not-a-session' },
    });
    expect(invalid.statusCode).toBe(401);
  });

  it("answers 400 for an organization the caller does not belong to, or one that doesn't exist", async () => {
    const owner = await signUpUser(ctx().app);
    await charge(owner.organizationId, 'qa');
    for (const organizationId of [owner.organizationId, unknownId]) {
      const response = await getBudget(outsider, `?organizationId=${organizationId}`);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toStrictEqual({
        success: false,
        error: 'You are not a member of this organization',
        code: 'NOT_A_MEMBER',
      });
    }
  });

  it('answers 400 to a caller without a default organization who names none', async () => {
    const user = await signUpUser(ctx().app);
    await ctx().database.db.update(users).set({ defaultOrganizationId: null }).where(eq(users.id, user.id));
    const response = await getBudget(user);
    expect(response.statusCode).toBe(400);
    expect(response.json().details[0].path).toBe('querystring.organizationId');
    // Still a member: naming the organization works.
    expect((await getBudget(user, `?organizationId=${user.organizationId}`)).statusCode).toBe(200);
  });

  it('answers 400 for an organizationId that is not a UUID', async () => {
    const response = await getBudget(t.owner, '?organizationId=nope');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toStrictEqual({
      success: false,
      error: 'Invalid request',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'querystring.organizationId', message: 'must be a UUID' }],
    });
  });

  it("keeps one organization's charges out of another's rows", async () => {
    const first = await signUpUser(ctx().app);
    const second = await signUpUser(ctx().app);
    await charge(first.organizationId, 'chat');
    expect(await usageRows(second.organizationId)).toStrictEqual([]);
    const rows = await ctx()
      .database.db.select()
      .from(aiUsage)
      .where(and(eq(aiUsage.organizationId, first.organizationId), eq(aiUsage.feature, 'chat')));
    expect(rows).toHaveLength(1);
    expect((await getBudget(second)).json()).toStrictEqual(emptyBudget(second.organizationId));
  });
});
