import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import type { SignedUpUser } from './factories.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** inject() as a signed-up user (or anonymously with null), with a JSON body when given. */
export const requester =
  (ctx: () => TestApp) =>
  (user: SignedUpUser | null, method: Method, url: string, payload?: object, headers: object = {}) =>
    ctx().app.inject({
      method,
      url,
      headers: { ...(user ? user.headers : {}), ...headers },
      ...(payload ? { payload } : {}),
    });

/** `POST /ai/qa` as a user, expecting 201: the answer, typed as the test reads it. */
export const qaAsker = <Answer>(ctx: () => TestApp) => {
  const request = requester(ctx);
  return async (user: SignedUpUser, payload: Record<string, unknown>) => {
    const response = await request(user, 'POST', '/ai/qa', payload);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as Answer;
  };
};
