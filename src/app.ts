import { randomUUID } from 'node:crypto';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/client.ts';
import { registerAuthentication } from './http/auth.ts';
import { answerClientError, registerErrorHandling, sendError, toAppError } from './http/errors.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerTextGuard } from './http/text-guard.ts';
import { registerWebApp, WEB_APP_DIR } from './http/web-app.ts';
import type { JobQueue } from './jobs/queue.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { activityRoutes } from './modules/activity/routes.ts';
import { aiBudgetRoutes } from './modules/ai/budget-routes.ts';
import { aiGapsRoutes } from './modules/ai/gaps-routes.ts';
import { aiRoutes } from './modules/ai/routes.ts';
import { analyticsRoutes } from './modules/analytics/routes.ts';
import { oauthRoutes } from './modules/auth/oauth-routes.ts';
import { passwordResetRoutes } from './modules/auth/password-reset-routes.ts';
import { authCatchAllRoutes, authRoutes } from './modules/auth/routes.ts';
import { betaAccessRoutes } from './modules/beta-access/routes.ts';
import { billingPageRoutes } from './modules/billing/page-routes.ts';
import { billingRoutes } from './modules/billing/routes.ts';
import { billingWebhookRoutes } from './modules/billing/stripe-webhook.ts';
import { channelRoutes } from './modules/channels/routes.ts';
import { chatRoutes } from './modules/chat/routes.ts';
import { clipRoutes } from './modules/clips/routes.ts';
import { collectionRoutes } from './modules/collections/routes.ts';
import { commentRoutes } from './modules/comments/routes.ts';
import { healthRoutes } from './modules/health/routes.ts';
import { importRoutes } from './modules/imports/routes.ts';
import { insightRoutes } from './modules/insights/routes.ts';
import { integrationRoutes } from './modules/integrations/routes.ts';
import { registerDeliveryWaker } from './modules/integrations/wake.ts';
import { knowledgeRoutes } from './modules/knowledge/routes.ts';
import { mediaRoutes } from './modules/media/routes.ts';
import { mediaStoreFor } from './modules/media/stores.ts';
import { notificationRoutes } from './modules/notifications/routes.ts';
import { notificationStreamRoutes } from './modules/notifications/stream-routes.ts';
import { organizationRoutes } from './modules/organizations/routes.ts';
import { savedSearchRoutes } from './modules/saved-searches/routes.ts';
import { searchRoutes } from './modules/search/routes.ts';
import { searchSuggestionRoutes } from './modules/search/suggestion-routes.ts';
import { seriesRoutes } from './modules/series/routes.ts';
import { shareLinkRoutes } from './modules/share-links/routes.ts';
import { summaryRoutes } from './modules/summaries/routes.ts';
import { topicRoutes } from './modules/topics/routes.ts';
import { transcriptRoutes } from './modules/transcripts/routes.ts';
import { userRoutes } from './modules/users/routes.ts';
import { videoRoutes } from './modules/videos/routes.ts';

export type AppDeps = {
  config: Config;
  database: Database;
  jobs: JobQueue;
  logger: FastifyBaseLogger;
  /** Tests pass a clock they can move; the service uses the system clock. */
  clock?: Clock;
  /** The built web app; tests pass a directory of their own. */
  webAppDir?: string;
};

const BODY_LIMIT_BYTES = 1024 * 1024;
const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/;

/** The organization a request names — in its query, its body or its path — for the log line. */
function organizationNamedBy(request: FastifyRequest): string | undefined {
  const named = [
    (request.query as { organizationId?: unknown } | undefined)?.organizationId,
    (request.body as { organizationId?: unknown } | undefined)?.organizationId,
    request.routeOptions.url?.startsWith('/organizations/:id')
      ? (request.params as { id?: unknown }).id
      : undefined,
  ].find((value) => typeof value === 'string');
  return named as string | undefined;
}

