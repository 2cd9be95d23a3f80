import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { memberships } from '../../db/schema/index.ts';
import { recordActivity } from '../activity/service.ts';
import { type NotifyContext, notify } from '../notifications/notify.ts';

/**
 * A billing event: written to the activity log and told to the organization's owners (the people
 * who pay), in the transaction that made it happen.
 */
export async function announceBillingEvent(
  tx: Tx,
  context: NotifyContext,
  event: {
    organizationId: string;
    actorId: string | null;
    /** `subscription.created`, `invoice.paid`, … */
    action: string;
    targetType: 'subscription' | 'invoice' | 'organization';
    targetId: string;
    title: string;
    body: string;
    metadata?: Record<string, unknown>;
  },
) {
  await recordActivity(tx, {
    organizationId: event.organizationId,
    actorId: event.actorId,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    metadata: event.metadata ?? {},
  });
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, event.organizationId), eq(memberships.role, 'owner')));
  await notify(tx, context, {
    type: 'billing',
    recipientIds: owners.map((owner) => owner.userId),
    organizationId: event.organizationId,
    // Owners hear of every billing event, their own actions included: it is a receipt.
    actorId: null,
    title: event.title,
    body: event.body,
    targetType: event.targetType,
    targetId: event.targetId,
    data: { action: event.action },
  });
}
