import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { aiUsage, memberships, organizations } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { monthlyAiCredits } from '../billing/state.ts';
import { type NotifyContext, notify } from '../notifications/notify.ts';
import { resolveAiScope } from './scope.ts';

export const AI_FEATURES = [
  'qa',
  'chat',
  'summary',
  'meeting_prep',
  'insights',
  'extraction',
  'transcription',
] as const;
export type AiFeature = (typeof AI_FEATURES)[number];

/**
 * Credits per operation, in proportion to the work an operation does: a question or a chat turn
 * (qa, chat) and insights read a few retrieved passages; a summary or an extraction reads a whole
 * transcript; meeting prep reads several videos and writes a briefing. Transcription's is per
 * started minute of the recording (TRANSCRIBE_CREDITS_PER_MINUTE sets it; 0 for a provider the
 * organization runs itself).
 */
export const AI_COSTS: Record<AiFeature, number> = {
  qa: 1,
  chat: 1,
  summary: 2,
  meeting_prep: 3,
  insights: 1,
  extraction: 2,
  transcription: 1,
};

/**
 * What an operation costs here: credits meter paid model calls, so with the `local` provider
 * (offline, extractive) every AI operation is free and not metered at all — unless the operator
 * meters it too (AI_METER_LOCAL), to share a busy server's CPU fairly.
 */
export const creditsFor = (config: Pick<AppContext['config'], 'ai'>, feature: AiFeature) =>
  config.ai.provider === 'local' && !config.ai.meterLocal ? 0 : AI_COSTS[feature];

/** The calendar month (UTC) credits are counted in, and the instant the next one starts. */
export function budgetPeriod(now: Date) {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    period: `${year}-${String(month + 1).padStart(2, '0')}`,
    startsAt: new Date(Date.UTC(year, month, 1)),
    resetsAt: new Date(Date.UTC(year, month + 1, 1)),
  };
}

/** The organization's plan sets its allowance (the free plan's is AI_MONTHLY_CREDITS). */
const monthlyLimit = (db: Db | Tx, context: Pick<AppContext, 'config'>, organizationId: string) =>
  monthlyAiCredits(db, context.config, organizationId);

async function creditsUsed(db: Db | Tx, organizationId: string, period: string) {
  const [row] = await db
    .select({ used: sql<number>`coalesce(sum(${aiUsage.credits}), 0)::int` })
    .from(aiUsage)
    .where(and(eq(aiUsage.organizationId, organizationId), eq(aiUsage.period, period)));
  return row?.used ?? 0;
}

function budgetExceeded(now: Date, resetsAt: Date) {
  const seconds = Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
  return new AppError(429, 'AI_BUDGET_EXCEEDED', 'The organization has used its AI credits for this month', {
    headers: { 'retry-after': String(seconds) },
  });
}

/** What metering needs: the time (which month), the configured allowance, and the mail queue for its warnings. */
export type BudgetContext = Pick<AppContext, 'config'> & NotifyContext;

/** Shares of the monthly limit whose crossing tells the organization's owners and admins. */
const WARNING_THRESHOLDS = [0.8, 1] as const;

type CreditRequest = { organizationId: string; credits: number };

/**
 * Refuses (429) an operation the month's remaining credits cannot pay for. Call it before doing
 * the work, so an organization over its budget costs nothing; chargeCredits re-checks under a lock.
 */
export async function requireCredits(db: Db | Tx, context: BudgetContext, request: CreditRequest) {
  if (request.credits === 0) return;
  const now = context.clock.now();
  const { period, resetsAt } = budgetPeriod(now);
  const used = await creditsUsed(db, request.organizationId, period);
  if (used + request.credits > (await monthlyLimit(db, context, request.organizationId))) {
    throw budgetExceeded(now, resetsAt);
  }
}

/**
 * Charges a successful operation inside the caller's transaction, so a failed operation is never
 * charged. A transaction-scoped advisory lock per (organization, month) serialises concurrent
 * charges: the total is read after the previous charger committed, so the limit can never be
 * overrun. Over the limit it throws the 429, which rolls the caller's work back.
 */
