import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = { from: string; to: string[]; subject: string; text: string; raw: string };

/**
 * A real SMTP server on loopback that keeps what it receives. Point the app at it with
 * `env: { SMTP_URL: smtp.url }`.
 */
export async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(parseMail(Buffer.concat(chunks).toString('utf8'), session.envelope));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Waits until a mail to `to` arrives (and returns the newest one). */
    async waitForMail(to: string, timeoutMs = 15_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const mail = received.findLast((candidate) => candidate.to.includes(to.toLowerCase()));
        if (mail) return mail;
        await sleep(50);
      }
      throw new Error(
        `no mail to ${to} within ${timeoutMs} ms (received: ${received.map((m) => m.to).join(', ')})`,
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Envelope = { mailFrom: false | { address: string }; rcptTo: Array<{ address: string }> };

function parseMail(raw: string, envelope: Envelope): ReceivedMail {
  const separator = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, separator).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(separator + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return {
    from: envelope.mailFrom ? envelope.mailFrom.address : '',
    to: envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
    subject: header('Subject'),
    text: text.replace(/\r\n/g, '\n'),
    raw,
  };
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The first URL in a mail's text. */
export function firstLink(mail: ReceivedMail): string {
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no link in mail: ${mail.text}`);
  return link;
}
