import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import type { ReceivedMail } from '../../../test/helpers/smtp.ts';
import type { AppContext } from '../../context.ts';
import { notifications } from '../../db/schema/index.ts';
import type { MailingTestApp } from '../organizations/test-support.ts';
import { type NotificationInput, notify } from './notify.ts';

/** Arrangement helpers for the notification tests. */

export { isoDate } from '../../../test/helpers/assertions.ts';

export const errorBody = (code: string, error: string = expect.any(String)) => ({
  success: false,
  error,
  code,
});

export const pathsOf = (body: { details: Array<{ path: string }> }) =>
  body.details.map((detail) => detail.path).sort();

/** The context the app's services get, built from the test app. */
export const contextOf = (testApp: TestApp): AppContext => ({
  config: testApp.config,
  db: testApp.database.db,
  jobs: testApp.jobs,
  clock: testApp.clock,
  logger: testApp.app.log,
});

/** Notifies directly, as a module's mutation would, in a transaction of its own. */
export async function notifyDirectly(
  testApp: TestApp,
  input: Pick<NotificationInput, 'recipientIds'> & Partial<NotificationInput>,
) {
  await testApp.database.db.transaction((tx) =>
    notify(tx, contextOf(testApp), {
      type: 'comment',
      organizationId: null,
      actorId: null,
      title: 'Someone commented on your video',
      body: 'Looks good',
      targetType: null,
      targetId: null,
      ...input,
    }),
  );
}

/** The stored notifications of a user, oldest first. */
export const notificationRowsOf = (testApp: TestApp, user: Pick<SignedUpUser, 'id'>) =>
  testApp.database.db
    .select()
    .from(notifications)
    .where(eq(notifications.userId, user.id))
    .orderBy(asc(notifications.id));

/** A header as written, with its RFC 2047 encoded words (`=?UTF-8?Q?…?=`) decoded. */
export const decodedHeader = (value: string) =>
  value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_word, encoding: string, text: string) =>
      encoding.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9a-f]{2})/gi, (_match, hex: string) =>
                String.fromCharCode(Number.parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
    );

/** Waits until `count` mails to `email` have arrived at the test SMTP server, and returns them. */
export async function mailsTo(
  testApp: MailingTestApp,
  email: string,
  count: number,
): Promise<ReceivedMail[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const received = testApp.smtp.received.filter((mail) => mail.to.includes(email.toLowerCase()));
    if (received.length >= count) return received;
    if (Date.now() > deadline) throw new Error(`${received.length} of ${count} mails to ${email} arrived`);
    await sleep(25);
  }
}