export async function chargeCredits(
  tx: Tx,
  context: BudgetContext,
  charge: CreditRequest & { feature: AiFeature },
) {
  if (charge.credits === 0) return;
  const now = context.clock.now();
  const { period, resetsAt } = budgetPeriod(now);
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtext('ai_usage'), hashtext(${`${charge.organizationId}:${period}`}))`,
  );
  const used = await creditsUsed(tx, charge.organizationId, period);
  const limit = await monthlyLimit(tx, context, charge.organizationId);
  if (used + charge.credits > limit) throw budgetExceeded(now, resetsAt);
  await tx
    .insert(aiUsage)
    .values({
      organizationId: charge.organizationId,
      period,
      feature: charge.feature,
      credits: charge.credits,
      operations: 1,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [aiUsage.organizationId, aiUsage.period, aiUsage.feature],
      set: {
        credits: sql`${aiUsage.credits} + excluded.credits`,
        operations: sql`${aiUsage.operations} + 1`,
        updatedAt: now,
      },
    });
  const crossed = WARNING_THRESHOLDS.filter(
    (share) => used < share * limit && used + charge.credits >= share * limit,
  ).at(-1);
  if (crossed !== undefined) await warnAdmins(tx, context, charge.organizationId, period, crossed);
}

/** Tells the organization's owners and admins that its AI credits are running out (80 %) or gone (100 %). */
async function warnAdmins(
  tx: Tx,
  context: BudgetContext,
  organizationId: string,
  period: string,
  share: number,
) {
  const admins = await tx
    .select({ userId: memberships.userId, organization: organizations.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(
      and(eq(memberships.organizationId, organizationId), inArray(memberships.role, ['owner', 'admin'])),
    );
  const organization = admins[0]?.organization;
  if (organization === undefined) return;
  const percent = Math.round(share * 100);
  await notify(tx, context, {
    type: 'ai_budget',
    recipientIds: admins.map((admin) => admin.userId),
    organizationId,
    actorId: null,
    title:
      share >= 1
        ? `${organization} has used all of its AI credits for ${period}`
        : `${organization} has used ${percent} % of its AI credits for ${period}`,
    body:
      share >= 1
        ? 'AI features answer 429 AI_BUDGET_EXCEEDED until the month ends. GET /ai/budget shows usage by feature.'
        : 'AI features stop when the credits run out. GET /ai/budget shows usage by feature.',
    targetType: 'organization',
    targetId: organizationId,
    data: { organizationId, period, percentUsed: percent },
  });
}

/**
 * Pays for an AI operation that keeps nothing of its own (a summary, an insight): refused (429)
 * before any work when the month's credits cannot pay for it, charged in a transaction of its own
 * once the work succeeded — a failure costs nothing.
 */
export async function metered<T>(
  context: AppContext,
  request: { organizationId: string; feature: AiFeature },
  work: () => Promise<T>,
): Promise<T> {
  const charge = { ...request, credits: creditsFor(context.config, request.feature) };
  await requireCredits(context.db, context, charge);
  const result = await work();
  await context.db.transaction((tx) => chargeCredits(tx, context, charge));
  return result;
}

export type AiBudgetView = {
  organizationId: string;
  period: { month: string; start: Date; end: Date };
  limit: number;
  used: number;
  remaining: number;
  percentUsed: number;
  byFeature: Array<{ feature: AiFeature; credits: number; operations: number }>;
};

/**
 * The month's usage of an organization the caller belongs to: the one named, else the caller's
 * default. Naming another is a 403, as on every AI route.
 */
export async function aiBudget(
  context: AppContext,
  caller: AuthUser,
  requestedOrganizationId: string | undefined,
): Promise<AiBudgetView> {
  // The organization as every AI route resolves it: a non-member naming it gets the 403 of QA.
  const { organizationId } = await resolveAiScope(
    context.db,
    caller,
    { organizationId: requestedOrganizationId },
    'querystring',
  );
  const { period, startsAt, resetsAt } = budgetPeriod(context.clock.now());
  const rows = await context.db
    .select({ feature: aiUsage.feature, credits: aiUsage.credits, operations: aiUsage.operations })
    .from(aiUsage)
    .where(and(eq(aiUsage.organizationId, organizationId), eq(aiUsage.period, period)));
  const byFeature = AI_FEATURES.map((feature) => {
    const row = rows.find((candidate) => candidate.feature === feature);
    return { feature, credits: row?.credits ?? 0, operations: row?.operations ?? 0 };
  });
  const limit = await monthlyLimit(context.db, context, organizationId);
  const used = rows.reduce((total, row) => total + row.credits, 0);
  // The limit can be lowered below what a month already used: remaining never goes negative.
  return {
    organizationId,
    period: { month: period, start: startsAt, end: resetsAt },
    limit,
    used,
    remaining: Math.max(0, limit - used),
    percentUsed: limit > 0 ? Math.round((used / limit) * 1000) / 10 : 100,
    byFeature,
  };
}
