import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { listConflicts } from './conflicts.ts';
import { listGaps } from './gaps.ts';
import { conflictsQuery, conflictsSchema, gapsPage, gapsQuery } from './gaps-schemas.ts';

const tags = ['AI'];
const organizationRule =
  'Any member may read them; default: your default organization, one you do not belong to is a 403. ' +
  'Deleted videos never contribute. Reads knowledge already extracted (and paid for): costs no credits.';

/** What the organization's knowledge lacks, and where it contradicts itself. */
export const aiGapsRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/ai/gaps',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Knowledge gaps: unanswered and open questions, unowned and stale decisions, thin topics (no credits)',
        description:
          'Five signals over the last `days` (default 90): `unanswered_question` (asked through QA or chat, ' +
          'not answered or with confidence < 0.35, grouped by stemmed words), `open_question` (raised in ' +
          'meetings and answered neither there nor in a later meeting), `decision_without_owner` (no action ' +
          'item with an owner about it in its meeting), `stale_decision` (made 90 to 90 + `days` days ago, ' +
          'never discussed since), `undocumented_topic` (in 3+ meetings but central to none and never decided ' +
          'on, or asked about twice while at most one meeting is about it). Most severe first, then most ' +
          `recently seen. ${organizationRule}`,
        security,
        querystring: gapsQuery,
        response: { 200: gapsPage, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listGaps(context, requireAuth(request).user, request.query),
  );

  app.get(
    '/ai/gaps/conflicts',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Conflicting statements: decisions and answers that disagree on one subject (no credits)',
        description:
          'Compares the latest 2,000 decisions and answers of the last `days` (default 365). Same subject: 2+ ' +
          'shared subject words and Jaccard ≥ 0.4. `contradiction`: one negates what the other affirms, or ' +
          'one meeting names two values; `superseded`: a later meeting names another option, date or number. ' +
          `At most 100 conflicts, most recent first. ${organizationRule}`,
        security,
        querystring: conflictsQuery,
        response: { 200: conflictsSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listConflicts(context, requireAuth(request).user, request.query),
  );
};