/**
 * One log line per request, written when it completes (Fastify's default writes two). It names the
 * route template, not the URL: paths and query strings can carry secrets (share and invitation
 * tokens, OAuth codes). Who asked — the user, the organization the request names, the client's
 * address (as TRUST_PROXY resolves it) — is on the line, so that one person's trouble can be found.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      statusCode: reply.statusCode,
      ms: reply.elapsedTime,
      ip: request.ip,
      userId: request.auth?.user.id,
      organizationId: organizationNamedBy(request),
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request completed');
  }
}

export async function buildApp(deps: AppDeps) {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // A hop count trusts that many proxies in front of the service.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < Number(config.trustProxy)
        : config.trustProxy,
    // Echo a caller's request id when it is safe to log; otherwise mint one.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    },
    logController: new OneLinePerRequest({ requestIdLogLabel: 'requestId' }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // The router's own errors (a path id too long, bad percent-encoding) in the one error shape.
    frameworkErrors: (error, request, reply) => sendError(reply, toAppError(error, request)),
    // Requests Node's HTTP parser refuses before Fastify sees them, in the one error shape too.
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON is the only request body format; routes that take other formats register their own parser.
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  registerTextGuard(app);

  // Hooks on every request take a callback: an async hook costs a promise and a microtask more.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // While shutting down, answers to requests already in flight close their connection, so that
  // keep-alive clients do not hold the server open until their idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    // Answers carry private data unless a route says otherwise: no proxy or browser keeps them.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  registerSecurityHeaders(app);
  await app.register(cors, {
    origin: config.corsOrigins.includes('*') ? true : config.corsOrigins,
    credentials: true,
    exposedHeaders: [
      'x-request-id',
      'location',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
    ],
  });
  // gzip, brotli (quality 4) or deflate as the client accepts, from 1 KiB up; event streams never.
  await app.register(compress, { threshold: 1024 });
  await app.register(cookie, { secret: config.secret });
  await registerWebApp(app, { directory: deps.webAppDir ?? WEB_APP_DIR });
  const context: AppContext = {
    config,
    db: deps.database.db,
    jobs: deps.jobs,
    clock: deps.clock ?? systemClock,
    logger: deps.logger,
  };
  registerAuthentication(app, context);
  const metrics = registerMetrics(app, { db: deps.database.db, pool: deps.database.pool });
  await registerRateLimit(app, { pool: deps.database.pool, perMinute: config.rateLimitPerMinute });
  await registerOpenApi(app, { version: config.version, serverUrl: config.appUrl });

  await app.register(healthRoutes, {
    database: deps.database,
    jobs: deps.jobs,
    metrics,
    version: config.version,
  });
  await app.register(authRoutes, { context });
  await app.register(passwordResetRoutes, { context });
  await app.register(oauthRoutes, { context });
  await app.register(authCatchAllRoutes);
  await app.register(userRoutes, { context });
  await app.register(organizationRoutes, { context });
  await app.register(betaAccessRoutes, { context });
  await app.register(videoRoutes, { context });
  await app.register(transcriptRoutes, { context });
  await app.register(mediaRoutes, { context, store: mediaStoreFor(config) });
  await app.register(knowledgeRoutes, { context });
  await app.register(channelRoutes, { context });
  await app.register(seriesRoutes, { context });
  await app.register(collectionRoutes, { context });
  await app.register(activityRoutes, { context });
  await app.register(clipRoutes, { context });
  await app.register(shareLinkRoutes, { context });
  await app.register(searchSuggestionRoutes, { context });
  await app.register(savedSearchRoutes, { context });
  await app.register(commentRoutes, { context });
  await app.register(searchRoutes, { context });
  await app.register(notificationRoutes, { context });
  await app.register(notificationStreamRoutes, { context, pool: deps.database.pool });
  await app.register(aiRoutes, { context });
  await app.register(chatRoutes, { context });
  await app.register(aiBudgetRoutes, { context });
  await app.register(aiGapsRoutes, { context });
  await app.register(insightRoutes, { context });
  await app.register(summaryRoutes, { context });
  await app.register(topicRoutes, { context });
  await app.register(analyticsRoutes, { context });
  await app.register(billingRoutes, { context });
  await app.register(billingPageRoutes, { context });
  await app.register(billingWebhookRoutes, { context });
  await app.register(integrationRoutes, { context });
  registerDeliveryWaker(app, { context, pool: deps.database.pool });
  await app.register(importRoutes, { context });

  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
