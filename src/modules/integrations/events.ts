import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Tx } from '../../db/client.ts';

/** What an integration can subscribe to, and what each means (shown in the API reference). */
export const INTEGRATION_EVENTS = {
  'video.created': 'A video was added',
  'video.updated': 'A video’s details changed',
  'video.deleted': 'A video was moved to the trash, deleted for good, or purged from the trash',
  'transcript.ready': 'A video’s transcript was stored or replaced',
  'knowledge.extracted': 'Summary, decisions, action items and questions were extracted from a transcript',
  'comment.created': 'A comment or reply was posted',
  'clip.created': 'A clip was cut',
  'member.joined': 'Someone joined the organization (an accepted invitation)',
  'member.left': 'A member left or was removed',
  'subscription.created': 'A paid subscription started',
  'subscription.updated':
    'The plan, seats or interval changed, or a cancellation at the period’s end was set or withdrawn',
  'subscription.canceled': 'The subscription ended (the organization is on the free plan again)',
  'invoice.paid': 'An invoice was paid',
  'digest.weekly': 'Slack only: every Monday, the week’s meetings, decisions, open action items and top gaps',
} as const;

export type IntegrationEventType = keyof typeof INTEGRATION_EVENTS;
export const integrationEventTypes = Object.keys(INTEGRATION_EVENTS) as [
  IntegrationEventType,
  ...IntegrationEventType[],
];

/** Activity actions that are integration events under another name; the rest keep their own. */
const EVENT_OF_ACTION: Partial<Record<string, IntegrationEventType>> = {
  'transcript.updated': 'transcript.ready',
  'video.purged': 'video.deleted',
  'invitation.accepted': 'member.joined',
  'member.removed': 'member.left',
  'subscription.cancellation_scheduled': 'subscription.updated',
  'subscription.cancellation_withdrawn': 'subscription.updated',
};

export function eventTypeOfAction(action: string): IntegrationEventType | null {
  const type = EVENT_OF_ACTION[action] ?? action;
  return type in INTEGRATION_EVENTS && type !== 'digest.weekly' ? (type as IntegrationEventType) : null;
}

/** PostgreSQL channel that wakes the delivery job when the outbox gets rows (see wake.ts). */
export const DELIVERY_CHANNEL = 'knowledge_hub_deliveries';

export type IntegrationEvent = {
  organizationId: string;
  type: IntegrationEventType;
  /** Thin by design: the object's kind and id plus a few facts; a receiver fetches the rest. */
  data: Record<string, unknown>;
  /** Deliver only to this integration (a Slack digest is per channel); default: every subscriber. */
  integrationId?: string;
};

/**
 * Writes the event to the outbox, one delivery per enabled integration of the organization that
 * subscribes to its type, in the caller's transaction: the event exists exactly when the change
 * does. One statement, which inserts nothing (and costs one index probe) when nobody listens.
 * pg_notify is delivered on commit, and only if a delivery was queued.
 */
export async function queueIntegrationEvent(tx: Tx, event: IntegrationEvent): Promise<void> {
  const eventId = uuidv7();
  const payload = { id: eventId, type: event.type, createdAt: new Date().toISOString(), data: event.data };
  const onlyIntegration = event.integrationId ? sql`AND id = ${event.integrationId}` : sql``;
  await tx.execute(sql`
    WITH queued AS (
      INSERT INTO integration_deliveries (id, integration_id, organization_id, event_id, event_type, payload)
      SELECT gen_random_uuid(), id, organization_id, ${eventId}, ${event.type}, ${JSON.stringify(payload)}::jsonb
        FROM integrations
       WHERE organization_id = ${event.organizationId} AND enabled AND ${event.type} = ANY(events) ${onlyIntegration}
      RETURNING 1
    )
    SELECT pg_notify(${DELIVERY_CHANNEL}, '') FROM (SELECT 1 FROM queued LIMIT 1) AS any_queued`);
}
