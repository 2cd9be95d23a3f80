import type { Db, Tx } from '../../db/client.ts';
import { activityEvents } from '../../db/schema/index.ts';

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

/** Records a mutation. Call it with the transaction that makes the change, so both commit or neither. */
export async function recordActivity(tx: Db | Tx, event: ActivityEvent): Promise<void> {
  await tx.insert(activityEvents).values({ ...event, metadata: event.metadata ?? {} });
}
