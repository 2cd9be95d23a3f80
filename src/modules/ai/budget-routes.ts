import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { AI_COSTS, AI_FEATURES, aiBudget } from './budget.ts';

const budgetQuery = z.object({
  organizationId: uuid().optional().meta({ description: "Default: the caller's default organization." }),
});

const aiBudgetSchema = z
  .object({
    organizationId: uuid(),
    period: z
      .object({
        month: z.string().meta({ example: '2026-11' }),
        start: timestamp(),
        end: timestamp().meta({ description: 'When the next month starts and usage restarts at 0.' }),
      })
      .meta({ description: 'The calendar month (UTC) counted.' }),
    limit: z.int().meta({ description: 'Credits the organization may use this month.' }),
    used: z.int(),
    remaining: z.int().meta({ description: 'limit − used, never below 0.' }),
    percentUsed: z.number().meta({
      description:
        'used / limit × 100, one decimal. Owners and admins are notified (type ai_budget) at 80 and 100.',
    }),
    byFeature: z
      .array(
        z.object({
          feature: z.enum(AI_FEATURES),
          credits: z.int(),
          operations: z
            .int()
            .meta({ description: 'Successful operations charged (failed ones cost nothing).' }),
        }),
      )
      .meta({ description: 'Every AI feature, zeros included.' }),
  })
  .meta({ id: 'AiBudget' });

const costs = Object.entries(AI_COSTS)
  .map(([feature, credits]) => `${feature} ${credits}`)
  .join(', ');

/** The organization's monthly AI credit budget. */
export const aiBudgetRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/ai/budget',
    {
      onRequest: authenticated,
      schema: {
        tags: ['AI'],
        summary:
          `This month's AI credits of an organization (any member). Credits per operation with an ` +
          `OpenAI-compatible model (AI_PROVIDER=openai): ${costs}; the local engine is free and not metered. ` +
          'an operation over the budget answers 429 AI_BUDGET_EXCEEDED with Retry-After. ' +
          'Default: your default organization; one you do not belong to is a 403',
        security,
        querystring: budgetQuery,
        response: { 200: aiBudgetSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => aiBudget(context, requireAuth(request).user, request.query.organizationId),
  );
};
