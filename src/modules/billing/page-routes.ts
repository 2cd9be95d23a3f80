import { eq } from 'drizzle-orm';
import type { FastifyError, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { checkoutSessions, invoiceLines, invoices, portalSessions } from '../../db/schema/index.ts';
import { errorResponseSchema, errors, sendError, toAppError } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { verifySignedToken } from '../../lib/signed-token.ts';
import { roleAtLeast, roleIn } from '../organizations/access.ts';
import { findPlan, PLAN_IDS, planCatalog } from './catalog.ts';
import { presentInvoice } from './invoices.ts';
import { completeCheckout, LINK_PURPOSE } from './local-provider.ts';
import { periodPrice } from './money.ts';
import { checkoutPage, invoicePage, messagePage, portalPage } from './pages.ts';
import {
  cancelSubscription,
  changeSubscription,
  listInvoices,
  organizationName,
  startCheckout,
  subscriptionView,
} from './service.ts';

const tags = ['Billing'];
const tokenQuery = z.object({
  token: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'The signed token of the link the API handed out.' }),
});
const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string() } },
});
/** A failure is a page for a browser (Accept: text/html), the one error shape for other clients. */
const failure = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string() }, 'application/json': { schema: errorResponseSchema } },
});
const pageResponses = {
  200: htmlResponse('The page'),
  400: failure('The request could not be carried out (the page says why)'),
  403: failure('The person the link was opened for may no longer do this'),
  404: failure('The link is unknown, invalid or expired'),
};
const redirect = { 303: htmlResponse('Done: on to the next page (Location)') };

const portalForm = z.object({
  action: z.enum(['change', 'cancel', 'resume', 'upgrade']),
  planId: z.enum(PLAN_IDS).optional(),
  seats: z.coerce.number().int().min(1).max(100_000).optional(),
  interval: z.enum(['month', 'year']).optional(),
});

const NOTICES = {
  change: 'The subscription was changed; the prorated invoice is below.',
  cancel: 'The subscription is cancelled at the end of its period.',
  resume: 'The cancellation was withdrawn: the subscription renews.',
} as const;

const sendPage = (reply: FastifyReply, status: number, body: string) =>
  reply.status(status).type('text/html; charset=utf-8').send(body);

const invalidLink = () => errors.notFound('This link is invalid or has expired. Ask for a new one.');

/**
 * The pages of the local billing provider (docs/billing.md): checkout, portal and printable
 * invoices, opened in a browser from the signed links the API hands out. No session is needed —
 * the link is the credential — but every action runs as the person it was issued to, with their
 * role checked again. Errors are pages too.
 */
