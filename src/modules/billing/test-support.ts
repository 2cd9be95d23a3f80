import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';

/** Billing arrangements through the API and the checkout page, as a buyer would go. */

/** The path and query of an absolute link the API handed out, for inject(). */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

export async function startCheckout(
  testApp: TestApp,
  user: SignedUpUser,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return testApp.app.inject({
    method: 'POST',
    url: '/billing/checkout',
    headers: { ...user.headers, ...headers },
    payload,
  });
}

/** Starts a checkout and confirms it on its page: the organization is subscribed. */
export async function subscribe(testApp: TestApp, owner: SignedUpUser, payload: Record<string, unknown>) {
  const started = await startCheckout(testApp, owner, payload);
  expect(started.statusCode, started.body).toBe(201);
  const confirmed = await testApp.app.inject({ method: 'POST', url: pathOf(started.json().url) });
  expect(confirmed.statusCode, confirmed.body).toBe(303);
  return started.json() as { sessionId: string; url: string; amount: number };
}

export async function subscriptionOf(
  testApp: TestApp,
  user: SignedUpUser,
  organizationId = user.organizationId,
) {
  const response = await testApp.app.inject({
    method: 'GET',
    url: `/billing/subscription?organizationId=${organizationId}`,
    headers: user.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

export async function invoicesOf(testApp: TestApp, user: SignedUpUser, organizationId = user.organizationId) {
  const response = await testApp.app.inject({
    method: 'GET',
    url: `/billing/invoices?organizationId=${organizationId}&limit=100`,
    headers: user.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Array<{
    id: string;
    number: string;
    amountDue: number;
    amountPaid: number;
    subtotal: number;
    creditApplied: number;
    reason: string;
    url: string;
    lines: Array<{ amount: number; quantity: number; proration: boolean; description: string }>;
  }>;
}

export const DAY_MS = 24 * 3600 * 1000;
