import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { startSmtpServer } from '../../../test/helpers/smtp.ts';
import { mailOutbox } from '../../db/schema/index.ts';
import { queueMail } from './service.ts';

async function waitForStatus(testApp: TestApp, mailId: string, status: string) {
  const deadline = Date.now() + 15_000;
  let current: string | undefined;
  while (Date.now() < deadline) {
    [{ status: current } = { status: undefined }] = await testApp.database.db
      .select({ status: mailOutbox.status })
      .from(mailOutbox)
      .where(eq(mailOutbox.id, mailId));
    if (current === status) return;
    await sleep(100);
  }
  throw new Error(`mail ${mailId} is ${current}, not ${status}`);
}

describe('mail delivery through a real SMTP server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let testApp: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testApp = await buildTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Hub <hub@example.com>' } });
  });
  afterAll(async () => {
    await testApp?.close();
    await smtp?.close();
  });

  it('delivers a mail queued in a transaction once it commits, and marks it sent', async () => {
    const mailId = await testApp.database.db.transaction((tx) =>
      queueMail(tx, testApp.jobs, {
        to: 'ada@example.com',
        subject: 'Héllo',
        text: `Open ${'x'.repeat(90)} é`,
      }),
    );
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.from).toBe('hub@example.com');
    expect(mail.text).toContain(`Open ${'x'.repeat(90)} é`);
    await waitForStatus(testApp, mailId, 'sent');
    // The body (which may hold one-time tokens) does not outlive delivery.
    const [row] = await testApp.database.db.select().from(mailOutbox).where(eq(mailOutbox.id, mailId));
    expect(row).toMatchObject({ status: 'sent', text: '', to: 'ada@example.com', subject: 'Héllo' });
  });

  it('sends nothing when the transaction rolls back', async () => {
    await expect(
      testApp.database.db.transaction(async (tx) => {
        await queueMail(tx, testApp.jobs, { to: 'rollback@example.com', subject: 'No', text: 'never' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await sleep(1500);
    expect(smtp.received.some((mail) => mail.to.includes('rollback@example.com'))).toBe(false);
    const rows = await testApp.database.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.to, 'rollback@example.com'));
    expect(rows).toEqual([]);
  });
});

describe('mail without SMTP_URL', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await buildTestApp();
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('keeps the mail in the outbox, marked logged', async () => {
    const mailId = await testApp.database.db.transaction((tx) =>
      queueMail(tx, testApp.jobs, {
        to: 'nobody@example.com',
        subject: 'Reset',
        text: 'http://localhost/reset',
      }),
    );
    await waitForStatus(testApp, mailId, 'logged');
  });
});
