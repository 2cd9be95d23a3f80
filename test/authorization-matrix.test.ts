import { randomBytes } from 'node:crypto';
import { assert, beforeAll, describe, expect, it } from 'vitest';
import type { SignedUpUser } from './helpers/factories.ts';
import { buildFixtures, type Fixtures, useMatrixApp } from './helpers/matrix-fixtures.ts';
import { fileForm, SPEECH } from './helpers/media.ts';
import type { Method } from './helpers/requests.ts';

/**
 * The authorization matrix: every operation of /openapi.json × every kind of caller, against the
 * objects of one organization (A), with what each caller must get written down as data. A route
 * without a row fails the first test, so a new route cannot ship without a decision about who may
 * call it.
 *
 * Where the expectations come from (not from what the app happens to answer):
 * - roles, ../shared/design/API.md §1 and docs/identity.md: viewer reads, comments and keeps their
 *   own progress; member + creates content and edits or deletes their own; admin + anyone's
 *   content, members (not owners), invitations, settings; owner + deletes the organization;
 * - 404 vs 403: something addressed in the path that the caller may not see is a 404 (existence is
 *   never revealed across organizations); an organization the caller is not in, *named* in a body
 *   or query field, is a 403; a member below the required role gets a 403 — except where a module
 *   documents otherwise (clips: 404, the spec lists no 403; collection progress: 403 for outsiders,
 *   the spec lists it);
 * - personal things (saved searches, history, notifications, conversations, sessions, API keys)
 *   are their person's alone: anyone else gets a 404;
 * - without credentials: 401, except on the public routes and on those readable without an
 *   account when the video is public (A's video is not, so they answer 404).
 *
 * Every request is the happy path (a valid body and query, A's real ids), so a refusal is the
 * authorization answering and not validation. Everything in A was made by its owner (see
 * test/helpers/matrix-fixtures.ts): "its author or an admin" lets the admin in and keeps the
 * member out. `MATRIX_TRACE=1` prints every cell's answer.
 */

const PRINCIPALS = ['owner', 'admin', 'member', 'viewer', 'outsider', 'anonymous'] as const;
type Principal = (typeof PRINCIPALS)[number];

/**
 * What a cell expects: `ok` a 2xx or 3xx; `self` a 2xx acting on the caller's own account or data
 * (any signed-in person may, on their own); `forbidden` 403; `not_found` 404; `unauthenticated` 401.
 */
type Outcome = 'ok' | 'self' | 'forbidden' | 'not_found' | 'unauthenticated';
const OK = 'ok';
const SELF = 'self';
const FORBIDDEN = 'forbidden';
const NOT_FOUND = 'not_found';
const UNAUTHENTICATED = 'unauthenticated';
type Row = readonly [Outcome, Outcome, Outcome, Outcome, Outcome, Outcome];

