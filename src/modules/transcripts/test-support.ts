import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import type { TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { activityEvents, memberships, videos } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';

/** Arrangement helpers for the transcript tests: videos are inserted directly, independent of POST /videos. */

export const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

export const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/transcripts/${name}`, import.meta.url), 'utf8');

export async function insertVideo(
  testApp: TestApp,
  author: { id: string; organizationId: string },
  fields: Partial<typeof videos.$inferInsert> = {},
) {
  const [video] = await testApp.database.db
    .insert(videos)
    .values({
      organizationId: author.organizationId,
      authorId: author.id,
      title: 'Design review: onboarding checklist',
      duration: '20:00',
      durationSeconds: 1200,
      ...fields,
    })
    .returning();
  if (!video) throw new Error('no video inserted');
  return video;
}

export type Team = {
  organizationId: string;
  owner: SignedUpUser;
  admin: SignedUpUser;
  member: SignedUpUser;
  otherMember: SignedUpUser;
  viewer: SignedUpUser;
};

/** An organization (the owner's personal one) with one member of each role. */
export async function team(testApp: TestApp): Promise<Team> {
  const owner = await signUpUser(testApp.app, { name: 'Olga Owner' });
  const join = async (name: string, role: Role) => {
    const user = await signUpUser(testApp.app, { name });
    await testApp.database.db
      .insert(memberships)
      .values({ organizationId: owner.organizationId, userId: user.id, role });
    return user;
  };
  return {
    organizationId: owner.organizationId,
    owner,
    admin: await join('Ada Admin', 'admin'),
    member: await join('Max Member', 'member'),
    otherMember: await join('Mia Member', 'member'),
    viewer: await join('Vic Viewer', 'viewer'),
  };
}

/** The author as `insertVideo` wants it: a user acting in the team's organization. */
export const inTeam = (crew: Team, user: SignedUpUser) => ({
  id: user.id,
  organizationId: crew.organizationId,
});

export async function activityFor(testApp: TestApp, action: string, targetId: string) {
  return testApp.database.db
    .select()
    .from(activityEvents)
    .where(and(eq(activityEvents.action, action), eq(activityEvents.targetId, targetId)));
}
