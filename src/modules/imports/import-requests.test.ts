import { count, eq } from 'drizzle-orm';
import { zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { importJobs } from '../../db/schema/index.ts';
import { type Team, team, unknownId } from '../transcripts/test-support.ts';
import {
  type FormPart,
  filePart,
  getImport,
  importFixture,
  postImport,
  waitForImport,
} from './test-support.ts';

const MIB = 1024 * 1024;
const encode = (text: string) => new TextEncoder().encode(text);
const zipPart = (entries: Record<string, Uint8Array>): FormPart => ({
  name: 'files',
  filename: 'batch.zip',
  content: zipSync(entries) as Uint8Array<ArrayBuffer>,
});

/**
 * A zip bomb: one entry, `bomb.txt`, whose deflate stream inflates to 8 MiB while the archive (its
 * local header and central directory) declares 100 bytes.
 */
function lyingZip(): FormPart {
  const zip = zipSync({ 'bomb.txt': new Uint8Array(8 * MIB).fill(0x61) });
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const directory = zip.findIndex((byte, at) => byte === 0x50 && view.getUint32(at, true) === 0x02014b50);
  expect(directory).toBeGreaterThan(0);
  view.setUint32(22, 100, true);
  view.setUint32(directory + 24, 100, true);
  return { name: 'files', filename: 'batch.zip', content: zip as Uint8Array<ArrayBuffer> };
}

describe('POST /integrations/import: what is refused, and who may import and read', () => {
  const ctx = useTestApp();
  let crew: Team;
  let outsider: SignedUpUser;
  let foreignChannelId: string;
  beforeAll(async () => {
    crew = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    const channel = await ctx().app.inject({
      method: 'POST',
      url: '/channels',
      headers: outsider.headers,
      payload: { organizationId: outsider.organizationId, name: 'elsewhere' },
    });
    expect(channel.statusCode, channel.body).toBe(201);
    foreignChannelId = channel.json().id;
  });

  const organization = (): FormPart => ({ name: 'organizationId', value: crew.organizationId });
  const vtt = () => filePart('weekly-sync.vtt', importFixture('weekly-sync.vtt'));
  const importCount = async () =>
    (
      await ctx()
        .database.db.select({ n: count() })
        .from(importJobs)
        .where(eq(importJobs.organizationId, crew.organizationId))
    )[0]?.n;

  it('answers 400 naming the field (or BAD_REQUEST for a form that cannot be read), and stores nothing', async () => {
    const before = await importCount();
    const tooManyEntries = Object.fromEntries(
      Array.from({ length: 201 }, (_, index) => [`t${index}.txt`, encode(`Ada: line ${index}`)]),
    );
    const cases: Array<[string, FormPart[], string, string]> = [
      ['no files', [organization()], 'body.files', 'at least one transcript file is required'],
      [
        'no organizationId',
        [vtt()],
        'body.organizationId',
        'is required, and must come before the files in the form',
      ],
      [
        'organizationId after the files',
        [vtt(), organization()],
        'body.organizationId',
        'is required, and must come before the files in the form',
      ],
      [
        'a malformed organizationId',
        [{ name: 'organizationId', value: 'not-a-uuid' }, vtt()],
        'body.organizationId',
        'must be a UUID',
      ],
      [
        'a zip entry that inflates to more than it declares (a zip bomb)',
        [organization(), lyingZip()],
        'body.files',
        'batch.zip/bomb.txt unpacks to more than the 100 bytes it declares',
      ],
      [
        'a bad visibility',
        [organization(), { name: 'visibility', value: 'everyone' }, vtt()],
        'body.visibility',
        expect.any(String),
      ],
      [
        "another organization's channel",
        [organization(), { name: 'channelId', value: foreignChannelId }, vtt()],
        'body.channelId',
        'must be a channel of the organization',
      ],
      [
        '201 files',
        [
          organization(),
          ...Array.from({ length: 201 }, (_, index) => filePart(`t${index}.txt`, `Ada: ${index}`)),
        ],
        'body.files',
        'at most 200 files per import (each entry of a zip counts)',
      ],
      [
        'a zip of 201 files',
        [organization(), zipPart(tooManyEntries)],
        'body.files',
        'at most 200 files per import (each entry of a zip counts)',
      ],
      [
        'a file in another field',
        [organization(), { name: 'transcript', filename: 'a.vtt', content: 'WEBVTT' }],
        'body.transcript',
        'files go in the form field "files" (or "file")',
      ],
      [
        'a zip that is not one',
        [organization(), filePart('broken.zip', 'PK\u0003\u0004 not really')],
        'body.files',
        expect.stringMatching(/^broken\.zip is not a zip archive that can be read/),
      ],
      [
        'a name no column can keep',
        [organization(), zipPart({ 'a\u0000.vtt': encode('WEBVTT') })],
        'body.files.0',
        'must not contain NUL characters or unpaired surrogates',
      ],
    ];
    for (const [what, parts, path, message] of cases) {
      const response = await postImport(ctx(), crew.member, parts);
      expect(response.statusCode, `${what}: ${response.body}`).toBe(400);
      expect(response.json(), what).toEqual({
        success: false,
        error: 'Invalid request',
        code: 'VALIDATION_ERROR',
        details: [{ path, message }],
      });
    }
    const garbage = await ctx().app.inject({
      method: 'POST',
      url: '/integrations/import',
      headers: { ...crew.member.headers, 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: '--xyz\r\nContent-Disposition: form-da',
    });
    expect(garbage.statusCode, garbage.body).toBe(400);
    expect(garbage.json()).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(await importCount()).toBe(before);
  });

  it('answers 413 for a file over 5 MiB, a zip entry declaring more (a zip bomb) and over 50 MiB in all; 415 without a form', async () => {
    const before = await importCount();
    const tooLarge: Array<[FormPart[], string]> = [
      [[organization(), filePart('big.txt', 'a'.repeat(5 * MIB + 1))], 'big.txt is larger than 5 MiB'],
      [
        [organization(), zipPart({ 'bomb.txt': new Uint8Array(6 * MIB) })],
        'batch.zip/bomb.txt is larger than 5 MiB',
      ],
      [
        [
          organization(),
          zipPart(
            Object.fromEntries(
              Array.from({ length: 11 }, (_, index) => [`z${index}.txt`, new Uint8Array(5 * MIB)]),
            ),
          ),
        ],
        'The files of an import take at most 50 MiB unpacked (reached at batch.zip/z10.txt)',
      ],
      [
        [
          organization(),
          ...Array.from({ length: 11 }, (_, index) => filePart(`p${index}.txt`, 'b'.repeat(4.8 * MIB))),
        ],
        'An import request takes at most 50 MiB',
      ],
    ];
    for (const [parts, error] of tooLarge) {
      const response = await postImport(ctx(), crew.member, parts);
      expect(response.statusCode, response.body).toBe(413);
      expect(response.json()).toEqual({ success: false, error, code: 'PAYLOAD_TOO_LARGE' });
    }
    for (const [type, payload] of [
      ['application/json', JSON.stringify({ organizationId: crew.organizationId })],
      ['text/plain', 'WEBVTT'],
    ] as const) {
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/integrations/import',
        headers: { ...crew.member.headers, 'content-type': type },
        payload,
      });
      expect(response.statusCode, response.body).toBe(415);
      expect(response.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    expect(await importCount()).toBe(before);
  });

  it('takes a zip part over 5 MiB whose entries are each 5 MiB at most', async () => {
    // Stored, not deflated: the zip is as large as its entries. Each is a WebVTT file of one cue
    // after a 3 MiB note, quick to import.
    const vttOf = (words: string) =>
      encode(
        `WEBVTT\n\nNOTE ${words.repeat((3 * MIB) / words.length)}\n\n00:00:01.000 --> 00:00:02.000\nAda: Hi.\n`,
      );
    const content = zipSync({ 'first.vtt': vttOf('one '), 'second.vtt': vttOf('two ') }, { level: 0 });
    expect(content.length).toBeGreaterThan(6 * MIB);
    const zip = filePart('batch.zip', content as Uint8Array<ArrayBuffer>);
    const accepted = await postImport(ctx(), crew.member, [organization(), zip]);
    expect(accepted.statusCode, accepted.body).toBe(202);
    expect(accepted.json().files.map((file: { name: string }) => file.name)).toEqual([
      'batch.zip/first.vtt',
      'batch.zip/second.vtt',
    ]);
    const done = await waitForImport(ctx(), crew.member, accepted.json().id);
    expect(done.counts).toMatchObject({ total: 2, created: 2 });
  });

  it('takes imports from members and above only: 401 anonymous, 403 for a viewer and an outsider', async () => {
    const before = await importCount();
    const anonymous = await postImport(ctx(), null, [organization(), vtt()]);
    expect(anonymous.statusCode).toBe(401);
    const viewer = await postImport(ctx(), crew.viewer, [organization(), vtt()]);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ success: false, code: 'INSUFFICIENT_ROLE' });
    const stranger = await postImport(ctx(), outsider, [organization(), vtt()]);
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json()).toMatchObject({ success: false, code: 'NOT_A_MEMBER' });
    // The role is checked once organizationId is read, before any file is read or unpacked.
    for (const file of [
      lyingZip(),
      filePart('broken.zip', 'PK\u0003\u0004 not really'),
      filePart('big.txt', 'a'.repeat(5 * MIB + 1)),
    ]) {
      const early = await postImport(ctx(), crew.viewer, [organization(), file]);
      expect(early.statusCode, early.body).toBe(403);
      expect(early.json()).toMatchObject({ success: false, code: 'INSUFFICIENT_ROLE' });
    }
    expect(await importCount()).toBe(before);
    for (const user of [crew.admin, crew.owner]) {
      const accepted = await postImport(ctx(), user, [organization(), vtt()]);
      expect(accepted.statusCode, accepted.body).toBe(202);
      await waitForImport(ctx(), user, accepted.json().id);
    }
  });

  it('shows a job to every member of its organization, a viewer too, and to no one else (404)', async () => {
    const accepted = await postImport(ctx(), crew.member, [organization(), vtt()]);
    expect(accepted.statusCode, accepted.body).toBe(202);
    const jobId = accepted.json().id;
    for (const user of [crew.viewer, crew.otherMember, crew.owner]) {
      const response = await getImport(ctx(), user, jobId);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: jobId, organizationId: crew.organizationId });
    }
    expect((await getImport(ctx(), null, jobId)).statusCode).toBe(401);
    for (const [user, id] of [
      [outsider, jobId],
      [crew.member, unknownId],
      [crew.member, 'not-a-uuid'],
    ] as const) {
      const response = await getImport(ctx(), user, id);
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    await waitForImport(ctx(), crew.member, jobId);
  });
});