// biome-ignore format: a table, aligned by column
const EXPECTED: Record<string, Row> = {
  //                                                    owner      admin      member     viewer     outsider   anonymous
  'GET /openapi.json':                                 [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /health':                                       [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /health/ready':                                 [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /metrics':                                      [OK,        OK,        OK,        OK,        OK,        OK],

  // Auth: public, except what needs a session. Sign-out without one is a no-op (idempotent).
  'POST /auth/sign-up':                                [OK,        OK,        OK,        OK,        OK,        OK],
  'POST /auth/sign-in':                                [OK,        OK,        OK,        OK,        OK,        OK],
  'POST /auth/sign-out':                               [SELF,      SELF,      SELF,      SELF,      SELF,      OK],
  'GET /auth/session':                                 [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'POST /auth/reset-password':                         [OK,        OK,        OK,        OK,        OK,        OK],
  'POST /auth/reset-password/confirm':                 [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /auth/github':                                  [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /auth/github/callback':                         [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /auth/google':                                  [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /auth/google/callback':                         [OK,        OK,        OK,        OK,        OK,        OK],

  // The caller's own account. Another person's session or API key is a 404. PATCH names A as the
  // default organization: a body field naming an organization the caller is not in is a 403
  // (docs/identity.md, API.md §1).
  'GET /users/me':                                     [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'PATCH /users/me':                                   [SELF,      SELF,      SELF,      SELF,      FORBIDDEN, UNAUTHENTICATED],
  'DELETE /users/me':                                  [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'GET /users/me/export':                              [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'GET /users/me/sessions':                            [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'DELETE /users/me/sessions':                         [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'DELETE /users/me/sessions/{id}':                    [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'POST /users/me/api-keys':                           [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'GET /users/me/api-keys':                            [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'DELETE /users/me/api-keys/{id}':                    [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'GET /users/me/notification-preferences':            [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'PUT /users/me/notification-preferences':            [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],

  // Organizations: settings, members and invitations are the admins'; deleting it the owner's.
  'POST /organizations':                               [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'GET /organizations':                                [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'GET /organizations/{id}':                           [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /organizations/{id}':                         [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /organizations/{id}':                        [OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /organizations/{id}/members':                   [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /organizations/{id}/members/{userId}':        [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /organizations/{id}/members/{userId}':       [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /organizations/{id}/invitations':              [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /organizations/{id}/invitations':               [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /organizations/{id}/invitations/{invitationId}': [OK,    OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  // An invitation addressed to the caller (to another organization, so A's members stay who they are).
  'POST /invitations/{token}/accept':                  [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],

  // Beta access: anyone asks; only platform administrators (ADMIN_EMAILS) list and approve, and no
  // organization role makes someone one.
  'POST /beta-access':                                 [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /beta-access':                                  [FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'POST /beta-access/{id}/approve':                    [FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],

  // Videos: members create; the author (here the owner) or an admin changes. A is named in the
  // body or query of creations and lists (403 for outsiders), in the path elsewhere (404).
  'POST /videos':                                      [OK,        OK,        OK,        FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /videos':                                       [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /videos/deleted':                               [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /videos/{id}':                                  [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'PATCH /videos/{id}':                                [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /videos/{id}':                               [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /videos/{id}/restore':                         [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /videos/{id}/views':                           [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'GET /videos/{id}/transcript':                       [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'PUT /videos/{id}/transcript':                       [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  // A recording is the video's, as its transcript: its author or an admin uploads; who reads the video plays it.
  'POST /videos/{id}/media':                           [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /videos/{id}/media':                            [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  // A resumable upload starts as the recording's upload does; only its creator may go on with it.
  'POST /uploads':                                     [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'HEAD /uploads/{id}':                                [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'PATCH /uploads/{id}':                               [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /uploads/{id}':                              [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'GET /videos/{id}/subtitles.vtt':                    [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'GET /videos/{id}/subtitles.srt':                    [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'GET /videos/{id}/knowledge':                        [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'PATCH /videos/{id}/speakers':                       [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /speakers':                                     [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'PATCH /speakers/{id}':                              [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],

  // Channels and series: members create; the creator or an admin changes; any member follows.
  'POST /channels':                                    [OK,        OK,        OK,        FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /channels':                                     [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /channels/{id}':                                [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /channels/{id}':                              [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /channels/{id}':                             [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /channels/{id}/videos':                         [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'POST /channels/{id}/follow':                        [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'DELETE /channels/{id}/follow':                      [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'POST /series':                                      [OK,        OK,        OK,        FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /series':                                       [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /series/{id}':                                  [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /series/{id}':                                [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /series/{id}':                               [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /series/{id}/videos':                           [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],

  // Collections: members create; changing one — its fields, or which videos it holds and in what
  // order — is its creator's or an admin's (API.md §4: "update/delete: its creator or an admin";
  // §1: a member edits only their own content; and the videos moved are the owner's, which the
  // member may not move with PATCH /videos/{id}).
  // Progress is every member's own, and the spec answers outsiders 403 there.
  'POST /collections':                                 [OK,        OK,        OK,        FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /collections':                                  [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /collections/{id}':                             [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /collections/{id}':                           [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /collections/{id}':                          [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /collections/{id}/videos':                     [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'PUT /collections/{id}/videos':                      [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /collections/{id}/videos/{videoId}':         [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /collections/{id}/progress':                    [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'POST /collections/{id}/progress':                   [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],

  'GET /activity':                                     [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /activity/stats':                               [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],

  // Clips: members create; the creator or an admin changes, anyone else gets 404 (docs/collaboration.md).
  'POST /videos/{id}/clips':                           [OK,        OK,        OK,        FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /videos/{id}/clips':                            [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'GET /clips/{id}':                                   [OK,        OK,        OK,        OK,        NOT_FOUND, NOT_FOUND],
  'PATCH /clips/{id}':                                 [OK,        OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /clips/{id}':                                [OK,        OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],

  // Share links: the video's author or an admin manages them; whoever holds a token opens it.
  'POST /videos/{id}/share-links':                     [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /videos/{id}/share-links':                      [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /share-links/{id}':                          [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /share/{token}':                                [OK,        OK,        OK,        OK,        OK,        OK],
  'POST /share/{token}/verify':                        [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /share/{token}/media':                          [OK,        OK,        OK,        OK,        OK,        OK],

  // Search: any member; saved searches and history are their person's alone.
  'GET /search':                                       [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /search/suggestions':                           [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /search/history':                               [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'DELETE /search/history':                            [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'DELETE /search/history/{id}':                       [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'POST /search/saved':                                [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /search/saved':                                 [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /search/saved/{id}':                            [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'PATCH /search/saved/{id}':                          [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /search/saved/{id}':                         [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],

  // Comments: members only, viewers included; editing is the author's alone (admins too get 403),
  // deleting the author's or an admin's.
  'POST /videos/{id}/comments':                        [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'GET /videos/{id}/comments':                         [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /comments/{id}':                              [OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /comments/{id}':                             [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /comments/{id}/reactions':                     [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],

  // Notifications: the caller's own; the owner's notification is a 404 to anyone else.
  'GET /notifications':                                [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'POST /notifications/read-all':                      [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],
  'PATCH /notifications/{id}':                         [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /notifications/{id}':                        [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'GET /notifications/stream':                         [SELF,      SELF,      SELF,      SELF,      SELF,      UNAUTHENTICATED],

  // AI: any member of the organization named (403 for others, docs/ai.md); conversations are their
  // person's alone (404 to anyone else, even in the same organization).
  'POST /ai/qa':                                       [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'POST /ai/chat':                                     [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'GET /chat/conversations':                           [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'POST /chat/conversations':                          [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /chat/conversations/{id}':                      [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'PATCH /chat/conversations/{id}':                    [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /chat/conversations/{id}':                   [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'GET /chat/conversations/{id}/messages':             [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'POST /chat/conversations/{id}/messages':            [OK,        NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, UNAUTHENTICATED],
  'GET /ai/budget':                                    [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/gaps':                                      [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/gaps/conflicts':                            [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/insights':                                  [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/insights/trends':                           [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/insights/recommendations':                  [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/summaries/daily':                           [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'POST /ai/summaries/meeting-prep':                   [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /ai/summaries/topic/{id}':                      [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'GET /topics':                                       [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],

  // Speaker analytics (docs/analytics.md): any member; A named in the query (403 for outsiders),
  // a speaker in the path (404).
  'GET /analytics/speakers':                           [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /analytics/speakers/{speakerId}':               [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],

  // Billing (docs/billing.md): any signed-in person reads the plans; members read A's subscription
  // and invoices; owners and admins buy, change and open the portal; only the owner cancels. The
  // pages of the local provider take no account: their signed link is the credential, whoever
  // holds it. In this order: checkout while A is free, then the cells that need it subscribed,
  // the cancellation last.
  'GET /billing/plans':                                [OK,        OK,        OK,        OK,        OK,        UNAUTHENTICATED],
  'GET /billing/subscription':                         [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'POST /billing/checkout':                            [OK,        OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'POST /billing/portal':                              [OK,        OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /billing/invoices':                             [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /billing/checkout/{id}':                        [OK,        OK,        OK,        OK,        OK,        OK],
  'POST /billing/checkout/{id}':                       [OK,        OK,        OK,        OK,        OK,        OK],
  'PATCH /billing/subscription':                       [OK,        OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /billing/portal/{id}':                          [OK,        OK,        OK,        OK,        OK,        OK],
  'POST /billing/portal/{id}':                         [OK,        OK,        OK,        OK,        OK,        OK],
  'GET /billing/invoices/{id}/document':               [OK,        OK,        OK,        OK,        OK,        OK],
  'DELETE /billing/subscription':                      [OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  // Payment-provider callbacks: none with the local provider (the Stripe ones: stripe.test.ts).
  'POST /billing/webhook':                             [NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND],

  // Integrations (docs/integrations.md): admins and owners connect and change them, any member reads
  // what is connected; deliveries carry event bodies, so they are for admins and owners. Another
  // organization's integration, addressed in the path, is a 404.
  'GET /integrations':                                 [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'GET /integrations/webhooks':                        [OK,        OK,        OK,        OK,        FORBIDDEN, UNAUTHENTICATED],
  'POST /integrations/webhooks':                       [OK,        OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /integrations/webhooks/{id}':                   [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /integrations/webhooks/{id}':                 [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /integrations/webhooks/{id}':                [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'GET /integrations/webhooks/{id}/deliveries':        [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /integrations/webhooks/{id}/deliveries/{deliveryId}/retry':[OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'POST /integrations/slack':                          [OK,        OK,        FORBIDDEN, FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /integrations/slack/{id}':                      [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
  'PATCH /integrations/slack/{id}':                    [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  'DELETE /integrations/slack/{id}':                   [OK,        OK,        FORBIDDEN, FORBIDDEN, NOT_FOUND, UNAUTHENTICATED],
  // Bulk import creates videos: members and above (as POST /videos); its job is read by any member.
  'POST /integrations/import':                         [OK,        OK,        OK,        FORBIDDEN, FORBIDDEN, UNAUTHENTICATED],
  'GET /integrations/import/{jobId}':                  [OK,        OK,        OK,        OK,        NOT_FOUND, UNAUTHENTICATED],
};

/** One request of a cell: the operation's method, this URL (its path must match the operation's). */
type Request = {
  url: string;
  /** JSON, a form's urlencoded string, or a multipart body's bytes. */
  payload?: object | string;
  headers?: Record<string, string>;
  /** A bearer token to use instead of the caller's usual one (a session the cell may end). */
  token?: string;
  /** A server-sent event stream: only the status is read, then the connection is dropped. */
  stream?: boolean;
};
type Caller = { principal: Principal; user: SignedUpUser | null };
type RequestOf = (fixtures: Fixtures, caller: Caller) => Request | Promise<Request>;

const unique = () => randomBytes(4).toString('hex');
const uniqueName = (prefix: string) => `${prefix} ${unique()}`;
const freshEmail = (prefix: string) => `${prefix}-${unique()}@example.com`;

/**
 * How to call each operation as `caller`, on A's objects. Operations that destroy or use up what
 * they address get a fresh one per cell from `fixtures.fresh`, so that no cell depends on the order
 * of the others (the two that end an organization or an account run last, see FINAL).
 */
const REQUESTS: Record<string, RequestOf> = {
  'GET /openapi.json': () => ({ url: '/openapi.json' }),
  'GET /health': () => ({ url: '/health' }),
  'GET /health/ready': () => ({ url: '/health/ready' }),
  'GET /metrics': () => ({ url: '/metrics' }),

  'POST /auth/sign-up': () => ({
    url: '/auth/sign-up',
    payload: { email: freshEmail('signup'), password: 'correct horse battery staple', name: 'New' },
  }),
  'POST /auth/sign-in': (f, { user }) => {
    const account = user ?? f.host;
    return { url: '/auth/sign-in', payload: { email: account.email, password: account.password } };
  },
  // A session of its own, so that signing out does not end the caller's for the other cells.
  'POST /auth/sign-out': async (f, { user }) =>
    user ? { url: '/auth/sign-out', token: (await f.fresh.session(user)).token } : { url: '/auth/sign-out' },
  'GET /auth/session': () => ({ url: '/auth/session' }),
  'POST /auth/reset-password': (_f, { user }) => ({
    url: '/auth/reset-password',
    payload: { email: user?.email ?? freshEmail('forgot') },
  }),
  'POST /auth/reset-password/confirm': async (f) => ({
    url: '/auth/reset-password/confirm',
    payload: { token: await f.fresh.resetToken(), password: 'a brand new passphrase' },
  }),
  'GET /auth/github': () => ({ url: '/auth/github' }),
  'GET /auth/github/callback': async (f) => {
    const back = await f.fresh.oauthCallback('github');
    return { url: back.url, headers: { cookie: back.cookie } };
  },
  'GET /auth/google': () => ({ url: '/auth/google' }),
  'GET /auth/google/callback': async (f) => {
    const back = await f.fresh.oauthCallback('google');
    return { url: back.url, headers: { cookie: back.cookie } };
  },

  'GET /users/me': () => ({ url: '/users/me' }),
  'PATCH /users/me': (f, { user }) => ({
    url: '/users/me',
    payload: { name: user?.name ?? 'Nobody', defaultOrganizationId: f.organizationId },
  }),
  'DELETE /users/me': () => ({ url: '/users/me' }),
  'GET /users/me/export': () => ({ url: '/users/me/export' }),
  'GET /users/me/sessions': () => ({ url: '/users/me/sessions' }),
  // With the caller's usual session: it is the current one, which this keeps.
  'DELETE /users/me/sessions': () => ({ url: '/users/me/sessions' }),
  'DELETE /users/me/sessions/{id}': async (f) => ({
    url: `/users/me/sessions/${(await f.fresh.session(f.people.owner)).id}`,
  }),
  'POST /users/me/api-keys': () => ({ url: '/users/me/api-keys', payload: { name: uniqueName('Key') } }),
  'GET /users/me/api-keys': () => ({ url: '/users/me/api-keys' }),
  'DELETE /users/me/api-keys/{id}': async (f) => ({
    url: `/users/me/api-keys/${(await f.fresh.apiKey()).id}`,
  }),
  'GET /users/me/notification-preferences': () => ({ url: '/users/me/notification-preferences' }),
  'PUT /users/me/notification-preferences': () => ({
    url: '/users/me/notification-preferences',
    payload: { preferences: { comment: { inApp: true } } },
  }),

  'POST /organizations': () => ({ url: '/organizations', payload: { name: uniqueName('Organization') } }),
  'GET /organizations': () => ({ url: '/organizations' }),
  'GET /organizations/{id}': (f) => ({ url: `/organizations/${f.organizationId}` }),
  'PATCH /organizations/{id}': (f) => ({
    url: `/organizations/${f.organizationId}`,
    payload: { name: 'Organization A' },
  }),
  'DELETE /organizations/{id}': (f) => ({ url: `/organizations/${f.organizationId}` }),
  'GET /organizations/{id}/members': (f) => ({ url: `/organizations/${f.organizationId}/members` }),
  'PATCH /organizations/{id}/members/{userId}': (f) => ({
    url: `/organizations/${f.organizationId}/members/${f.bystander.id}`,
    payload: { role: 'viewer' },
  }),
  'DELETE /organizations/{id}/members/{userId}': async (f) => ({
    url: `/organizations/${f.organizationId}/members/${(await f.fresh.member()).id}`,
  }),
  'POST /organizations/{id}/invitations': (f) => ({
    url: `/organizations/${f.organizationId}/invitations`,
    payload: { email: freshEmail('invitee'), role: 'member' },
  }),
  'GET /organizations/{id}/invitations': (f) => ({ url: `/organizations/${f.organizationId}/invitations` }),
  'DELETE /organizations/{id}/invitations/{invitationId}': async (f) => ({
    url: `/organizations/${f.organizationId}/invitations/${(await f.fresh.invitation()).id}`,
  }),
  'POST /invitations/{token}/accept': async (f, { user }) => ({
    url: `/invitations/${await f.fresh.invitationToken(user?.email ?? freshEmail('stranger'))}/accept`,
  }),

  'POST /beta-access': () => ({ url: '/beta-access', payload: { email: freshEmail('beta') } }),
  'GET /beta-access': () => ({ url: '/beta-access' }),
  'POST /beta-access/{id}/approve': (f) => ({ url: `/beta-access/${f.betaRequest.id}/approve` }),

  'POST /videos': (f) => ({
    url: '/videos',
    payload: { organizationId: f.organizationId, title: uniqueName('Video'), duration: '3:00' },
  }),
  'GET /videos': (f) => ({ url: `/videos?organizationId=${f.organizationId}` }),
  'GET /videos/deleted': (f) => ({ url: `/videos/deleted?organizationId=${f.organizationId}` }),
  'GET /videos/{id}': (f) => ({ url: `/videos/${f.video.id}` }),
  'PATCH /videos/{id}': (f, { principal }) => ({
    url: `/videos/${f.video.id}`,
    payload: { description: `Edited as ${principal}` },
  }),
  'DELETE /videos/{id}': async (f) => ({ url: `/videos/${(await f.fresh.video()).id}` }),
  'POST /videos/{id}/restore': async (f) => ({ url: `/videos/${(await f.fresh.deletedVideo()).id}/restore` }),
  'POST /videos/{id}/views': (f) => ({ url: `/videos/${f.video.id}/views`, payload: { position: 12 } }),
  'GET /videos/{id}/transcript': (f) => ({ url: `/videos/${f.video.id}/transcript` }),
  'POST /videos/{id}/media': async (f) => ({
    url: `/videos/${(await f.fresh.video()).id}/media`,
    ...fileForm(SPEECH, 'speech.wav', 'audio/wav'),
  }),
  'GET /videos/{id}/media': async (f) => ({ url: `/videos/${(await f.fresh.recording()).id}/media` }),
  'POST /uploads': async (f) => ({
    url: '/uploads',
    headers: {
      'tus-resumable': '1.0.0',
      'upload-length': String(SPEECH.length),
      'upload-metadata': `videoId ${Buffer.from((await f.fresh.video()).id).toString('base64')}`,
    },
  }),
  'HEAD /uploads/{id}': async (f) => ({
    url: await f.fresh.upload(),
    headers: { 'tus-resumable': '1.0.0' },
  }),
  'PATCH /uploads/{id}': async (f) => ({
    url: await f.fresh.upload(),
    payload: SPEECH.subarray(0, 1000),
    headers: {
      'tus-resumable': '1.0.0',
      'upload-offset': '0',
      'content-type': 'application/offset+octet-stream',
    },
  }),
  'DELETE /uploads/{id}': async (f) => ({
    url: await f.fresh.upload(),
    headers: { 'tus-resumable': '1.0.0' },
  }),
  // Another video: replacing the meeting's transcript would re-extract the topics other cells read.
  'PUT /videos/{id}/transcript': async (f) => ({
    url: `/videos/${(await f.fresh.video()).id}/transcript`,
    payload: { text: 'Maya Chen: We ship on Friday.\nDaniel Okafor: Agreed.' },
  }),
  'GET /videos/{id}/subtitles.vtt': (f) => ({ url: `/videos/${f.video.id}/subtitles.vtt` }),
  'GET /videos/{id}/subtitles.srt': (f) => ({ url: `/videos/${f.video.id}/subtitles.srt` }),
  'GET /videos/{id}/knowledge': (f) => ({ url: `/videos/${f.video.id}/knowledge` }),
  'PATCH /videos/{id}/speakers': (f) => ({
    url: `/videos/${f.video.id}/speakers`,
    payload: { speakers: [{ speakerId: f.speaker.id, userId: f.people.owner.id }] },
  }),
  'GET /speakers': (f) => ({ url: `/speakers?organizationId=${f.organizationId}` }),
  'PATCH /speakers/{id}': (f) => ({
    url: `/speakers/${f.speaker.id}`,
    payload: { userId: f.people.owner.id },
  }),

  'POST /channels': (f) => ({
    url: '/channels',
    payload: { organizationId: f.organizationId, name: uniqueName('Channel') },
  }),
  'GET /channels': (f) => ({ url: `/channels?organizationId=${f.organizationId}` }),
  'GET /channels/{id}': (f) => ({ url: `/channels/${f.channel.id}` }),
  'PATCH /channels/{id}': (f) => ({
    url: `/channels/${f.channel.id}`,
    payload: { description: 'Roadmap talk' },
  }),
  'DELETE /channels/{id}': async (f) => ({ url: `/channels/${(await f.fresh.channel()).id}` }),
  'GET /channels/{id}/videos': (f) => ({ url: `/channels/${f.channel.id}/videos` }),
  'POST /channels/{id}/follow': (f) => ({ url: `/channels/${f.channel.id}/follow` }),
  'DELETE /channels/{id}/follow': (f) => ({ url: `/channels/${f.channel.id}/follow` }),
  'POST /series': (f) => ({
    url: '/series',
    payload: { organizationId: f.organizationId, name: uniqueName('Series') },
  }),
  'GET /series': (f) => ({ url: `/series?organizationId=${f.organizationId}` }),
  'GET /series/{id}': (f) => ({ url: `/series/${f.series.id}` }),
  'PATCH /series/{id}': (f) => ({ url: `/series/${f.series.id}`, payload: { cadence: 'weekly' } }),
  'DELETE /series/{id}': async (f) => ({ url: `/series/${(await f.fresh.series()).id}` }),
  'GET /series/{id}/videos': (f) => ({ url: `/series/${f.series.id}/videos` }),

  'POST /collections': (f) => ({
    url: '/collections',
    payload: { organizationId: f.organizationId, name: uniqueName('Collection') },
  }),
  'GET /collections': (f) => ({ url: `/collections?organizationId=${f.organizationId}` }),
  'GET /collections/{id}': (f) => ({ url: `/collections/${f.collection.id}` }),
  'PATCH /collections/{id}': (f) => ({
    url: `/collections/${f.collection.id}`,
    payload: { description: 'Watch these first' },
  }),
  'DELETE /collections/{id}': async (f) => ({ url: `/collections/${(await f.fresh.collection()).id}` }),
  // The meeting is already in the playlist: adding it again moves it to the end, and changes nothing else.
  'POST /collections/{id}/videos': (f) => ({
    url: `/collections/${f.collection.id}/videos`,
    payload: { videoId: f.video.id },
  }),
  'PUT /collections/{id}/videos': async (f) => ({
    url: `/collections/${f.collection.id}/videos`,
    payload: { videoIds: (await f.playlistOrder()).reverse() },
  }),
  'DELETE /collections/{id}/videos/{videoId}': async (f) => ({
    url: `/collections/${f.collection.id}/videos/${(await f.fresh.videoInCollection()).id}`,
  }),
  'GET /collections/{id}/progress': (f) => ({ url: `/collections/${f.collection.id}/progress` }),
  'POST /collections/{id}/progress': (f) => ({
    url: `/collections/${f.collection.id}/progress`,
    payload: { videoId: f.video.id, position: 30 },
  }),

  'GET /activity': (f) => ({ url: `/activity?organizationId=${f.organizationId}` }),
  'GET /activity/stats': (f) => ({ url: `/activity/stats?organizationId=${f.organizationId}` }),

  'POST /videos/{id}/clips': (f) => ({
    url: `/videos/${f.video.id}/clips`,
    payload: { title: uniqueName('Clip'), startTime: 10, endTime: 20 },
  }),
  'GET /videos/{id}/clips': (f) => ({ url: `/videos/${f.video.id}/clips` }),
  'GET /clips/{id}': (f) => ({ url: `/clips/${f.clip.id}` }),
  'PATCH /clips/{id}': (f) => ({ url: `/clips/${f.clip.id}`, payload: { description: 'The date is set' } }),
  'DELETE /clips/{id}': async (f) => ({ url: `/clips/${(await f.fresh.clip()).id}` }),

  'POST /videos/{id}/share-links': (f) => ({ url: `/videos/${f.video.id}/share-links`, payload: {} }),
  'GET /videos/{id}/share-links': (f) => ({ url: `/videos/${f.video.id}/share-links` }),
  'DELETE /share-links/{id}': async (f) => ({ url: `/share-links/${(await f.fresh.shareLink()).id}` }),
  'GET /share/{token}': (f) => ({ url: `/share/${f.shareLink.token}` }),
  'GET /share/{token}/media': async (f) => ({ url: `/share/${await f.fresh.sharedRecording()}/media` }),
  'POST /share/{token}/verify': (f) => ({
    url: `/share/${f.passwordShareLink.token}/verify`,
    payload: { password: f.passwordShareLink.password },
  }),

  'GET /search': (f) => ({ url: `/search?q=reindex&organizationId=${f.organizationId}` }),
  'GET /search/suggestions': (f) => ({
    url: `/search/suggestions?q=week&organizationId=${f.organizationId}`,
  }),
  'GET /search/history': () => ({ url: '/search/history' }),
  'DELETE /search/history': () => ({ url: '/search/history' }),
  'DELETE /search/history/{id}': async (f) => ({
    url: `/search/history/${(await f.fresh.searchHistoryEntry()).id}`,
  }),
  'POST /search/saved': (f) => ({
    url: '/search/saved',
    payload: { organizationId: f.organizationId, name: uniqueName('Saved'), query: 'offline mode' },
  }),
  'GET /search/saved': (f) => ({ url: `/search/saved?organizationId=${f.organizationId}` }),
  'GET /search/saved/{id}': (f) => ({ url: `/search/saved/${f.savedSearch.id}` }),
  'PATCH /search/saved/{id}': (f) => ({
    url: `/search/saved/${f.savedSearch.id}`,
    payload: { query: 'launch date' },
  }),
  'DELETE /search/saved/{id}': async (f) => ({ url: `/search/saved/${(await f.fresh.savedSearch()).id}` }),

  'POST /videos/{id}/comments': (f) => ({
    url: `/videos/${f.video.id}/comments`,
    payload: { body: 'Good call on the flag', timestamp: 60 },
  }),
  'GET /videos/{id}/comments': (f) => ({ url: `/videos/${f.video.id}/comments` }),
  'PATCH /comments/{id}': (f) => ({
    url: `/comments/${f.comment.id}`,
    payload: { body: 'Decision at 0:05' },
  }),
  'DELETE /comments/{id}': async (f) => ({ url: `/comments/${(await f.fresh.comment()).id}` }),
  'POST /comments/{id}/reactions': (f) => ({
    url: `/comments/${f.comment.id}/reactions`,
    payload: { emoji: '👍' },
  }),

  'GET /notifications': () => ({ url: '/notifications' }),
  'POST /notifications/read-all': () => ({ url: '/notifications/read-all' }),
  'PATCH /notifications/{id}': (f) => ({
    url: `/notifications/${f.notification.id}`,
    payload: { read: true },
  }),
  'DELETE /notifications/{id}': async (f) => ({ url: `/notifications/${(await f.fresh.notification()).id}` }),
  'GET /notifications/stream': () => ({ url: '/notifications/stream', stream: true }),

  'POST /ai/qa': (f) => ({
    url: '/ai/qa',
    payload: { question: 'When does search v2 ship?', organizationId: f.organizationId },
  }),
  // Continuing the owner's conversation: only its owner may (starting one is POST /chat/conversations).
  'POST /ai/chat': (f) => ({
    url: '/ai/chat',
    payload: { message: 'Who owns the onboarding checklist?', conversationId: f.conversation.id },
  }),
  'GET /chat/conversations': (f) => ({ url: `/chat/conversations?organizationId=${f.organizationId}` }),
  'POST /chat/conversations': (f) => ({
    url: '/chat/conversations',
    payload: { organizationId: f.organizationId, title: uniqueName('Chat') },
  }),
  'GET /chat/conversations/{id}': (f) => ({ url: `/chat/conversations/${f.conversation.id}` }),
  'PATCH /chat/conversations/{id}': (f) => ({
    url: `/chat/conversations/${f.conversation.id}`,
    payload: { title: 'Search v2 questions' },
  }),
  'DELETE /chat/conversations/{id}': async (f) => ({
    url: `/chat/conversations/${(await f.fresh.conversation()).id}`,
  }),
  'GET /chat/conversations/{id}/messages': (f) => ({
    url: `/chat/conversations/${f.conversation.id}/messages`,
  }),
  'POST /chat/conversations/{id}/messages': (f) => ({
    url: `/chat/conversations/${f.conversation.id}/messages`,
    payload: { content: 'When is the search v2 date?' },
  }),
  'GET /ai/budget': (f) => ({ url: `/ai/budget?organizationId=${f.organizationId}` }),
  'GET /ai/gaps': (f) => ({ url: `/ai/gaps?organizationId=${f.organizationId}` }),
  'GET /ai/gaps/conflicts': (f) => ({ url: `/ai/gaps/conflicts?organizationId=${f.organizationId}` }),
  'GET /ai/insights': (f) => ({ url: `/ai/insights?organizationId=${f.organizationId}` }),
  'GET /ai/insights/trends': (f) => ({ url: `/ai/insights/trends?organizationId=${f.organizationId}` }),
  'GET /ai/insights/recommendations': (f) => ({
    url: `/ai/insights/recommendations?organizationId=${f.organizationId}`,
  }),
  'GET /ai/summaries/daily': (f) => ({ url: `/ai/summaries/daily?organizationId=${f.organizationId}` }),
  'POST /ai/summaries/meeting-prep': (f) => ({
    url: '/ai/summaries/meeting-prep',
    payload: { organizationId: f.organizationId, seriesId: f.series.id },
  }),
  'GET /ai/summaries/topic/{id}': (f) => ({ url: `/ai/summaries/topic/${f.topic.id}` }),
  'GET /topics': (f) => ({ url: `/topics?organizationId=${f.organizationId}` }),

  'GET /analytics/speakers': (f) => ({ url: `/analytics/speakers?organizationId=${f.organizationId}` }),
  'GET /analytics/speakers/{speakerId}': (f) => ({ url: `/analytics/speakers/${f.speaker.id}` }),

  'GET /billing/plans': () => ({ url: '/billing/plans' }),
  'GET /billing/subscription': (f) => ({ url: `/billing/subscription?organizationId=${f.organizationId}` }),
  'POST /billing/checkout': (f) => ({
    url: '/billing/checkout',
    payload: { organizationId: f.organizationId, planId: 'pro', seats: 100 },
  }),
  'POST /billing/portal': (f) => ({ url: '/billing/portal', payload: { organizationId: f.organizationId } }),
  'GET /billing/invoices': (f) => ({ url: `/billing/invoices?organizationId=${f.organizationId}` }),
  'GET /billing/checkout/{id}': (f) => ({ url: f.billing.checkoutPath }),
  'POST /billing/checkout/{id}': (f) => ({ url: f.billing.checkoutPath }),
  'PATCH /billing/subscription': async (f) => {
    await f.billing.subscribed();
    return { url: '/billing/subscription', payload: { organizationId: f.organizationId, seats: 200 } };
  },
  'GET /billing/portal/{id}': (f) => ({ url: f.billing.portalPath }),
  'POST /billing/portal/{id}': async (f) => {
    await f.billing.subscribed();
    return {
      url: f.billing.portalPath,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=change&seats=200',
    };
  },
  'GET /billing/invoices/{id}/document': async (f) => ({ url: await f.billing.subscribed() }),
  'POST /billing/webhook': () => ({
    url: '/billing/webhook',
    payload: { id: 'evt_1', type: 'invoice.paid' },
  }),
  'DELETE /billing/subscription': async (f) => {
    await f.billing.subscribed();
    return { url: `/billing/subscription?organizationId=${f.organizationId}` };
  },
  'GET /integrations': (f) => ({ url: `/integrations?organizationId=${f.organizationId}` }),
  'GET /integrations/webhooks': (f) => ({ url: `/integrations/webhooks?organizationId=${f.organizationId}` }),
  'POST /integrations/webhooks': (f) => ({
    url: '/integrations/webhooks',
    payload: { organizationId: f.organizationId, url: f.integrations.url, events: ['video.created'] },
  }),
  'GET /integrations/webhooks/{id}': (f) => ({ url: `/integrations/webhooks/${f.integrations.webhook.id}` }),
  'PATCH /integrations/webhooks/{id}': (f) => ({
    url: `/integrations/webhooks/${f.integrations.webhook.id}`,
    payload: { description: `Changed ${randomBytes(2).toString('hex')}` },
  }),
  'DELETE /integrations/webhooks/{id}': async (f) => ({
    url: `/integrations/webhooks/${(await f.fresh.webhook()).id}`,
  }),
  'GET /integrations/webhooks/{id}/deliveries': (f) => ({
    url: `/integrations/webhooks/${f.integrations.webhook.id}/deliveries`,
  }),
  'POST /integrations/webhooks/{id}/deliveries/{deliveryId}/retry': (f) => ({
    url: `/integrations/webhooks/${f.integrations.webhook.id}/deliveries/${f.integrations.deliveryId}/retry`,
  }),
  'POST /integrations/slack': (f) => ({
    url: '/integrations/slack',
    payload: { organizationId: f.organizationId, webhookUrl: f.integrations.url, events: ['digest.weekly'] },
  }),
  'GET /integrations/slack/{id}': (f) => ({ url: `/integrations/slack/${f.integrations.slack.id}` }),
  'PATCH /integrations/slack/{id}': (f) => ({
    url: `/integrations/slack/${f.integrations.slack.id}`,
    payload: { events: ['video.created', 'digest.weekly'] },
  }),
  'DELETE /integrations/slack/{id}': async (f) => ({
    url: `/integrations/slack/${(await f.fresh.slack()).id}`,
  }),
  'POST /integrations/import': async (f) => {
    const form = new FormData();
    form.append('organizationId', f.organizationId);
    form.append('files', new Blob([`Maya Chen: Imported ${randomBytes(4).toString('hex')}.`]), 'import.txt');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    return {
      url: '/integrations/import',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type') as string },
    };
  },
  'GET /integrations/import/{jobId}': (f) => ({ url: `/integrations/import/${f.integrations.importId}` }),
};

/**
 * Operations that end organization A or a principal's account: they run after every other cell,
 * in this order of callers (the owner's deletion of A last among A's, then everyone's account —
 * the owner's only once A is gone, as an owner cannot leave members without an owner).
 */
const FINAL: Array<{ operation: string; order: readonly Principal[] }> = [
  {
    operation: 'DELETE /organizations/{id}',
    order: ['admin', 'member', 'viewer', 'outsider', 'anonymous', 'owner'],
  },
  { operation: 'DELETE /users/me', order: PRINCIPALS },
];
const isFinal = (operation: string) => FINAL.some((entry) => entry.operation === operation);

/** The operations of the table, by module (the first segment of their path), one test each. */
const MODULES = Object.keys(EXPECTED)
  .filter((operation) => !isFinal(operation))
  .reduce((modules, operation) => {
    const module = operation.split(' ')[1]?.split('/')[1] ?? '';
    modules.set(module, [...(modules.get(module) ?? []), operation]);
    return modules;
  }, new Map<string, string[]>());

const STATUS: Record<Outcome, string> = {
  ok: '2xx/3xx',
  self: '2xx',
  forbidden: '403',
  not_found: '404',
  unauthenticated: '401',
};
function matches(expected: Outcome, status: number) {
  if (expected === 'ok' || expected === 'self') return status >= 200 && status < 400;
  return String(status) === STATUS[expected];
}

/** `GET /videos/{id}/subtitles.vtt` → a pattern its URLs match, so a cell cannot call another operation. */
const pathPattern = (path: string) =>
  new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);

describe('authorization matrix: every operation × every kind of caller', () => {
  const ctx = useMatrixApp();
  let fixtures: Fixtures;
  let streamBaseUrl: string | undefined;

  beforeAll(async () => {
    fixtures = await buildFixtures(ctx());
  }, 120_000);

  const callerOf = (principal: Principal): Caller => ({
    principal,
    user: principal === 'anonymous' ? null : fixtures.people[principal],
  });

  async function send(method: Method, request: Request, caller: Caller) {
    const token = caller.user ? (request.token ?? caller.user.token) : undefined;
    const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...request.headers };
    if (request.stream) {
      // inject() waits for the end of the response, which an event stream never reaches.
      streamBaseUrl ??= await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const connection = new AbortController();
      const response = await fetch(`${streamBaseUrl}${request.url}`, {
        headers: { accept: 'text/event-stream', ...headers },
        signal: connection.signal,
      });
      const body = response.ok ? '(event stream)' : await response.text();
      connection.abort();
      return { status: response.status, body };
    }
    const response = await ctx().app.inject({
      method,
      url: request.url,
      headers,
      ...(request.payload ? { payload: request.payload } : {}),
    });
    return { status: response.statusCode, body: response.body };
  }

  /**
   * Runs one operation as each of `principals` and returns the cells that did not answer as the
   * table says. The requests are prepared together (their fresh objects made in parallel), then
   * sent one by one.
   */
  async function mismatchesOf(operation: string, principals: readonly Principal[]): Promise<string[]> {
    const [method, path] = operation.split(' ') as [Method, string];
    const requestOf = REQUESTS[operation];
    const expected = EXPECTED[operation];
    if (!requestOf || !expected) return [`${operation}: no request or no expectation in the table`];
    const requests = await Promise.all(
      principals.map((principal) => requestOf(fixtures, callerOf(principal))),
    );
    const mismatches: string[] = [];
    for (const [index, principal] of principals.entries()) {
      const request = requests[index] as Request;
      const urlPath = new URL(request.url, 'http://localhost').pathname;
      if (!pathPattern(path).test(urlPath)) {
        mismatches.push(
          `${operation} as ${principal}: the request goes to ${request.url}, another operation`,
        );
        continue;
      }
      const outcome = expected[PRINCIPALS.indexOf(principal)] as Outcome;
      const { status, body } = await send(method, request, callerOf(principal));
      if (process.env.MATRIX_TRACE) console.log(operation, principal, status, body.slice(0, 120));
      if (!matches(outcome, status)) {
        mismatches.push(
          `${operation} as ${principal}: expected ${outcome} (${STATUS[outcome]}), got ${status} ${body.slice(0, 200)}`,
        );
      }
    }
    return mismatches;
  }

  /** Every disagreeing cell at once, one per line: a failure shows the whole picture. */
  function report(mismatches: string[]) {
    if (mismatches.length > 0) {
      assert.fail(`${mismatches.length} cells disagree with the table:\n${mismatches.join('\n')}`);
    }
  }

  it('has exactly one row per operation of /openapi.json', async () => {
    const document = (await ctx().app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const rows = Object.keys(EXPECTED);
    expect({
      operationsWithoutRow: documented.filter((operation) => !rows.includes(operation)),
      rowsWithoutOperation: rows.filter((operation) => !documented.includes(operation)),
    }).toEqual({ operationsWithoutRow: [], rowsWithoutOperation: [] });
    expect(Object.keys(REQUESTS).sort()).toEqual([...rows].sort());
  });

  for (const [module, operations] of MODULES) {
    it(`/${module}: each caller gets what the table says`, async () => {
      const mismatches: string[] = [];
      for (const operation of operations) mismatches.push(...(await mismatchesOf(operation, PRINCIPALS)));
      report(mismatches);
    }, 60_000);
  }

  it('deleting the organization and the accounts (last): each caller gets what the table says', async () => {
    const mismatches: string[] = [];
    for (const { operation, order } of FINAL) {
      // One at a time, in order: each deletion changes what the next caller finds.
      for (const principal of order) mismatches.push(...(await mismatchesOf(operation, [principal])));
    }
    report(mismatches);
  }, 60_000);
});
