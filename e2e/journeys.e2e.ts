import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { firstLink } from '../test/helpers/smtp.ts';
import {
  addMeeting,
  axeViolations,
  fixture,
  keepFailure,
  mailedLink,
  position,
  type Stack,
  screenshot,
  signUp,
  startStack,
  uniqueEmail,
} from './support.ts';

const PASSWORD = 'correct horse battery staple';

/** The id of a collection, from its link in the library. */
async function collectionIdOf(page: Page, name: string) {
  await page.goto('/library');
  const href = await page.getByRole('link', { name, exact: true }).getAttribute('href');
  return href?.split('/').pop() as string;
}

describe('the web app in Chromium', () => {
  let stack: Stack;
  let context: BrowserContext;
  let page: Page;
  const owner = { name: 'Maria Owner', email: uniqueEmail('maria'), password: PASSWORD };
  let meetingId = '';

  beforeAll(async () => {
    stack = await startStack();
    context = await stack.newContext();
    page = await context.newPage();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail') await keepFailure(page, test.task.name);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shows the sign-in page at / to a stranger, and an API client still gets JSON there', async () => {
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');
    const api = await fetch(`${stack.baseUrl}/`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('offers the configured sign-in providers, and signs in with GitHub from its button', async () => {
    const fresh = await stack.newContext();
    const visitor = await fresh.newPage();
    await visitor.goto('/sign-in');
    await visitor.getByRole('link', { name: 'Continue with Google' }).waitFor();
    await visitor.getByRole('link', { name: 'Continue with GitHub' }).click();
    // The provider sends the browser back to the service, which lands it on the app's home page.
    await visitor.getByRole('heading', { name: 'Welcome, Grace Github' }).waitFor();
    expect(new URL(visitor.url()).pathname).toBe('/');
    await fresh.close();
  });

  it('signs up, adds a meeting from a transcript file, and plays its transcript in sync', async () => {
    await signUp(page, owner);
    meetingId = await addMeeting(page, 'Search launch planning', fixture('planning.vtt'));
    const lines = page.getByRole('list', { name: 'Transcript' }).getByRole('button');
    await expect.poll(() => lines.count()).toBe(9);
    await lines.nth(6).click();
    expect(await position(page)).toMatch(/^1:00 \//);
    await expect
      .poll(() => page.locator('[aria-current="true"]').textContent())
      .toContain('search v2 ships behind a feature flag');
    await page.getByRole('heading', { name: 'Decisions' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'meeting');
  });

  it('finds a phrase and opens the meeting at the second it was said', async () => {
    await page.getByLabel('Search meetings').fill('feature flag');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Results for “feature flag”' }).waitFor();
    const moment = page
      .getByRole('list', { name: 'Moments in Search launch planning' })
      .getByRole('link')
      .first();
    await moment.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'search');
    await moment.click();
    await page.getByRole('heading', { name: 'Search launch planning', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('t')).toBe('60');
    await expect.poll(() => position(page)).toMatch(/^1:00 \//);
    await expect.poll(() => page.locator('[aria-current="true"]').textContent()).toContain('feature flag');
  });

  it('answers a question with citations that open the meeting at their second', async () => {
    await page.getByRole('link', { name: 'Ask', exact: true }).click();
    await page.getByLabel('Your question').fill('Why did search go down on January 14?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const sources = page.getByRole('list', { name: 'Sources' });
    await sources.waitFor();
    const first = sources.getByRole('link').first();
    const label = (await first.textContent()) ?? '';
    const seconds = label.match(/(\d+):(\d{2})$/);
    expect(seconds).not.toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'ask');
    await first.click();
    await page.getByRole('heading', { name: 'Search launch planning', level: 1 }).waitFor();
    await expect.poll(() => position(page)).toMatch(new RegExp(`^${seconds?.[1]}:${seconds?.[2]} /`));
  });

  it('streams a conversation’s answer with its sources, and keeps the conversation', async () => {
    await page.goto('/ask');
    await page.getByLabel('Message').fill('What did we decide about search v2?');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('.message.assistant').last();
    await answer.getByRole('list', { name: 'Sources' }).getByRole('link').first().waitFor();
    expect(await answer.textContent()).toContain('feature flag');
    const earlier = page.getByRole('navigation', { name: 'Earlier conversations' }).getByRole('button');
    await expect.poll(() => earlier.count()).toBe(1);
    await page.reload();
    await earlier.first().click();
    await expect.poll(() => page.locator('.message').count()).toBe(2);
  });

  it('uploads a recording, which plays with seeking and is transcribed into a transcript that follows it', async () => {
    await page.goto('/library');
    await page.getByText('Add a meeting').click();
    await page.getByLabel('Title').fill('Night batch recording');
    await page.getByRole('button', { name: 'Add meeting' }).click();
    await page.getByRole('heading', { name: 'Night batch recording', level: 1 }).waitFor();
    await page
      .getByLabel('Upload a recording')
      .setInputFiles(path.join(import.meta.dirname, '../test/fixtures/media/speech.wav'));
    const player = page.locator('.player video');
    await player.waitFor();
    await expect
      .poll(() => player.evaluate((element: HTMLVideoElement) => element.readyState))
      .toBeGreaterThanOrEqual(1);
    expect(await player.evaluate((element: HTMLVideoElement) => Math.round(element.duration * 10) / 10)).toBe(
      2.3,
    );
    // The transcript arrives from the transcription job; its line seeks the recording.
    const line = page.getByRole('list', { name: 'Transcript' }).getByRole('button').first();
    await line.waitFor({ timeout: 30_000 });
    expect(await line.textContent()).toContain('The night batch job filled the disk.');
    await player.evaluate((element: HTMLVideoElement) => {
      element.currentTime = 1.5;
    });
    await expect.poll(() => position(page)).toMatch(/^0:01 \//);
    await line.click();
    await expect.poll(() => player.evaluate((element: HTMLVideoElement) => element.currentTime)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('cuts a clip from selected transcript lines and comments at a moment', async () => {
    await page.goto(`/videos/${meetingId}?t=30`);
    await expect.poll(() => position(page)).toMatch(/^0:30 \//);
    await page.getByRole('button', { name: 'Select lines for a clip' }).click();
    const lines = page.getByRole('list', { name: 'Transcript' }).getByRole('button');
    await lines.nth(3).click();
    await lines.nth(5).click();
    await page.getByText('Clip from 0:30 to 1:00').waitFor();
    await page.getByLabel('Clip title').fill('The outage and its fix');
    await page.getByRole('button', { name: 'Create clip' }).click();
    await page
      .getByRole('list', { name: 'Clips' })
      .getByRole('link', { name: 'The outage and its fix' })
      .waitFor();

    await page.getByLabel('Add a comment').fill('We need the disk alert before January 30.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    const comment = page.locator('.comment').filter({ hasText: 'We need the disk alert' });
    await comment.waitFor();
    await comment.getByRole('button', { name: '0:30' }).waitFor();
    await page.getByRole('button', { name: 'Done selecting' }).click();
    await lines.nth(8).click();
    await comment.getByRole('button', { name: '0:30' }).click();
    await expect.poll(() => position(page)).toMatch(/^0:30 \//);
  });

  it('opens a password-protected share link in a fresh browser', async () => {
    await page.goto(`/videos/${meetingId}`);
    await page.getByText('Share', { exact: true }).click();
    await page.getByLabel('Password (optional)').fill('open sesame 42');
    await page.getByRole('button', { name: 'Create share link' }).click();
    const url = await page.getByLabel('Share link').inputValue();
    expect(url).toMatch(new RegExp(`^${stack.baseUrl}/share/`));

    const stranger = await stack.newContext();
    const visitor = await stranger.newPage();
    await visitor.goto(url);
    await visitor.getByRole('heading', { name: 'This meeting is protected' }).waitFor();
    await visitor.getByLabel('Password').fill('wrong password');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByRole('alert').waitFor();
    await visitor.getByLabel('Password').fill('open sesame 42');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByRole('heading', { name: 'Search launch planning', level: 1 }).waitFor();
    await expect
      .poll(() => visitor.getByRole('list', { name: 'Transcript' }).getByRole('button').count())
      .toBe(9);
    await stranger.close();
  });

  it('keeps playlist progress across two meetings, reordered from the keyboard', async () => {
    const secondId = await addMeeting(page, 'Rollout review', fixture('planning.vtt'));
    await page.goto('/library');
    await page.getByText('New collection').click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Search launch');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: 'Search launch', exact: true }).waitFor();
    for (const id of [meetingId, secondId]) {
      await page.goto(`/videos/${id}`);
      await page.getByLabel('Add to a collection').selectOption({ label: 'Search launch (playlist)' });
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('link', { name: 'Search launch' }).waitFor();
    }
    await page.getByRole('link', { name: 'Search launch' }).click();
    await page.getByRole('heading', { name: 'Search launch', level: 1 }).waitFor();
    const titles = () => page.locator('.collection-item a').allTextContents();
    expect(await titles()).toEqual(['Search launch planning', 'Rollout review']);
    await page.getByRole('button', { name: 'Move Search launch planning down' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(titles).toEqual(['Rollout review', 'Search launch planning']);

    await page.getByText('0 of 2 watched (0%)').waitFor();
    await page.getByLabel('Watched: Rollout review').check();
    await page.getByText('1 of 2 watched (50%)').waitFor();
    expect(await page.getByRole('link', { name: 'Continue' }).getAttribute('href')).toBe(
      `/videos/${meetingId}`,
    );
    await screenshot(page, 'playlist');
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('heading', { name: 'Continue watching' }).waitFor();
    await page.getByText('1 of 2 watched').waitFor();

    const playlistId = await collectionIdOf(page, 'Search launch');
    await page.goto(`/collections/${playlistId}`);
    await page.getByLabel('Watched: Search launch planning').check();
    await page.getByText('2 of 2 watched (100%)').waitFor();
    expect(await page.getByRole('link', { name: 'Continue' }).count()).toBe(0);
  });

  it('invites a teammate by mail, who signs up from the link and sees the library', async () => {
    const teammate = { name: 'Daniel Teammate', email: uniqueEmail('daniel'), password: PASSWORD };
    await page.goto('/settings/organization');
    await page.getByLabel('Email').fill(teammate.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent.').waitFor();
    const link = firstLink(await stack.smtp.waitForMail(teammate.email));
    expect(link).toMatch(new RegExp(`^${stack.baseUrl}/invitations/`));

    const fresh = await stack.newContext();
    const invited = await fresh.newPage();
    await invited.goto(link);
    await invited.getByRole('heading', { name: 'You are invited' }).waitFor();
    await invited.getByLabel('Name').fill(teammate.name);
    await invited.getByLabel('Email').fill(teammate.email);
    await invited.getByLabel('Password').fill(teammate.password);
    await invited.getByRole('button', { name: 'Create account' }).click();
    await invited.getByRole('heading', { name: 'Library' }).waitFor();
    await invited.getByRole('link', { name: 'Search launch planning' }).waitFor();

    // The teammate comments; the owner's bell counts it live, with no reload.
    const bell = page.getByRole('link', { name: /^Notifications:/ });
    expect(await bell.getAttribute('aria-label')).toBe('Notifications: 0 unread');
    await invited.getByRole('link', { name: 'Search launch planning' }).click();
    await invited.getByLabel('Add a comment').fill('Looks right to me.');
    await invited.getByRole('button', { name: 'Comment', exact: true }).click();
    await invited.locator('.comment').filter({ hasText: 'Looks right to me.' }).waitFor();
    await expect.poll(() => bell.getAttribute('aria-label')).toBe('Notifications: 1 unread');
    await fresh.close();
    // The mail about it links to the meeting, which opens as a page.
    const commentLink = await mailedLink(stack, owner.email, `/videos/${meetingId}`);
    await page.goto(commentLink);
    await page.getByRole('heading', { name: 'Search launch planning', level: 1 }).waitFor();

    // The owner sees the new member and makes them a viewer.
    await page.goto('/settings/organization');
    const role = page.getByLabel(`Role of ${teammate.name}`);
    await role.waitFor();
    expect(await role.inputValue()).toBe('member');
    // The change is saved before the page is read again (a reload would cancel the request in flight).
    const saved = page.waitForResponse(
      (response) => response.request().method() === 'PATCH' && /\/members\//.test(response.url()),
    );
    await role.selectOption('viewer');
    expect((await saved).status()).toBe(200);
    await page.reload();
    await expect.poll(() => page.getByLabel(`Role of ${teammate.name}`).inputValue()).toBe('viewer');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('resets a forgotten password from the mailed link', async () => {
    const fresh = await stack.newContext();
    const visitor = await fresh.newPage();
    await visitor.goto('/sign-in');
    await visitor.getByRole('link', { name: 'Forgot your password?' }).click();
    await visitor.getByLabel('Email').fill(owner.email);
    await visitor.getByRole('button', { name: 'Send the link' }).click();
    await visitor.getByRole('status').filter({ hasText: 'on its way' }).waitFor();
    const link = await mailedLink(stack, owner.email, '/reset-password?token=');
    expect(link).toMatch(new RegExp(`^${stack.baseUrl}/reset-password\\?token=`));

    await visitor.goto(link);
    await visitor.getByLabel('New password').fill('a brand new passphrase');
    await visitor.getByRole('button', { name: 'Change password' }).click();
    await visitor.getByText('Your password is changed').waitFor();
    await visitor.getByLabel('Email').fill(owner.email);
    await visitor.getByLabel('Password').fill('a brand new passphrase');
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await visitor.getByRole('heading', { name: `Welcome, ${owner.name}` }).waitFor();
    await fresh.close();
  });
});
