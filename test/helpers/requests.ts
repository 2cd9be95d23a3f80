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
