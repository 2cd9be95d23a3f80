import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Stripe from 'stripe';
import { z } from 'zod';
import type { StripeConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { billingEvents } from '../../db/schema/index.ts';
import { errorResponses, errors } from '../../http/errors.ts';
import { formatMoney } from './money.ts';
import { announceBillingEvent } from './notices.ts';
import { callStripe, idOf, mirrorSubscription, stripeClient } from './stripe-provider.ts';

const receivedSchema = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().meta({ description: 'true when the event was already applied (a redelivery).' }),
  })
  .meta({ id: 'WebhookReceipt' });

/**
 * Applies one verified Stripe event, once: its id is recorded in the transaction that applies it,
 * so a redelivery (Stripe retries until it gets a 2xx) changes nothing, and a failure rolls the
 * record back so that the retry applies it. The subscription is always fetched again from Stripe
 * and mirrored whole, so events arriving out of order still leave its latest state.
 */
export async function applyStripeEvent(context: AppContext, stripe: StripeConfig, event: Stripe.Event) {
  const client = stripeClient(stripe);
  return context.db.transaction(async (tx) => {
    const fresh = await tx
      .insert(billingEvents)
      .values({ id: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: billingEvents.id });
    if (fresh.length === 0) return { received: true as const, duplicate: true };

    const mirror = async (subscriptionId: string | undefined) => {
      if (!subscriptionId) return undefined;
      // Events of one subscription handled at once take turns here, so the one that fetches last
      // (the newest state) writes last.
      await tx.execute(
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${`stripe-subscription:${subscriptionId}`}, 0))`,
      );
      const subscription = await callStripe(() => client.subscriptions.retrieve(subscriptionId));
      return mirrorSubscription(tx, context, stripe, subscription);
    };
    const object = event.data.object as unknown as Record<string, unknown>;
    switch (event.type) {
      case 'checkout.session.completed': {
        const mirrored = await mirror(idOf(object.subscription as string | { id: string } | null));
        if (mirrored) {
          await announce(
            tx,
            context,
            mirrored,
            'subscription.created',
            `Subscribed to ${mirrored.plan.name}`,
            'The checkout was paid.',
          );
        }
        break;
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed':
        await mirror(idOf(object.id as string));
        break;
      case 'customer.subscription.deleted': {
        const mirrored = await mirror(idOf(object.id as string));
        if (mirrored) {
          await announce(
            tx,
            context,
            mirrored,
            'subscription.canceled',
            'Subscription ended: the organization is on the free plan',
            "The free plan's limits apply from now on.",
          );
        }
        break;
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const invoice = event.data.object as Stripe.Invoice;
        const mirrored = await mirror(idOf(invoice.parent?.subscription_details?.subscription));
        const amount = formatMoney(
          event.type === 'invoice.paid' ? invoice.amount_paid : invoice.amount_due,
          invoice.currency,
        );
        if (mirrored) {
          await announce(
            tx,
            context,
            mirrored,
            event.type,
            event.type === 'invoice.paid' ? `Payment of ${amount} received` : `Payment of ${amount} failed`,
            event.type === 'invoice.paid'
              ? `Invoice ${invoice.number ?? invoice.id} is paid.`
              : `Invoice ${invoice.number ?? invoice.id} could not be paid: update the payment method in the billing portal.`,
            { invoiceId: invoice.id },
          );
        }
        break;
      }
      default:
        // Recorded (so a redelivery stays a no-op) and otherwise ignored.
        break;
    }
    return { received: true as const, duplicate: false };
  });
}

function announce(
  tx: Tx,
  context: AppContext,
  mirrored: { organizationId: string; subscriptionId: string },
  action: string,
  title: string,
  body: string,
  metadata: Record<string, unknown> = {},
) {
  return announceBillingEvent(tx, context, {
    organizationId: mirrored.organizationId,
    actorId: null,
    action,
    targetType: 'subscription',
    targetId: mirrored.subscriptionId,
    title,
    body,
    metadata,
  });
}

/**
 * `POST /billing/webhook`: Stripe's callbacks. The signature (`Stripe-Signature`, HMAC-SHA256 of
 * the raw body with STRIPE_WEBHOOK_SECRET, at most 5 minutes old) is checked on the body exactly
 * as received, so this plugin reads JSON bodies as text.
 */
export const billingWebhookRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  app,
  { context },
) => {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/billing/webhook',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['Billing'],
        summary:
          "The payment provider's callbacks (Stripe events, signed); 404 with the local provider, which sends none",
        headers: z.object({
          'stripe-signature': z
            .string()
            .max(2048)
            .optional()
            .meta({ description: "Stripe's signature of the body." }),
        }),
        body: z.string().meta({ description: 'A Stripe event, as Stripe sends it (JSON).' }),
        response: { 200: receivedSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const { stripe } = context.config.billing;
      if (!stripe)
        throw errors.notFound('No payment provider sends callbacks here (BILLING_PROVIDER is local)');
      let event: Stripe.Event;
      try {
        event = stripeClient(stripe).webhooks.constructEvent(
          request.body,
          request.headers['stripe-signature'] ?? '',
          stripe.webhookSecret,
        );
      } catch {
        throw errors.badRequest(
          'The Stripe-Signature header does not sign this body with the webhook secret, or is older than 5 minutes',
          'INVALID_SIGNATURE',
        );
      }
      return applyStripeEvent(context, stripe, event);
    },
  );
};
