import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';

/** Arrangement helpers for the import tests: forms as `curl -F` sends them, and waiting for the job. */

export const importFixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; content: string | Uint8Array<ArrayBuffer>; type?: string };

/** A file part of field `files`. */
export const filePart = (filename: string, content: string | Uint8Array<ArrayBuffer>): FormPart => ({
  name: 'files',
  filename,
  content,
});

/** A multipart/form-data body as `curl -F` or a browser's FormData sends it. */
export async function form(parts: FormPart[]) {
  const data = new FormData();
  for (const part of parts) {
    if ('value' in part) data.append(part.name, part.value);
    else data.append(part.name, new Blob([part.content], { type: part.type ?? '' }), part.filename);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: data });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') as string,
  };
}

/** POST /integrations/import as `user` (anonymously with null). */
export async function postImport(testApp: TestApp, user: SignedUpUser | null, parts: FormPart[]) {
  const { payload, contentType } = await form(parts);
  return testApp.app.inject({
    method: 'POST',
    url: '/integrations/import',
    headers: { ...(user?.headers ?? {}), 'content-type': contentType },
    payload,
  });
}

export const getImport = (testApp: TestApp, user: SignedUpUser | null, jobId: string) =>
  testApp.app.inject({ method: 'GET', url: `/integrations/import/${jobId}`, headers: user?.headers ?? {} });

type ImportFileView = {
  name: string;
  status: string;
  format: string | null;
  videoId: string | null;
  error: string | null;
  line: number | null;
};
export type ImportJobView = {
  id: string;
  status: string;
  counts: Record<string, number>;
  files: ImportFileView[];
  startedAt: string | null;
  finishedAt: string | null;
};

/** Polls the job (the test app's queue polls every 0.5 s) until it is completed, or fails at the deadline. */
export async function waitForImport(
  testApp: TestApp,
  user: SignedUpUser,
  jobId: string,
  timeoutMs = 30_000,
): Promise<ImportJobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await getImport(testApp, user, jobId);
    expect(response.statusCode, response.body).toBe(200);
    const job = response.json() as ImportJobView;
    if (job.status === 'completed') return job;
    if (Date.now() > deadline)
      throw new Error(`import ${jobId} not completed after ${timeoutMs} ms: ${response.body}`);
    await sleep(100);
  }
}

/** Imports the files and waits for the outcome. */
export async function importAndWait(testApp: TestApp, user: SignedUpUser, parts: FormPart[]) {
  const response = await postImport(testApp, user, parts);
  expect(response.statusCode, response.body).toBe(202);
  return waitForImport(testApp, user, response.json().id);
}

/** A file's expected outcome, as GET /integrations/import/{jobId} lists it. */
export const outcome = (
  name: string,
  status: string,
  fields: Partial<Omit<ImportFileView, 'name' | 'status'>> = {},
) => ({
  name,
  status,
  format: null,
  videoId: status === 'created' || status === 'duplicate' ? expect.any(String) : null,
  error: null,
  line: null,
  ...fields,
});
