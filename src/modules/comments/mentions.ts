import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { memberships } from '../../db/schema/index.ts';
import { UUID_PATTERN } from '../../http/ids.ts';

/** Distinct people one comment may mention. */
export const MENTIONS_MAX = 50;

/** `@[Display Name](userId)`: the name as the writer's client showed it, then the id it stands for. */
const MENTION = /@\[([^\]\n]+)\]\(([^)\s]+)\)/g;

/** The distinct user ids mentioned in a body, in order of first appearance (ids that are not UUIDs name no one). */
export function mentionedUserIds(body: string): string[] {
  const ids = new Set<string>();
  for (const [, , id] of body.matchAll(MENTION)) {
    if (id && UUID_PATTERN.test(id)) ids.add(id.toLowerCase());
  }
  return [...ids];
}

/** The body as people read it: each mention becomes `@Name`. */
export const renderMentions = (body: string) => body.replace(MENTION, (_match, name: string) => `@${name}`);

/** The ids among `userIds` that belong to the organization: only they are mentioned and notified. */
export async function membersAmong(tx: Tx, organizationId: string, userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), inArray(memberships.userId, userIds)));
  const members = new Set(rows.map((row) => row.userId));
  return userIds.filter((id) => members.has(id));
}
