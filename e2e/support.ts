import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { githubIdentity, googleIdentity, startOAuthServer } from '../test/helpers/oauth-server.ts';
import { freePort } from '../test/helpers/ports.ts';
import { startService, waitForExit, waitForHttp } from '../test/helpers/process.ts';
import { startSmtpServer } from '../test/helpers/smtp.ts';
import { startTranscriptionServer } from '../test/helpers/transcription-server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Screenshots of the main pages, shown in docs/web.md. */
export const SCREENSHOTS = path.join(root, 'docs', 'web');
/** What a failing journey leaves behind for a person to look at. */
export const ARTIFACTS = path.join(root, 'e2e', 'artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const fixture = (name: string) => path.join(root, 'e2e', 'fixtures', name);

/** `npm run seed` into DATA_DIR (before the service starts: one embedded cluster per directory). */
function seedDemo(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['scripts/seed/run.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const account = /Sign in as (\S+) with password (.+?) \(/.exec(run.stdout);
  if (run.status !== 0 || !account) throw new Error(`seeding failed:\n${run.stdout}\n${run.stderr}`);
  return { email: account[1] as string, password: account[2] as string };
}

/**
 * The service as `npm start` runs it (embedded PostgreSQL in a temporary DATA_DIR), a real SMTP
 * server and Chromium; `seeded` loads the demo library first, as `npm run seed` does.
 */
export async function startStack({ seeded = false }: { seeded?: boolean } = {}) {
  if (!existsSync(path.join(root, 'web', 'dist', 'index.html'))) {
    throw new Error('web/dist is missing: run `npm run build:web` (npm install does it)');
  }
  const smtp = await startSmtpServer();
  // Sign-in with GitHub and Google: a loopback stand-in for both providers.
  const oauth = await startOAuthServer();
  oauth.setIdentity('github', githubIdentity({ name: 'Grace Github' }));
  oauth.setIdentity('google', googleIdentity());
  // Speech to text: a loopback stand-in that speaks the OpenAI transcription protocol.
  const speechToText = await startTranscriptionServer();
  speechToText.say([{ start: 0, end: 2.2, text: 'The night batch job filled the disk.' }], 2.27);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-e2e-'));
  // Run as root, the embedded PostgreSQL runs as the `postgres` user, which must reach the directory.
  chmodSync(dataDir, 0o777);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const database = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
  const demo = seeded ? seedDemo(database) : null;
  const service = startService({
    PORT: String(port),
    ...database,
    APP_URL: baseUrl,
    SMTP_URL: smtp.url,
    ...oauth.env,
    TRANSCRIBE_PROVIDER: 'openai-compatible',
    TRANSCRIBE_BASE_URL: speechToText.baseUrl,
    LOG_LEVEL: 'warn',
    // Journeys sign in many times from one address.
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  await waitForHttp(service, `${baseUrl}/health/ready`, 90_000);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    baseUrl,
    /** The demo account, when seeded. */
    demo,
    smtp,
    browser,
    /** A fresh browser (no cookies), at the service's address. */
    newContext: (): Promise<BrowserContext> =>
      browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 860 } }),
    async stop() {
      await browser.close();
      service.child.kill('SIGTERM');
      await waitForExit(service, 30_000);
      await smtp.close();
      await speechToText.close();
      await oauth.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    output: () => service.output(),
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

let counter = 0;
/** A unique email per journey, so that journeys never share an account by accident. */
export const uniqueEmail = (name: string) => `${name}-${Date.now().toString(36)}-${counter++}@example.com`;

export async function signUp(
  page: Page,
  { name, email, password }: { name: string; email: string; password: string },
) {
  await page.goto('/sign-up');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
}

/** Adds a meeting through the library's form with a transcript file, and lands on its page. */
export async function addMeeting(page: Page, title: string, transcriptFile: string) {
  await page.goto('/library');
  await page.getByText('Add a meeting').click();
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Transcript file (optional)').setInputFiles(transcriptFile);
  await page.getByRole('button', { name: 'Add meeting' }).click();
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  await page.getByRole('list', { name: 'Transcript' }).waitFor();
  return new URL(page.url()).pathname.split('/').pop() as string;
}

/** The player's position, as it shows it (`1:10 / 1:30`). */
export const position = async (page: Page) =>
  (await page.getByTestId('position').textContent())?.trim() ?? '';

/** Accessibility rules of WCAG 2.x A and AA, checked by axe-core in the page. */
export async function axeViolations(page: Page) {
  const source = readFileSync(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: unknown,
            options: unknown,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
}

export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

export async function keepFailure(page: Page, name: string) {
  await page
    .screenshot({ path: path.join(ARTIFACTS, `${name.replace(/[^\w-]+/g, '-')}.png`), fullPage: true })
    .catch(() => {});
}

/** The first link of the newest mail to `to` whose text has `marker` (other mails may arrive meanwhile). */
export async function mailedLink(stack: Stack, to: string, marker: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const mail = stack.smtp.received.findLast(
      (candidate) => candidate.to.includes(to.toLowerCase()) && candidate.text.includes(marker),
    );
    const link = mail?.text.match(new RegExp(`https?://\\S*${marker.replace(/[?]/g, '\\?')}\\S*`))?.[0];
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail to ${to} with ${marker} within ${timeoutMs} ms`);
}
