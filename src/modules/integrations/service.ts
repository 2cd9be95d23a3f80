import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { type IntegrationKind, integrationDeliveries, integrations } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { randomToken, sealSecret } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/service.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { callerOrganization, requireRole, roleAtLeast, roleIn } from '../organizations/access.ts';
import { assertDestination } from './addresses.ts';
import { DELIVERY_JOB } from './deliveries.ts';
import type { IntegrationEventType } from './events.ts';
import type { DeliveryView, IntegrationView } from './schemas.ts';

type IntegrationRow = typeof integrations.$inferSelect;
type Caller = Pick<AuthUser, 'id' | 'defaultOrganizationId'>;

/** Webhooks and Slack connections an organization may have (each delivery is an outbound request). */
export const INTEGRATIONS_PER_ORGANIZATION = 20;

const LABEL: Record<IntegrationKind, string> = { webhook: 'Webhook', slack: 'Slack integration' };
const notFound = (kind: IntegrationKind) => errors.notFound(`${LABEL[kind]} not found`);

/**
 * A webhook's URL may carry a token (Zapier, n8n, Teams): admins and owners, who manage it, see it
 * whole; other members see its origin only. A Slack URL is masked for everyone.
 */
const shownUrl = (row: IntegrationRow, role: Role) =>
  row.kind === 'webhook' && !roleAtLeast(role, 'admin')
    ? `${new URL(row.displayUrl).origin}/••••`
    : row.displayUrl;

