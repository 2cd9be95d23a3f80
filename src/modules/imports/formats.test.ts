import { describe, expect, it } from 'vitest';
import { decodeFile, detectImportFormat, type ParsedFile, parseImportFile } from './formats.ts';
import { scanJson } from './json-segments.ts';
import { importFixture } from './test-support.ts';

const encode = (text: string) => new TextEncoder().encode(text);

async function parsed(name: string, text: string): Promise<ParsedFile> {
  const result = await parseImportFile(name, text);
  if (!result.ok) throw new Error(`${name} did not parse: ${result.error}`);
  return result;
}

const turns = (file: ParsedFile) =>
  file.segments.map(({ start, end, speaker, text }) => [start, end, speaker, text]);

describe('detectImportFormat', () => {
  it('tells every format apart by its text', () => {
    expect(detectImportFormat(importFixture('weekly-sync.vtt'))).toBe('vtt');
    expect(detectImportFormat(importFixture('zoom-recording.vtt'))).toBe('vtt');
    expect(detectImportFormat(importFixture('incident-review.srt'))).toBe('srt');
    expect(detectImportFormat(importFixture('segments.json'))).toBe('json');
    expect(detectImportFormat(importFixture('whisper-verbose.json'))).toBe('json');
    expect(detectImportFormat('[]')).toBe('json');
    expect(detectImportFormat(importFixture('zoom-transcript.txt'))).toBe('zoom-txt');
    expect(detectImportFormat(importFixture('google-meet.txt'))).toBe('google-meet');
    expect(detectImportFormat('00:00:00\nAda: Hello.\nBob: Hi.')).toBe('google-meet');
    // A timestamped labelled line opens with a bracket too, and is not JSON.
    expect(detectImportFormat('[00:00:01] Ada: Hello.\n[00:00:04] Bob: Hi.')).toBe('labelled');
    expect(detectImportFormat('We agreed to ship on Friday. Nobody objected.')).toBe('plain');
  });
});

