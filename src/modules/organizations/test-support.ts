import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { type ReceivedMail, startSmtpServer } from '../../../test/helpers/smtp.ts';
import type { Role } from '../../db/schema/users.ts';

/** Arrangement helpers for the organization tests: they go through the API and real mail, as a client would. */

export type MailingTestApp = TestApp & { smtp: Awaited<ReturnType<typeof startSmtpServer>> };

/** A file-wide test app that delivers its mail to a real SMTP server (invitation tokens travel only by mail). */
export function useMailingTestApp(env: Record<string, string> = {}): () => MailingTestApp {
  let testApp: MailingTestApp | undefined;
  let smtp: MailingTestApp['smtp'] | undefined;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    testApp = Object.assign(await buildTestApp({ env: { SMTP_URL: smtp.url, ...env } }), { smtp });
  });
  afterAll(async () => {
    await testApp?.close();
    await smtp?.close();
  });
  return () => {
    if (!testApp) throw new Error('useMailingTestApp: the app is not built yet (use it inside a test)');
    return testApp;
  };
}

export const errorBody = (code: string, error: string = expect.any(String)) => ({
  success: false,
  error,
  code,
});

const mailsTo = (testApp: MailingTestApp, email: string) =>
  testApp.smtp.received.filter((mail) => mail.to.includes(email));

/** Waits for the mail to `email` after the first `seen` ones. */
async function nextMailTo(testApp: MailingTestApp, email: string, seen: number): Promise<ReceivedMail> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const mail = mailsTo(testApp, email)[seen];
    if (mail) return mail;
    await sleep(25);
  }
  throw new Error(`no invitation mail to ${email}`);
}

export const tokenOf = (mail: ReceivedMail): string => {
  const token = /\/invitations\/([\w-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no invitation link in: ${mail.text}`);
  return token;
};

/** Invites `email` and returns the invitation's id and the token from the mail it received. */
export async function invite(
  testApp: MailingTestApp,
  organizationId: string,
  inviter: SignedUpUser,
  email: string,
  role: Role,
): Promise<{ id: string; token: string }> {
  const seen = mailsTo(testApp, email).length;
  const response = await testApp.app.inject({
    method: 'POST',
    url: `/organizations/${organizationId}/invitations`,
    headers: inviter.headers,
    payload: { email, role },
  });
  if (response.statusCode !== 201) throw new Error(`invite failed: ${response.statusCode} ${response.body}`);
  return { id: response.json().id, token: tokenOf(await nextMailTo(testApp, email, seen)) };
}

async function acceptAs(testApp: MailingTestApp, user: SignedUpUser, token: string) {
  const response = await testApp.app.inject({
    method: 'POST',
    url: `/invitations/${token}/accept`,
    headers: user.headers,
  });
  if (response.statusCode !== 201) throw new Error(`accept failed: ${response.statusCode} ${response.body}`);
}

/** Signs up a new user and makes them a member with `role` through an accepted invitation. */
export async function addMember(
  testApp: MailingTestApp,
  organizationId: string,
  inviter: SignedUpUser,
  role: Role,
): Promise<SignedUpUser> {
  const user = await signUpUser(testApp.app);
  await acceptAs(testApp, user, (await invite(testApp, organizationId, inviter, user.email, role)).token);
  return user;
}

/**
 * An organization (the owner's personal one) with a member of each role, who joined in the order
 * admin, member, viewer, and an outsider with an organization of their own.
 */
export async function team(testApp: MailingTestApp) {
  const names = ['Olivia Owner', 'Adam Admin', 'Mia Member', 'Vic Viewer', 'Otto Outsider'];
  const [owner, admin, member, viewer, outsider] = (await Promise.all(
    names.map((name) => signUpUser(testApp.app, { name })),
  )) as [SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser];
  const organizationId = owner.organizationId;
  const joining: Array<[SignedUpUser, Role]> = [
    [admin, 'admin'],
    [member, 'member'],
    [viewer, 'viewer'],
  ];
  // Mail delivery is the slow part: invite everyone at once, then accept in order.
  const invitations = await Promise.all(
    joining.map(([user, role]) => invite(testApp, organizationId, owner, user.email, role)),
  );
  for (const [index, [user]] of joining.entries()) {
    await acceptAs(testApp, user, invitations[index]?.token as string);
  }
  return { organizationId, owner, admin, member, viewer, outsider };
}

export type Team = Awaited<ReturnType<typeof team>>;
