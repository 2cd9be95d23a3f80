import { and, asc, eq } from 'drizzle-orm';
import { beforeAll } from 'vitest';
import { type TestApp, useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { activityEvents } from '../../db/schema/index.ts';
import { type Team, team } from '../transcripts/test-support.ts';

/** Arrangement helpers for the search history, saved search and suggestion tests. */

export { errorBody, isoDate, pathsOf, unknownId } from '../share-links/test-support.ts';

export type Crew = Team & { outsider: SignedUpUser };

/** A file-wide test app with a team of every role and an outsider (with an organization of their own). */
export function useSearchTestApp() {
  const ctx = useTestApp();
  let crew: Crew | undefined;
  beforeAll(async () => {
    const members = await team(ctx());
    crew = { ...members, outsider: await signUpUser(ctx().app, { name: 'Otto Outsider' }) };
  });
  return {
    ctx,
    crew: () => {
      if (!crew) throw new Error('useSearchTestApp: the crew is not set up yet');
      return crew;
    },
    call: requester(ctx),
  };
}

/** The activity events an actor caused with one action, oldest first. */
export const activityOf = (testApp: TestApp, actorId: string, action: string) =>
  testApp.database.db
    .select({
      organizationId: activityEvents.organizationId,
      targetType: activityEvents.targetType,
      targetId: activityEvents.targetId,
      metadata: activityEvents.metadata,
    })
    .from(activityEvents)
    .where(and(eq(activityEvents.actorId, actorId), eq(activityEvents.action, action)))
    .orderBy(asc(activityEvents.createdAt), asc(activityEvents.id));
