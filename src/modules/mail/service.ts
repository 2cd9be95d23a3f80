import { eq } from 'drizzle-orm';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Tx } from '../../db/client.ts';
import { mailOutbox } from '../../db/schema/index.ts';
import type { JobDefinition, JobQueue } from '../../jobs/queue.ts';

export type Mail = { to: string; subject: string; text: string };

/**
 * Queues a mail inside the caller's transaction: the outbox row and its delivery job commit
 * or roll back with the change that caused them. Delivery happens in the `mail-delivery` job,
 * never inside the request.
 */
export async function queueMail(tx: Tx, jobs: Pick<JobQueue, 'send'>, mail: Mail): Promise<string> {
  const [row] = await tx.insert(mailOutbox).values(mail).returning({ id: mailOutbox.id });
  if (!row) throw new Error('mail_outbox insert returned nothing');
  await jobs.send(MAIL_DELIVERY_JOB, { mailId: row.id }, { tx });
  return row.id;
}

export const MAIL_DELIVERY_JOB = 'mail-delivery';

const transports = new Map<string, Transporter>();
const transportFor = (smtpUrl: string) => {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport(smtpUrl);
    transports.set(smtpUrl, transport);
  }
  return transport;
};

/**
 * Once delivered, the body is dropped: it may carry one-time tokens (resets, invitations), which
 * must not outlive their delivery in clear text.
 */
const delivered = (status: 'sent' | 'logged') => ({ status, sentAt: new Date(), text: '' });

/** Sends one outbox mail over SMTP, or, without SMTP_URL, writes it to the log. Retried with backoff on failure. */
export const mailDeliveryJob = (mailConfig: {
  smtpUrl: string | undefined;
  mailFrom: string;
}): JobDefinition => ({
  name: MAIL_DELIVERY_JOB,
  queue: { retryLimit: 8, retryDelay: 30, retryBackoff: true },
  handler: async (data, { db, logger }) => {
    const { mailId } = data as { mailId: string };
    const [mail] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, mailId));
    if (!mail || mail.status === 'sent' || mail.status === 'logged') return;
    if (!mailConfig.smtpUrl) {
      // No SMTP server configured: the log is the delivery channel (it carries reset and invitation links).
      logger.warn(
        { mailId, to: mail.to, subject: mail.subject, text: mail.text },
        'mail not sent (no SMTP_URL)',
      );
      await db.update(mailOutbox).set(delivered('logged')).where(eq(mailOutbox.id, mailId));
      return;
    }
    try {
      await transportFor(mailConfig.smtpUrl).sendMail({
        from: mailConfig.mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
      await db.update(mailOutbox).set(delivered('sent')).where(eq(mailOutbox.id, mailId));
    } catch (error) {
      await db
        .update(mailOutbox)
        .set({ status: 'failed', attempts: mail.attempts + 1, lastError: (error as Error).message })
        .where(eq(mailOutbox.id, mailId));
      throw error;
    }
  },
});
