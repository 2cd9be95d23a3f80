import { createKnowledgeHubClient, expectData, KnowledgeHubError, type Schemas } from '../../../sdk/index.ts';

export type { Schemas };
export { expectData, KnowledgeHubError };

/** The CSRF cookie the service sets beside the (HttpOnly) session cookie; writes echo it. */
export function csrfToken() {
  const value = document.cookie
    .split('; ')
    .find((pair) => pair.startsWith('svc-auth.csrf_token='))
    ?.slice('svc-auth.csrf_token='.length);
  return value === undefined ? undefined : decodeURIComponent(value);
}

/** The typed client of the page's own origin, signed in by the session cookie. */
export const api = createKnowledgeHubClient({
  baseUrl: '',
  csrfToken,
});

/** A message a person can read for any failure of a call. */
export function errorMessage(error: unknown): string {
  if (error instanceof KnowledgeHubError) {
    const detail = error.details[0];
    return detail ? `${error.message}: ${detail.path} ${detail.message}` : error.message;
  }
  if (error instanceof TypeError)
    return 'The service could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}
