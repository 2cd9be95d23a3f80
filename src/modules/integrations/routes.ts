import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import {
  createSlackBody,
  createWebhookBody,
  deliveryPage,
  deliveryParams,
  deliveryQuery,
  deliverySchema,
  integrationListSchema,
  integrationSchema,
  organizationQuery,
  updateSlackBody,
  updateWebhookBody,
  webhookWithSecretSchema,
} from './schemas.ts';
import {
  createSlackIntegration,
  createWebhook,
  deleteIntegration,
  getIntegration,
  listDeliveries,
  listIntegrations,
  retryDelivery,
  updateIntegration,
} from './service.ts';

const tags = ['Integrations'];

const webhookDescription = `Each event is POSTed as JSON \`{id, type, createdAt, data}\` with the header
\`x-khub-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed by the secret>\` (plus
\`x-khub-event\` and \`x-khub-delivery\`). Any 2xx answer within the timeout is a delivery; anything else
is retried with exponential backoff and jitter for 24 hours, with the same event \`id\`. A webhook whose
deliveries fail for three days is disabled and the organization's admins are notified.`;

/**
 * Outgoing webhooks and Slack. Admins and owners connect and change them; members read what is
 * connected. Path-addressed integrations of other organizations are 404s.
 */
export const integrationRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.get(
    '/integrations',
    {
      schema: {
        tags,
        summary: 'What is connected to an organization: its webhooks and Slack integrations (any member)',
        security,
        querystring: organizationQuery,
        response: { 200: integrationListSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listIntegrations(context.db, requireAuth(request).user, request.query),
  );

  app.get(
    '/integrations/webhooks',
    {
      schema: {
        tags,
        summary: "An organization's webhooks, oldest first (any member)",
        security,
        querystring: organizationQuery,
        response: { 200: integrationListSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listIntegrations(context.db, requireAuth(request).user, request.query, 'webhook'),
  );

  app.post(
    '/integrations/webhooks',
    {
      schema: {
        tags,
        summary: 'Add a webhook (admin or owner); the signing secret is in this answer only',
        description: webhookDescription,
        security,
        body: createWebhookBody,
        response: { 201: webhookWithSecretSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const webhook = await createWebhook(context, callerId(request), request.body);
      return reply.code(201).header('location', `/integrations/webhooks/${webhook.id}`).send(webhook);
    },
  );

  app.get(
    '/integrations/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'One webhook (any member of its organization)',
        security,
        params: idParams,
        response: { 200: integrationSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getIntegration(context.db, callerId(request), request.params.id, 'webhook'),
  );

  app.patch(
    '/integrations/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Change, pause, re-enable a webhook or rotate its secret (admin or owner)',
        security,
        params: idParams,
        body: updateWebhookBody,
        response: {
          200: webhookWithSecretSchema.or(integrationSchema).meta({
            description: 'The webhook; with `secret` when `rotateSecret` was true.',
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      updateIntegration(context, callerId(request), request.params.id, 'webhook', request.body),
  );

  app.delete(
    '/integrations/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Remove a webhook and its pending deliveries (admin or owner)',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteIntegration(context, callerId(request), request.params.id, 'webhook'),
  );

  app.get(
    '/integrations/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: "A webhook's deliveries, newest first, with their bodies and outcomes (admin or owner)",
        security,
        params: idParams,
        querystring: deliveryQuery,
        response: { 200: deliveryPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listDeliveries(context.db, callerId(request), request.params.id, request.query),
  );

  app.post(
    '/integrations/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        tags,
        summary: 'Send a delivery again now, with the same event id (admin or owner)',
        security,
        params: deliveryParams,
        response: { 202: deliverySchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      return reply.code(202).send(await retryDelivery(context, callerId(request), id, deliveryId));
    },
  );

  app.post(
    '/integrations/slack',
    {
      schema: {
        tags,
        summary: 'Post events and a weekly digest to a Slack channel (admin or owner)',
        description:
          'Messages are Block Kit. `digest.weekly` posts, every Monday at 09:00 UTC, the week’s new meetings, decisions, open action items and top knowledge gaps. The webhook URL is stored encrypted and shown masked.',
        security,
        body: createSlackBody,
        response: { 201: integrationSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const slack = await createSlackIntegration(context, callerId(request), request.body);
      return reply.code(201).header('location', `/integrations/slack/${slack.id}`).send(slack);
    },
  );

  app.get(
    '/integrations/slack/:id',
    {
      schema: {
        tags,
        summary: 'One Slack integration (any member of its organization)',
        security,
        params: idParams,
        response: { 200: integrationSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getIntegration(context.db, callerId(request), request.params.id, 'slack'),
  );

  app.patch(
    '/integrations/slack/:id',
    {
      schema: {
        tags,
        summary: 'Change, pause or re-enable a Slack integration (admin or owner)',
        security,
        params: idParams,
        body: updateSlackBody,
        response: { 200: integrationSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      updateIntegration(context, callerId(request), request.params.id, 'slack', request.body),
  );

  app.delete(
    '/integrations/slack/:id',
    {
      schema: {
        tags,
        summary: 'Disconnect a Slack integration (admin or owner)',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteIntegration(context, callerId(request), request.params.id, 'slack'),
  );
};