export const billingPageRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  // The one error mapping (toAppError logs what is unexpected): a page for a browser, the one
  // error shape for any other client.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toAppError(error, request);
    if (!request.headers.accept?.includes('text/html')) return sendError(reply, known);
    const details = known.details
      ?.map((detail) => `${detail.path.replace(/^body\./, '')} ${detail.message}`)
      .join('; ');
    const message =
      known.statusCode >= 500
        ? 'Something went wrong on our side. Try again in a moment.'
        : details
          ? `${known.message}: ${details}`
          : known.message;
    const title = known.statusCode === 404 ? 'Link not valid' : 'That did not work';
    return sendPage(reply, known.statusCode, messagePage(title, message));
  });

  const now = () => context.clock.now();
  const verified = (purpose: string, subject: string, token: string | undefined) => {
    if (!verifySignedToken(context.config.secret, purpose, subject, token, now())) throw invalidLink();
  };

  async function checkoutSession(id: string, token: string | undefined) {
    verified(LINK_PURPOSE.checkout, id, token);
    const [session] = await context.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
    if (!session) throw invalidLink();
    return session;
  }

  app.get(
    '/billing/checkout/:id',
    {
      schema: {
        tags,
        summary: 'The checkout page of the local billing provider (a signed link)',
        params: idParams,
        querystring: tokenQuery,
        response: pageResponses,
      },
    },
    async (request, reply) => {
      const session = await checkoutSession(request.params.id, request.query.token);
      const plan = findPlan(context.config, session.planId);
      if (!plan) throw invalidLink();
      const back = session.cancelUrl ?? context.config.appUrl;
      return sendPage(
        reply,
        200,
        checkoutPage({
          action: `/billing/checkout/${session.id}?token=${encodeURIComponent(request.query.token ?? '')}`,
          organizationName: await organizationName(context.db, session.organizationId),
          plan,
          seats: session.seats,
          interval: session.interval,
          amount: periodPrice(plan, session.interval, session.seats),
          backUrl: back,
          complete: session.status === 'complete',
          continueUrl: session.successUrl ?? context.config.appUrl,
        }),
      );
    },
  );

  app.post(
    '/billing/checkout/:id',
    {
      schema: {
        tags,
        summary: 'Confirm and pay a checkout from its page (a signed link)',
        params: idParams,
        querystring: tokenQuery,
        response: { ...redirect, ...pageResponses },
      },
    },
    async (request, reply) => {
      const session = await checkoutSession(request.params.id, request.query.token);
      const done = await completeCheckout(context, session.id);
      const next =
        done.successUrl ??
        `/billing/checkout/${session.id}?token=${encodeURIComponent(request.query.token ?? '')}`;
      return reply.redirect(next, 303);
    },
  );

  async function portalVisit(id: string, token: string | undefined) {
    verified(LINK_PURPOSE.portal, id, token);
    const [visit] = await context.db.select().from(portalSessions).where(eq(portalSessions.id, id));
    if (!visit) throw invalidLink();
    const role = await roleIn(context.db, visit.userId, visit.organizationId);
    if (!role || !roleAtLeast(role, 'admin')) {
      throw errors.forbidden('You no longer manage the billing of this organization.');
    }
    return { visit, role, caller: { id: visit.userId, defaultOrganizationId: visit.organizationId } };
  }

  app.get(
    '/billing/portal/:id',
    {
      schema: {
        tags,
        summary: 'The billing portal page of the local billing provider (a signed link)',
        params: idParams,
        querystring: tokenQuery.extend({ notice: z.enum(['change', 'cancel', 'resume']).optional() }),
        response: pageResponses,
      },
    },
    async (request, reply) => {
      const { visit, role, caller } = await portalVisit(request.params.id, request.query.token);
      const { organizationId } = visit;
      const invoicePage = await listInvoices(context, caller, { organizationId, page: 1, limit: 24 });
      return sendPage(
        reply,
        200,
        portalPage({
          action: `/billing/portal/${visit.id}?token=${encodeURIComponent(request.query.token ?? '')}`,
          organizationName: await organizationName(context.db, organizationId),
          subscription: await subscriptionView(context.db, context, organizationId, now()),
          plans: planCatalog(context.config),
          invoices: invoicePage.data,
          canCancel: role === 'owner',
          backUrl: visit.returnUrl ?? context.config.appUrl,
          notice: request.query.notice ? NOTICES[request.query.notice] : undefined,
        }),
      );
    },
  );

  app.post(
    '/billing/portal/:id',
    {
      schema: {
        tags,
        summary: 'Change, cancel, resume or upgrade from the billing portal page (a signed link)',
        params: idParams,
        querystring: tokenQuery,
        body: portalForm,
        response: { ...redirect, ...pageResponses },
      },
    },
    async (request, reply) => {
      const { visit, caller } = await portalVisit(request.params.id, request.query.token);
      const { organizationId } = visit;
      const { action, planId, seats, interval } = request.body;
      const portalUrl = `/billing/portal/${visit.id}?token=${encodeURIComponent(request.query.token ?? '')}`;
      if (action === 'upgrade') {
        const checkout = await context.db.transaction((tx) =>
          startCheckout(tx, context, caller, {
            organizationId,
            planId: planId ?? 'pro',
            seats,
            interval,
            successUrl: `${context.config.appUrl}${portalUrl}`,
            cancelUrl: `${context.config.appUrl}${portalUrl}`,
          }),
        );
        return reply.redirect(checkout.url, 303);
      }
      if (action === 'cancel') await cancelSubscription(context, caller, organizationId);
      else {
        const change = action === 'resume' ? { cancelAtPeriodEnd: false } : { planId, seats, interval };
        await context.db.transaction((tx) =>
          changeSubscription(tx, context, caller, { organizationId, ...change }),
        );
      }
      return reply.redirect(`${portalUrl}&notice=${action}`, 303);
    },
  );

  app.get(
    '/billing/invoices/:id/document',
    {
      schema: {
        tags,
        summary: 'A printable invoice (a signed link from GET /billing/invoices)',
        params: idParams,
        querystring: tokenQuery,
        response: pageResponses,
      },
    },
    async (request, reply) => {
      verified(LINK_PURPOSE.invoice, request.params.id, request.query.token);
      const [invoice] = await context.db.select().from(invoices).where(eq(invoices.id, request.params.id));
      if (!invoice) throw invalidLink();
      const lines = await context.db
        .select()
        .from(invoiceLines)
        .where(eq(invoiceLines.invoiceId, invoice.id))
        .orderBy(invoiceLines.position);
      return sendPage(
        reply,
        200,
        invoicePage({ invoice: presentInvoice(invoice, lines, request.url), billedTo: invoice.billedTo }),
      );
    },
  );
};
