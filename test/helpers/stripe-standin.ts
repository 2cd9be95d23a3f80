import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Stripe's API on loopback, speaking its wire protocol to the real `stripe` SDK:
 * form-encoded requests with bracketed keys, bearer secret keys, `Idempotency-Key` replay (and
 * Stripe's `idempotency_error` for a key reused with other parameters), Stripe's JSON objects and
 * error shape, list pagination, and signed event deliveries (`Stripe-Signature: t=…,v1=…`). It keeps
 * customers, checkout and portal sessions, subscriptions and invoices; tests drive what the
 * customer does (pay a checkout, a renewal that fails) and what Stripe sends.
 */

type Price = { unitAmount: number; interval: 'month' | 'year' };
type Json = Record<string, unknown>;
type Subscription = Json & {
  id: string;
  customer: string;
  status: string;
  cancel_at_period_end: boolean;
  items: {
    object: 'list';
    data: Array<
      Json & {
        id: string;
        price: Json & { id: string };
        quantity: number;
        current_period_start: number;
        current_period_end: number;
      }
    >;
  };
};

export const STANDIN_SECRET_KEY = 'sk_test_standin';
export const STANDIN_WEBHOOK_SECRET = 'whsec_standin';
export const STANDIN_PRICES: Record<string, Price> = {
  price_pro_month: { unitAmount: 1500, interval: 'month' },
  price_pro_year: { unitAmount: 15000, interval: 'year' },
  price_business_month: { unitAmount: 3000, interval: 'month' },
  price_business_year: { unitAmount: 30000, interval: 'year' },
};

/** The environment that points the service at the stand-in. */
export const standinEnv = (apiUrl: string) => ({
  BILLING_PROVIDER: 'stripe',
  STRIPE_API_URL: apiUrl,
  STRIPE_SECRET_KEY: STANDIN_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: STANDIN_WEBHOOK_SECRET,
  STRIPE_PRICE_PRO_MONTH: 'price_pro_month',
  STRIPE_PRICE_PRO_YEAR: 'price_pro_year',
  STRIPE_PRICE_BUSINESS_MONTH: 'price_business_month',
  STRIPE_PRICE_BUSINESS_YEAR: 'price_business_year',
});

/** `line_items[0][price]=x` → `{line_items: [{price: 'x'}]}`, as Stripe reads its form bodies. */
export function decodeForm(body: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    path.forEach((segment, index) => {
      if (index === path.length - 1) {
        node[segment] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(path[index + 1] as string);
      node[segment] ??= nextIsIndex ? [] : {};
      node = node[segment] as Record<string, unknown>;
    });
  }
  return root;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
const addInterval = (start: number, interval: 'month' | 'year') => {
  const date = new Date(start * 1000);
  if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + 1);
  else date.setUTCFullYear(date.getUTCFullYear() + 1);
  return Math.floor(date.getTime() / 1000);
};

class StripeFailure extends Error {
  readonly status: number;
  readonly body: { type: string; message: string; code?: string; param?: string };
  constructor(status: number, body: StripeFailure['body']) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

export async function startStripeStandin() {
  const customers = new Map<string, Json>();
  const sessions = new Map<string, Json>();
  const subscriptions = new Map<string, Subscription>();
  const invoices: Json[] = [];
  const idempotency = new Map<string, { hash: string; status: number; body: unknown }>();
  /** Every request the SDK made: method, path, idempotency key, decoded parameters. */
  const requests: Array<{ method: string; path: string; idempotencyKey: string | undefined; params: Json }> =
    [];
  let invoiceNumber = 0;
  let failNextRequests = 0;

  const subscriptionNamed = (subscriptionId: string) => {
    const subscription = subscriptions.get(subscriptionId);
    if (!subscription) {
      throw new StripeFailure(404, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such subscription: '${subscriptionId}'`,
        param: 'id',
      });
    }
    return subscription;
  };

  const priceOf = (priceId: unknown) => {
    const price = STANDIN_PRICES[String(priceId)];
    if (!price)
      throw new StripeFailure(400, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such price: '${String(priceId)}'`,
        param: 'price',
      });
    return price;
  };

  function issueInvoice(subscription: Subscription, reason: string, lines: Json[], paid: boolean) {
    const total = lines.reduce((sum, line) => sum + (line.amount as number), 0);
    const created = now();
    invoiceNumber += 1;
    const invoice: Json = {
      id: id('in'),
      object: 'invoice',
      customer: subscription.customer,
      number: `STANDIN-${String(invoiceNumber).padStart(4, '0')}`,
      status: paid ? 'paid' : 'open',
      billing_reason: reason,
      currency: 'usd',
      subtotal: total,
      total,
      amount_due: Math.max(0, total),
      amount_paid: paid ? Math.max(0, total) : 0,
      period_start: (lines[0]?.period as Json)?.start ?? created,
      period_end: (lines[0]?.period as Json)?.end ?? created,
      created,
      hosted_invoice_url: `https://invoice.stripe.test/${invoiceNumber}`,
      status_transitions: { paid_at: paid ? created : null },
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id } },
      lines: { object: 'list', data: lines, has_more: false },
    };
    invoices.push(invoice);
    subscription.latest_invoice = invoice.id;
    return invoice;
  }

  const line = (
    description: string,
    priceId: string,
    quantity: number,
    amount: number,
    start: number,
    end: number,
    proration: boolean,
  ): Json => ({
    id: id('il'),
    object: 'line_item',
    description,
    amount,
    quantity,
    period: { start, end },
    pricing: {
      type: 'price_details',
      price_details: { price: priceId },
      unit_amount_decimal: String(STANDIN_PRICES[priceId]?.unitAmount ?? 0),
    },
    parent: { type: 'subscription_item_details', subscription_item_details: { proration } },
  });

  const routes: Array<
    [string, RegExp, (params: Json, match: RegExpExecArray, query: URLSearchParams) => unknown]
  > = [
    [
      'POST',
      /^\/v1\/customers$/,
      (params) => {
        const customer = {
          id: id('cus'),
          object: 'customer',
          name: params.name ?? null,
          email: params.email ?? null,
          metadata: params.metadata ?? {},
          created: now(),
        };
        customers.set(customer.id, customer);
        return customer;
      },
    ],
    [
      'POST',
      /^\/v1\/checkout\/sessions$/,
      (params) => {
        if (params.mode !== 'subscription')
          throw new StripeFailure(400, {
            type: 'invalid_request_error',
            message: 'Only subscription mode here',
            param: 'mode',
          });
        if (!customers.has(String(params.customer)))
          throw new StripeFailure(400, {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such customer: '${String(params.customer)}'`,
            param: 'customer',
          });
        const item = (params.line_items as Json[] | undefined)?.[0] ?? {};
        priceOf(item.price);
        const session = {
          id: id('cs_test'),
          object: 'checkout.session',
          mode: 'subscription',
          status: 'open',
          customer: params.customer,
          client_reference_id: params.client_reference_id ?? null,
          subscription: null,
          success_url: params.success_url,
          cancel_url: params.cancel_url,
          metadata: params.metadata ?? {},
          expires_at: now() + 24 * 3600,
          url: '',
          line_items: params.line_items,
          subscription_data: params.subscription_data,
        };
        session.url = `https://checkout.stripe.test/c/pay/${session.id}`;
        sessions.set(session.id, session);
        return session;
      },
    ],
    [
      'POST',
      /^\/v1\/billing_portal\/sessions$/,
      (params) => ({
        id: id('bps'),
        object: 'billing_portal.session',
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `https://billing.stripe.test/p/session/${randomBytes(8).toString('hex')}`,
        created: now(),
      }),
    ],
    [
      'GET',
      /^\/v1\/subscriptions\/([\w]+)$/,
      (_params, match) => {
        return subscriptionNamed(match[1] as string);
      },
    ],
    [
      'POST',
      /^\/v1\/subscriptions\/([\w]+)$/,
      (params, match) => {
        const subscription = subscriptionNamed(match[1] as string);
        if (params.cancel_at_period_end !== undefined)
          subscription.cancel_at_period_end = params.cancel_at_period_end === 'true';
        const change = (params.items as Json[] | undefined)?.[0];
        if (change) {
          const item = subscription.items.data.find((candidate) => candidate.id === change.id);
          if (!item)
            throw new StripeFailure(400, {
              type: 'invalid_request_error',
              message: `No such subscription item: '${String(change.id)}'`,
              param: 'items[0][id]',
            });
          const from = { priceId: item.price.id, quantity: item.quantity };
          const toPrice = priceOf(change.price ?? item.price.id);
          const toPriceId = String(change.price ?? item.price.id);
          const quantity = Number(change.quantity ?? item.quantity);
          const left = item.current_period_end - now();
          const whole = item.current_period_end - item.current_period_start;
          const share = (amount: number) => Math.round((amount * left) / whole);
          item.price = {
            id: toPriceId,
            object: 'price',
            unit_amount: toPrice.unitAmount,
            recurring: { interval: toPrice.interval },
          };
          item.quantity = quantity;
          if (params.proration_behavior === 'always_invoice') {
            issueInvoice(
              subscription,
              'subscription_update',
              [
                line(
                  'Unused time',
                  from.priceId,
                  from.quantity,
                  -share((STANDIN_PRICES[from.priceId]?.unitAmount ?? 0) * from.quantity),
                  now(),
                  item.current_period_end,
                  true,
                ),
                line(
                  'Remaining time',
                  toPriceId,
                  quantity,
                  share(toPrice.unitAmount * quantity),
                  now(),
                  item.current_period_end,
                  true,
                ),
              ],
              true,
            );
          }
        }
        return subscription;
      },
    ],
    [
      'GET',
      /^\/v1\/invoices$/,
      (_params, _match, query) => {
        // Newest first, as Stripe lists them.
        const mine = invoices.filter((invoice) => invoice.customer === query.get('customer')).reverse();
        const after = query.get('starting_after');
        const start = after ? mine.findIndex((invoice) => invoice.id === after) + 1 : 0;
        const limit = Number(query.get('limit') ?? 10);
        return {
          object: 'list',
          url: '/v1/invoices',
          data: mine.slice(start, start + limit),
          has_more: start + limit < mine.length,
        };
      },
    ],
  ];

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://standin');
    const params =
      request.method === 'GET'
        ? decodeForm(url.search.slice(1))
        : decodeForm(Buffer.concat(chunks).toString());
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    requests.push({ method: request.method ?? '', path: url.pathname, idempotencyKey, params });
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${STANDIN_SECRET_KEY}`) {
      return send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_****' },
      });
    }
    if (failNextRequests > 0) {
      failNextRequests -= 1;
      return send(500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
    }
    const hash = createHash('sha256')
      .update(`${request.method} ${url.pathname} ${JSON.stringify(params)}`)
      .digest('hex');
    const seen = idempotencyKey ? idempotency.get(idempotencyKey) : undefined;
    if (seen) {
      if (seen.hash !== hash) {
        return send(400, {
          error: {
            type: 'idempotency_error',
            message:
              'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          },
        });
      }
      response.setHeader('idempotent-replayed', 'true');
      return send(seen.status, seen.body);
    }
    const route = routes.find(([method, pattern]) => method === request.method && pattern.test(url.pathname));
    if (!route)
      return send(404, {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${request.method}: ${url.pathname}).`,
        },
      });
    let status = 200;
    let body: unknown;
    try {
      body = route[2](params, route[1].exec(url.pathname) as RegExpExecArray, url.searchParams);
    } catch (error) {
      if (!(error instanceof StripeFailure)) throw error;
      status = error.status;
      body = { error: error.body };
    }
    if (idempotencyKey && request.method === 'POST')
      idempotency.set(idempotencyKey, { hash, status, body: JSON.parse(JSON.stringify(body)) });
    return send(status, body);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const event = (type: string, object: Json): Json => ({
    id: id('evt'),
    object: 'event',
    api_version: '2026-10-28.endive',
    created: now(),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object: JSON.parse(JSON.stringify(object)) },
  });

  return {
    apiUrl,
    requests,
    subscriptions,
    /** The next `count` API requests answer Stripe's 500 `api_error`. */
    failNext(count: number) {
      failNextRequests = count;
    },
    /** The customer pays a checkout: the subscription starts, its first invoice is paid. Returns the events Stripe would send. */
    payCheckout(sessionId: string) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no checkout session ${sessionId}`);
      const item = (session.line_items as Json[])[0] as Json;
      const price = priceOf(item.price);
      const start = now();
      const end = addInterval(start, price.interval);
      const subscription: Subscription = {
        id: id('sub'),
        object: 'subscription',
        customer: String(session.customer),
        status: 'active',
        cancel_at_period_end: false,
        ended_at: null,
        created: start,
        metadata: ((session.subscription_data as Json | undefined)?.metadata as Json) ?? {},
        latest_invoice: null,
        items: {
          object: 'list',
          data: [
            {
              id: id('si'),
              object: 'subscription_item',
              price: {
                id: String(item.price),
                object: 'price',
                unit_amount: price.unitAmount,
                recurring: { interval: price.interval },
              },
              quantity: Number(item.quantity),
              current_period_start: start,
              current_period_end: end,
            },
          ],
        },
      };
      subscriptions.set(subscription.id, subscription);
      const invoice = issueInvoice(
        subscription,
        'subscription_create',
        [
          line(
            'First period',
            String(item.price),
            Number(item.quantity),
            price.unitAmount * Number(item.quantity),
            start,
            end,
            false,
          ),
        ],
        true,
      );
      Object.assign(session, { status: 'complete', subscription: subscription.id });
      return {
        subscription,
        events: [
          event('checkout.session.completed', session),
          event('customer.subscription.created', subscription),
          event('invoice.paid', invoice),
        ],
      };
    },
    /** A renewal whose payment fails: the invoice stays open and the subscription goes past due. */
    failRenewal(subscriptionId: string) {
      const subscription = subscriptions.get(subscriptionId) as Subscription;
      const item = subscription.items.data[0] as Subscription['items']['data'][number];
      const start = item.current_period_end;
      item.current_period_start = start;
      item.current_period_end = addInterval(
        start,
        (item.price.recurring as Json).interval as 'month' | 'year',
      );
      subscription.status = 'past_due';
      const invoice = issueInvoice(
        subscription,
        'subscription_cycle',
        [
          line(
            'Renewal',
            item.price.id,
            item.quantity,
            (item.price.unit_amount as number) * item.quantity,
            start,
            item.current_period_end,
            false,
          ),
        ],
        false,
      );
      return [event('invoice.payment_failed', invoice), event('customer.subscription.updated', subscription)];
    },
    /** The period of a subscription cancelled at its end is over. */
    endSubscription(subscriptionId: string) {
      const subscription = subscriptions.get(subscriptionId) as Subscription;
      Object.assign(subscription, { status: 'canceled', ended_at: now() });
      return event('customer.subscription.deleted', subscription);
    },
    event,
    /** An event as Stripe delivers it: the JSON body and its `Stripe-Signature` header. */
    signed(payload: Json, options: { secret?: string; timestamp?: number } = {}) {
      const body = JSON.stringify(payload);
      const timestamp = options.timestamp ?? now();
      const signature = createHmac('sha256', options.secret ?? STANDIN_WEBHOOK_SECRET)
        .update(`${timestamp}.${body}`)
        .digest('hex');
      return {
        body,
        headers: { 'content-type': 'application/json', 'stripe-signature': `t=${timestamp},v1=${signature}` },
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type StripeStandin = Awaited<ReturnType<typeof startStripeStandin>>;
