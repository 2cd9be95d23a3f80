import type { Tx } from '../../db/client.ts';
import { activityEvents } from '../../db/schema/index.ts';
import { eventTypeOfAction, queueIntegrationEvent } from '../integrations/events.ts';

export type ActivityEvent = {
  /** Null for events that concern only a user's own account. */
  organizationId: string | null;
  actorId: string | null;
  /** `<targetType>.<verb>`, e.g. `video.created`, `member.role_changed`. */
  action: string;
  targetType: string;
  targetId: string | null;
  /** A few facts worth showing in a feed (a title, a new role); never secrets. */
  metadata?: Record<string, unknown>;
};

/**
 * Records a mutation. Call it with the transaction that makes the change, so both commit or
 * neither — and so does its webhook and Slack outbox entry when the action is an integration event.
 */
export async function recordActivity(tx: Tx, event: ActivityEvent): Promise<void> {
  await tx.insert(activityEvents).values({ ...event, metadata: event.metadata ?? {} });
  const type = eventTypeOfAction(event.action);
  if (type && event.organizationId) {
    const about =
      // Who joined, not the invitation: a receiver can look the person up, not the used invitation.
      type === 'member.joined'
        ? { object: 'user', id: event.actorId, invitationId: event.targetId }
        : { object: event.targetType, id: event.targetId };
    await queueIntegrationEvent(tx, {
      organizationId: event.organizationId,
      type,
      data: { ...event.metadata, ...about, organizationId: event.organizationId, actorId: event.actorId },
    });
  }
}
