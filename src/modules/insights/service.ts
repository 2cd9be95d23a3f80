import type { AppContext } from '../../context.ts';
import { metered } from '../ai/budget.ts';
import { resolveAiScope } from '../ai/scope.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { computeHighlights } from './highlights.ts';
import { computeRecommendations } from './recommendations.ts';
import type { InsightPeriod } from './schemas.ts';
import { computeTrends, periodWindows } from './trends.ts';

const OVERVIEW_ITEMS = 5;

/**
 * Runs one insights computation for the organization the request is about, as every AI operation
 * is paid for: refused (429) before any work when the month's credits cannot pay, charged only
 * once the computation succeeded.
 */
async function charged<T>(
  context: AppContext,
  user: AuthUser,
  requestedOrganizationId: string | undefined,
  compute: (organizationId: string, now: Date) => Promise<T>,
): Promise<T> {
  const { organizationId } = await resolveAiScope(
    context.db,
    user,
    { organizationId: requestedOrganizationId },
    'querystring',
  );
  return metered(context, { organizationId, feature: 'insights' }, () =>
    compute(organizationId, context.clock.now()),
  );
}

type PeriodQuery = { organizationId?: string | undefined; period: InsightPeriod };

export const insightTrends = (context: AppContext, user: AuthUser, query: PeriodQuery) =>
  charged(context, user, query.organizationId, (organizationId, now) =>
    computeTrends(context.db, organizationId, query.period, now),
  );

export const insightRecommendations = (
  context: AppContext,
  user: AuthUser,
  query: { organizationId?: string | undefined; limit: number },
) =>
  charged(context, user, query.organizationId, async (organizationId) => ({
    data: await computeRecommendations(context.db, { organizationId, userId: user.id }, query.limit),
  }));

/** One call's worth of everything: a single insights charge, not one per part. */
export const insightsOverview = (context: AppContext, user: AuthUser, query: PeriodQuery) =>
  charged(context, user, query.organizationId, async (organizationId, now) => {
    const [trends, recommendations, highlights] = await Promise.all([
      computeTrends(context.db, organizationId, query.period, now),
      computeRecommendations(context.db, { organizationId, userId: user.id }, OVERVIEW_ITEMS),
      computeHighlights(context.db, organizationId, periodWindows(query.period, now)),
    ]);
    return {
      period: query.period,
      trends: trends.topics.slice(0, OVERVIEW_ITEMS),
      recommendations,
      highlights,
    };
  });
