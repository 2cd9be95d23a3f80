import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';

export type SignedUpUser = {
  id: string;
  email: string;
  name: string;
  password: string;
  /** The session token: use as `Authorization: Bearer <token>`. */
  token: string;
  /** The personal organization created at sign-up, where the user is owner. */
  organizationId: string;
  /** `{authorization: 'Bearer …'}`, for inject(). */
  headers: { authorization: string };
};

/** Signs up a fresh user through the API (unique email unless given). */
export async function signUpUser(
  app: App,
  overrides: { email?: string; name?: string; password?: string } = {},
): Promise<SignedUpUser> {
  const email = overrides.email ?? `user-${randomBytes(5).toString('hex')}@example.com`;
  const name = overrides.name ?? 'Test User';
  const password = overrides.password ?? 'correct horse battery staple';
  const response = await app.inject({
    method: 'POST',
    url: '/auth/sign-up',
    payload: { email, name, password },
  });
  if (response.statusCode !== 201) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  const { user, session } = response.json().data;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    password,
    token: session.sessionId,
    organizationId: user.defaultOrganizationId,
    headers: { authorization: `Bearer ${session.sessionId}` },
  };
}

/** `name=value` pairs of the Set-Cookie headers of a response, for sending back as a Cookie header. */
export function cookiesOf(response: {
  cookies: Array<{ name: string; value: string }>;
}): Record<string, string> {
  return Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
}

export const cookieHeader = (cookies: Record<string, string>) =>
  Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');

/** The user with an API key of theirs in place of their session (keys do not expire with the clock). */
export async function withApiKey<U extends SignedUpUser>(testApp: { app: App }, user: U): Promise<U> {
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/users/me/api-keys',
    headers: user.headers,
    payload: { name: 'test key' },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { ...user, headers: { authorization: `Bearer ${response.json().key}` } };
}