/** What the API shows of an integration to a member with `role` (whoever changes one is an admin). */
const toIntegrationView = (row: IntegrationRow, role: Role = 'admin'): IntegrationView => ({
  id: row.id,
  organizationId: row.organizationId,
  kind: row.kind,
  url: shownUrl(row, role),
  events: row.events as IntegrationEventType[],
  description: row.description,
  enabled: row.enabled,
  disabledReason: row.disabledReason,
  failingSince: row.failingSince,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * Whoever has a Slack URL can post with it, and its secret is in the path (Slack: the last
 * segment; Discord's Slack-compatible URLs: the one before `/slack`): only the origin and the
 * first segment are shown, `https://hooks.slack.com/services/••••`.
 */
function maskSlackUrl(url: URL): string {
  const [first] = url.pathname.split('/').filter(Boolean);
  return `${url.origin}/${first ? `${first}/` : ''}••••`;
}

/** A new signing secret, in the `whsec_` form people know from Stripe. */
const newSigningSecret = () => `whsec_${randomToken(24)}`;

/**
 * Loads an integration of the given kind for a caller. Addressed in the path, so an unknown id
 * and another organization's are the same 404; a member below `minRole` gets 403.
 */
async function requireIntegration(
  db: Db | Tx,
  input: { userId: string; id: string; kind: IntegrationKind; minRole: Role; forUpdate?: boolean },
) {
  const query = db
    .select()
    .from(integrations)
    .where(and(eq(integrations.id, input.id), eq(integrations.kind, input.kind)));
  const [row] = input.forUpdate ? await query.for('update') : await query;
  if (!row || !(await roleIn(db, input.userId, row.organizationId))) throw notFound(input.kind);
  const role = await requireRole(db, {
    userId: input.userId,
    organizationId: row.organizationId,
    minRole: input.minRole,
  });
  return { row, role };
}

const destinationCheck = (context: AppContext, path: string) => ({
  allowPrivate: context.config.integrations.allowPrivateAddresses,
  path,
});

async function insertIntegration(
  context: AppContext,
  userId: string,
  values: Pick<
    IntegrationRow,
    'organizationId' | 'kind' | 'displayUrl' | 'sealedSecret' | 'url' | 'events'
  > & {
    description: string | null | undefined;
  },
) {
  return context.db.transaction(async (tx) => {
    await requireRole(tx, { userId, organizationId: values.organizationId, minRole: 'admin' });
    // Serialises creations in the organization, so the limit holds under concurrency.
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(hashtext('integrations:' || ${values.organizationId}))`,
    );
    const [existing] = await tx
      .select({ total: count() })
      .from(integrations)
      .where(eq(integrations.organizationId, values.organizationId));
    if ((existing?.total ?? 0) >= INTEGRATIONS_PER_ORGANIZATION) {
      throw errors.badRequest(
        `An organization may have at most ${INTEGRATIONS_PER_ORGANIZATION} webhooks and Slack integrations`,
        'INTEGRATION_LIMIT_REACHED',
      );
    }
    const now = context.clock.now();
    const [row] = await tx
      .insert(integrations)
      .values({
        ...values,
        description: values.description ?? null,
        createdBy: userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('integration insert returned nothing');
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'integration.created',
      targetType: 'integration',
      targetId: row.id,
      metadata: { kind: row.kind, url: row.displayUrl, events: row.events },
    });
    return row;
  });
}

export async function createWebhook(
  context: AppContext,
  userId: string,
  body: { organizationId: string; url: string; events: IntegrationEventType[]; description?: string | null },
) {
  await requireRole(context.db, { userId, organizationId: body.organizationId, minRole: 'admin' });
  const url = await assertDestination(body.url, destinationCheck(context, 'body.url'));
  const secret = newSigningSecret();
  const row = await insertIntegration(context, userId, {
    organizationId: body.organizationId,
    kind: 'webhook',
    url: url.href,
    displayUrl: url.href,
    sealedSecret: sealSecret(context.config.secret, secret),
    events: body.events,
    description: body.description,
  });
  return { ...toIntegrationView(row), secret };
}

export async function createSlackIntegration(
  context: AppContext,
  userId: string,
  body: {
    organizationId: string;
    webhookUrl: string;
    events: IntegrationEventType[];
    description?: string | null;
  },
) {
  await requireRole(context.db, { userId, organizationId: body.organizationId, minRole: 'admin' });
  const url = await assertDestination(body.webhookUrl, destinationCheck(context, 'body.webhookUrl'));
  const row = await insertIntegration(context, userId, {
    organizationId: body.organizationId,
    kind: 'slack',
    url: null,
    displayUrl: maskSlackUrl(url),
    sealedSecret: sealSecret(context.config.secret, url.href),
    events: body.events,
    description: body.description,
  });
  return toIntegrationView(row);
}

/** An organization's integrations, oldest first; any member may read them. */
export async function listIntegrations(
  db: Db,
  caller: Caller,
  query: { organizationId?: string | undefined },
  kind?: IntegrationKind,
) {
  const { organizationId, role } = await callerOrganization(db, caller, query.organizationId, {
    path: 'querystring',
  });
  const rows = await db
    .select()
    .from(integrations)
    .where(
      and(eq(integrations.organizationId, organizationId), kind ? eq(integrations.kind, kind) : undefined),
    )
    .orderBy(integrations.createdAt, integrations.id);
  return { data: rows.map((row) => toIntegrationView(row, role)) };
}

export async function getIntegration(db: Db, userId: string, id: string, kind: IntegrationKind) {
  const { row, role } = await requireIntegration(db, { userId, id, kind, minRole: 'viewer' });
  return toIntegrationView(row, role);
}

type IntegrationChange = {
  url?: string | undefined;
  webhookUrl?: string | undefined;
  events?: IntegrationEventType[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
  rotateSecret?: boolean | undefined;
};

/** Applies a PATCH; a new signing secret, when asked for, is in the answer (once). */
export async function updateIntegration(
  context: AppContext,
  userId: string,
  id: string,
  kind: IntegrationKind,
  change: IntegrationChange,
) {
  const newUrl = change.url ?? change.webhookUrl;
  const path = kind === 'slack' ? 'body.webhookUrl' : 'body.url';
  // Who may change it is settled before the URL is looked up (no DNS lookups for outsiders).
  if (newUrl) await requireIntegration(context.db, { userId, id, kind, minRole: 'admin' });
  const url = newUrl ? await assertDestination(newUrl, destinationCheck(context, path)) : undefined;
  const secret = change.rotateSecret ? newSigningSecret() : undefined;
  return context.db.transaction(async (tx) => {
    const { row: current } = await requireIntegration(tx, {
      userId,
      id,
      kind,
      minRole: 'admin',
      forUpdate: true,
    });
    const now = context.clock.now();
    const newDestination = url
      ? kind === 'slack'
        ? { displayUrl: maskSlackUrl(url), sealedSecret: sealSecret(context.config.secret, url.href) }
        : { displayUrl: url.href, url: url.href }
      : {};
    // Failures of the old destination say nothing about the new one.
    const destination = url ? { ...newDestination, failingSince: null, lastFailureAt: null } : {};
    const reenabled = change.enabled === true && !current.enabled;
    const [row] = await tx
      .update(integrations)
      .set({
        ...destination,
        ...(secret ? { sealedSecret: sealSecret(context.config.secret, secret) } : {}),
        ...(change.events ? { events: change.events } : {}),
        ...(change.description !== undefined ? { description: change.description } : {}),
        ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
        // Re-enabled by a person: the failure count starts again.
        ...(reenabled ? { disabledReason: null, failingSince: null, lastFailureAt: null } : {}),
        updatedAt: now,
      })
      .where(eq(integrations.id, id))
      .returning();
    if (!row) throw notFound(kind);
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'integration.updated',
      targetType: 'integration',
      targetId: row.id,
      metadata: { kind, fields: Object.keys(change).filter((key) => key !== 'rotateSecret' || secret) },
    });
    return secret ? { ...toIntegrationView(row), secret } : toIntegrationView(row);
  });
}

export async function deleteIntegration(
  context: AppContext,
  userId: string,
  id: string,
  kind: IntegrationKind,
) {
  return context.db.transaction(async (tx) => {
    const { row } = await requireIntegration(tx, { userId, id, kind, minRole: 'admin', forUpdate: true });
    // Its pending deliveries go with it (foreign key cascade): nothing is sent after the delete.
    await tx.delete(integrations).where(eq(integrations.id, id));
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'integration.deleted',
      targetType: 'integration',
      targetId: row.id,
      metadata: { kind, url: row.displayUrl },
    });
    return { id, deleted: true as const };
  });
}

const toDeliveryView = (row: typeof integrationDeliveries.$inferSelect): DeliveryView => ({
  id: row.id,
  integrationId: row.integrationId,
  eventId: row.eventId,
  eventType: row.eventType,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
  lastAttemptAt: row.lastAttemptAt,
  lastStatusCode: row.lastStatusCode,
  lastError: row.lastError,
  deliveredAt: row.deliveredAt,
  createdAt: row.createdAt,
  payload: row.payload,
});

/**
 * A webhook's deliveries, newest first. Admins only: the bodies carry the titles of whatever the
 * events were about.
 */
export async function listDeliveries(
  db: Db,
  userId: string,
  id: string,
  query: PageRequest & { status?: (typeof integrationDeliveries.$inferSelect)['status'] | undefined },
) {
  await requireIntegration(db, { userId, id, kind: 'webhook', minRole: 'admin' });
  const where = and(
    eq(integrationDeliveries.integrationId, id),
    query.status ? eq(integrationDeliveries.status, query.status) : undefined,
  );
  const { limit, offset } = pageBounds(query);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(integrationDeliveries)
      .where(where)
      .orderBy(desc(integrationDeliveries.createdAt), desc(integrationDeliveries.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(integrationDeliveries).where(where),
  ]);
  return toPage(rows.map(toDeliveryView), total?.total ?? 0, query);
}

/**
 * Sends a delivery again now, with the same event id (a receiver that already has it sees a
 * duplicate to ignore). Any delivery may be redelivered; one older than the retry window gets
 * this one attempt.
 */
export async function retryDelivery(context: AppContext, userId: string, id: string, deliveryId: string) {
  return context.db.transaction(async (tx) => {
    const { row: integration } = await requireIntegration(tx, {
      userId,
      id,
      kind: 'webhook',
      minRole: 'admin',
    });
    if (!integration.enabled) {
      throw errors.badRequest(
        'The webhook is disabled: enable it (PATCH enabled: true) first',
        'INTEGRATION_DISABLED',
      );
    }
    const [row] = await tx
      .update(integrationDeliveries)
      // The lease stays: a delivery being sent right now is not sent twice at once.
      .set({ status: 'pending', nextAttemptAt: context.clock.now() })
      .where(and(eq(integrationDeliveries.id, deliveryId), eq(integrationDeliveries.integrationId, id)))
      .returning();
    if (!row) throw errors.notFound('Delivery not found');
    await context.jobs.send(DELIVERY_JOB, {}, { tx });
    return toDeliveryView(row);
  });
}