describe('parseImportFile', () => {
  it('reads Zoom’s recording transcript (WebVTT with "Name: " cues), speakers from the prefixes', async () => {
    const file = await parsed('zoom-recording.vtt', importFixture('zoom-recording.vtt'));
    expect(file).toMatchObject({ format: 'vtt', title: 'zoom-recording', durationSeconds: 11.2 });
    expect(file.transcript).toBe(importFixture('zoom-recording.vtt'));
    expect(turns(file)).toEqual([
      [0, 3.5, 'Priya Shah', 'Good morning, everyone.'],
      [3.5, 8, 'Tom Becker', 'Morning. The migration finished overnight.'],
      [8, 11.2, 'Priya Shah', 'Great, then we can close the ticket.'],
    ]);
  });

  it('reads Zoom’s .txt transcript: each turn lasts until the next, the last as long as its words take', async () => {
    const file = await parsed('zoom-transcript.txt', importFixture('zoom-transcript.txt'));
    expect(file).toMatchObject({ format: 'zoom-txt', durationSeconds: 10 });
    expect(turns(file)).toEqual([
      [2, 6, 'Priya Shah', 'Can everyone see my screen?'],
      [6, 10, 'Tom Becker', "Yes, the dashboard is up.\nIt shows last week's numbers."],
    ]);
    expect(file.transcript).toMatch(/^WEBVTT\n\n1\n00:00:02.000 --> 00:00:06.000\n<v Priya Shah>/);
  });

  it('reads Google Meet’s export: its title, blocks shared by their turns by words, up to where it ended', async () => {
    const file = await parsed('google-meet.txt', importFixture('google-meet.txt'));
    expect(file).toMatchObject({ format: 'google-meet', title: 'Roadmap review', durationSeconds: 45 });
    expect(turns(file)).toEqual([
      [0, 18.462, 'Grace Kim', "Let's go through the roadmap for next quarter."],
      [18.462, 30, 'Omar Farouk', 'I have the numbers ready.'],
      [30, 45, 'Grace Kim', 'Search comes first, then the mobile app.'],
    ]);
    const untitled = await parsed(
      'meet.txt',
      '00:00:00\nAda: One two three.\nand four.\n00:00:10\nstill Ada here.',
    );
    expect(untitled.title).toBe('meet');
    expect(turns(untitled)).toEqual([
      [0, 10, 'Ada', 'One two three.\nand four.'],
      [10, 11.2, 'Ada', 'still Ada here.'],
    ]);
  });

  it('reads JSON segments, bare or as Whisper’s verbose_json, and keeps them as WebVTT', async () => {
    const bare = await parsed('segments.json', importFixture('segments.json'));
    expect(turns(bare)).toEqual([
      [0, 4.5, 'Ana Lima', 'Welcome to the design critique.'],
      [4.5, 9, 'Ben Cho', "I'll share the new onboarding flow."],
    ]);
    const whisper = await parsed('whisper.json', importFixture('whisper-verbose.json'));
    expect(whisper).toMatchObject({ format: 'json', durationSeconds: 7.2 });
    expect(turns(whisper)).toEqual([
      [0, 2.4, null, "Let's begin."],
      [2.4, 7.2, null, 'The release is on track.'],
    ]);
    expect(whisper.transcript).toBe(
      "WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.400\nLet's begin.\n\n2\n00:00:02.400 --> 00:00:07.200\nThe release is on track.\n",
    );
  });

  it('lets the extension fix the format: a .vtt without its header fails at line 1', async () => {
    expect(await parseImportFile('notes.vtt', 'Ada: hello')).toEqual({
      ok: false,
      format: 'vtt',
      error: 'line 1: missing the WEBVTT header',
      line: 1,
    });
    expect((await parsed('notes.txt', 'Ada: hello\nBob: hi')).format).toBe('labelled');
  });

  it.each([
    [
      'broken-timing.srt',
      importFixture('broken-timing.srt'),
      'srt',
      'line 6: invalid cue end time "00:00:0x,000"',
    ],
    [
      'a.json',
      '[\n  {"start": 0, "end": 1, "text": "a"},\n  {"start": 2, "end": 1, "text": "b"}\n]',
      'json',
      'line 3: segment 2, end: must be after start',
    ],
    [
      'a.json',
      '{"segments": [\n  {"start": 0, "end": 1, "text": "a"},\n\n  {"start": 2, "end": 3}\n]}',
      'json',
      'line 4: segment 2, text: Required',
    ],
    [
      'a.json',
      '[\n  {"start": 3, "end": 4, "text": "a"},\n  {"start": 1, "end": 2, "text": "b"}\n]',
      'json',
      'line 3: segment 2, start: must not be before the previous segment’s start',
    ],
    [
      'a.json',
      '[\n  {"start": 0, "end": 1, "text": "a\\u0000"}\n]',
      'json',
      'line 2: segment 1, text: must not contain NUL characters or unpaired surrogates',
    ],
    [
      'a.json',
      '[\n  {"start": 0, "end": 1, "text": "a"},\n  {"start": 1e300, "end": 1e301, "text": "b"}\n]',
      'json',
      'line 3: segment 2, start: must be at most 1000000000 (seconds)',
    ],
    [
      'a.json',
      '[\n  {"start": 0, "end": 1e10, "text": "a"}\n]',
      'json',
      'line 2: segment 1, end: must be at most 1000000000 (seconds)',
    ],
    [
      'a.json',
      '{\n  "text": "no segments"\n}',
      'json',
      'line 1: expected an array of segments {start, end, speaker?, text}, or an object with "segments"',
    ],
    [
      'a.json',
      '[\n  {"start": 0, "end": 1, "text": "a"},\n  {"start": tru}\n]',
      'json',
      expect.stringMatching(/^line 3: invalid JSON: /),
    ],
    [
      'a.json',
      '[\n  {"start": 0,\n   "end": 1 "text": "a"}\n]',
      'json',
      expect.stringMatching(/^line 3: invalid JSON: /),
    ],
    [
      'a.txt',
      '[Ada] 00:00:01\nHi.\n[Bob] 00:61:00\nHello.',
      'zoom-txt',
      'line 3: invalid timestamp "00:61:00"',
    ],
    [
      'a.txt',
      'Title\n00:00:10\nAda: One.\n00:00:05\nBob: Two.',
      'google-meet',
      'line 4: the timestamp is not later than the previous one',
    ],
  ])('fails %s naming the line: %s', async (name, text, format, error) => {
    const result = await parseImportFile(name, text);
    expect(result).toEqual({ ok: false, format, error, line: expect.any(Number) });
    if (!result.ok) expect(result.error).toMatch(new RegExp(`^line ${result.line}: `));
  });

  it('fails an empty file, and one with no transcript text', async () => {
    expect(await parseImportFile('a.txt', ' \n\t\n')).toEqual({
      ok: false,
      format: null,
      error: 'the file is empty',
      line: null,
    });
    expect(await parseImportFile('a.json', '[]')).toEqual({
      ok: false,
      format: 'json',
      error: 'no transcript text found',
      line: null,
    });
  });

  it('caps a title at 500 characters', async () => {
    const file = await parsed(`${'n'.repeat(600)}.txt`, 'Ada: hello');
    expect(Array.from(file.title)).toHaveLength(500);
  });
});

describe('decodeFile', () => {
  it('takes UTF-8 text of the transcript types, without its byte order mark', () => {
    expect(decodeFile('a/b.vtt', encode('\uFEFFWEBVTT'))).toEqual({ ok: true, text: 'WEBVTT' });
    expect(decodeFile('README', encode('Ada: hi'))).toEqual({ ok: true, text: 'Ada: hi' });
  });

  it('refuses other types, bytes that are not UTF-8 and NUL characters, naming the line', () => {
    expect(decodeFile('notes.constructor', encode('x'))).toMatchObject({ ok: false, line: null });
    expect(decodeFile('talk.mp4', encode('x'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^unsupported file type ".mp4"/),
      line: null,
    });
    expect(decodeFile('a.txt', new Uint8Array([0x41, 0x0a, 0x42, 0x0a, 0xc3, 0x28]))).toEqual({
      ok: false,
      format: null,
      error: 'not UTF-8 text',
      line: 3,
    });
    expect(decodeFile('a.txt', encode('one\r\ntwo\rthree\u0000'))).toEqual({
      ok: false,
      format: null,
      error: 'contains a NUL character',
      line: 3,
    });
  });
});

describe('scanJson', () => {
  it('finds the line of each segment and of the first syntax error, however deep the nesting', () => {
    expect(scanJson('[\n{"a": [1, {"b": 2}]},\n\n"x", 3]').elementLines).toEqual([2, 4, 4]);
    expect(scanJson('{"other": [1, 2],\n "segments": [\n {}, {}]}').elementLines).toEqual([3, 3]);
    expect(scanJson('[1,\n2,\n]').errorLine).toBe(3);
    expect(scanJson('"unterminated').errorLine).toBe(1);
    expect(scanJson('[1] 2').errorLine).toBe(1);
    expect(scanJson('[\n'.repeat(100_000)).errorLine).toBe(100_001);
  });
});
