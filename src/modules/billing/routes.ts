import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idempotencyHeaders, idempotently, markReplay } from '../../http/idempotency.ts';
import { paginated } from '../../http/pagination.ts';
import {
  checkoutBody,
  checkoutSchema,
  invoiceListQuery,
  invoiceSchema,
  organizationQuery,
  planListSchema,
  portalBody,
  portalSchema,
  subscriptionChangeBody,
  subscriptionSchema,
} from './schemas.ts';
import {
  cancelSubscription,
  changeSubscription,
  getSubscription,
  listInvoices,
  listPlans,
  openPortal,
  startCheckout,
} from './service.ts';

const tags = ['Billing'];

/**
 * The organization's plan, subscription and invoices (docs/billing.md). Every route is about the
 * organization named, else the caller's default one: members read; owners and admins buy and
 * change; only owners cancel.
 */
export const billingRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.get(
    '/billing/plans',
    {
      schema: {
        tags,
        summary: 'The plans an organization can be on, with their prices and limits',
        security,
        response: { 200: planListSchema, ...errorResponses(401) },
      },
    },
    async () => listPlans(context.config),
  );

  app.get(
    '/billing/subscription',
    {
      schema: {
        tags,
        summary: "The organization's plan, subscription and seats (any member)",
        security,
        querystring: organizationQuery,
        response: { 200: subscriptionSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => getSubscription(context, requireAuth(request).user, request.query.organizationId),
  );

  app.post(
    '/billing/checkout',
    {
      schema: {
        tags,
        summary:
          'Start buying a paid plan (owner or admin): answers the checkout page to open, where the buyer confirms and pays',
        security,
        headers: idempotencyHeaders,
        body: checkoutBody,
        response: { 201: checkoutSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const caller = requireAuth(request).user;
      const { result, replayed } = await idempotently(
        context.db,
        {
          userId: caller.id,
          operation: 'POST /billing/checkout',
          key: request.headers['idempotency-key'],
          payload: request.body,
        },
        checkoutSchema,
        (tx) => startCheckout(tx, context, caller, request.body, { key: request.headers['idempotency-key'] }),
      );
      markReplay(reply, replayed);
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/billing/portal',
    {
      schema: {
        tags,
        summary:
          'Open the billing portal (owner or admin): a page to see invoices, change plan and seats, and cancel',
        security,
        body: portalBody,
        response: { 201: portalSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await openPortal(context, requireAuth(request).user, request.body)),
  );

  app.patch(
    '/billing/subscription',
    {
      schema: {
        tags,
        summary:
          'Change a paid subscription (owner or admin): plan, seats or interval, invoiced at once with proration',
        security,
        headers: idempotencyHeaders,
        body: subscriptionChangeBody,
        response: { 200: subscriptionSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const caller = requireAuth(request).user;
      const { result, replayed } = await idempotently(
        context.db,
        {
          userId: caller.id,
          operation: 'PATCH /billing/subscription',
          key: request.headers['idempotency-key'],
          payload: request.body,
        },
        subscriptionSchema,
        (tx) =>
          changeSubscription(tx, context, caller, request.body, { key: request.headers['idempotency-key'] }),
      );
      markReplay(reply, replayed);
      return result;
    },
  );

  app.delete(
    '/billing/subscription',
    {
      schema: {
        tags,
        summary:
          'Cancel the paid subscription at the end of its period (owner only); until then nothing changes',
        security,
        querystring: organizationQuery,
        response: { 200: subscriptionSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => cancelSubscription(context, requireAuth(request).user, request.query.organizationId),
  );

  app.get(
    '/billing/invoices',
    {
      schema: {
        tags,
        summary: "The organization's invoices, newest first (any member)",
        security,
        querystring: invoiceListQuery,
        response: { 200: paginated(invoiceSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listInvoices(context, requireAuth(request).user, request.query),
  );
};
