import { describe, expect, it } from 'vitest';
import { snippetParts } from '../components/Highlighted.tsx';
import { currentLine } from '../pages/meeting/playback.ts';
import { readEvents } from './events.ts';
import { safeNext } from './navigation.ts';
import { moved } from './order.ts';
import { clockTime, lastCueSeconds, momentLink } from './time.ts';

const lines = [{ start: 0 }, { start: 10 }, { start: 20 }, { start: 30 }];

describe('player and transcript sync', () => {
  it('marks the last line that has started', () => {
    expect(currentLine(lines, 0)).toBe(0);
    expect(currentLine(lines, 9.9)).toBe(0);
    expect(currentLine(lines, 10)).toBe(1);
    expect(currentLine(lines, 25)).toBe(2);
    expect(currentLine(lines, 999)).toBe(3);
  });

  it('marks no line before the first one starts, and none in an empty transcript', () => {
    expect(currentLine([{ start: 5 }], 1)).toBe(-1);
    expect(currentLine([], 10)).toBe(-1);
  });

  it('lands on the line a seek asked for, even a hair before its start (float time)', () => {
    expect(currentLine(lines, 19.97)).toBe(2);
  });
});

describe('times and moment links', () => {
  it('shows positions as players do', () => {
    expect(clockTime(0)).toBe('0:00');
    expect(clockTime(75.9)).toBe('1:15');
    expect(clockTime(3725)).toBe('1:02:05');
    expect(clockTime(-3)).toBe('0:00');
  });

  it('links a citation to the meeting at its whole second', () => {
    expect(momentLink('v1', 61.7)).toBe('/videos/v1?t=61');
  });

  it('reads a meeting’s length from its last WebVTT or SRT cue', () => {
    expect(
      lastCueSeconds('WEBVTT\n\n00:00:00.000 --> 00:00:10.000\nHi\n\n00:01:20.000 --> 00:01:30.500\nBye'),
    ).toBe(90);
    expect(lastCueSeconds('1\n00:00:01,000 --> 01:00:02,000\nHi')).toBe(3602);
    expect(lastCueSeconds('Alice: no times here')).toBe(0);
  });
});

describe('search snippets', () => {
  it('splits marked matches from text and decodes the escaped text', () => {
    const parts = snippetParts('a &lt;b&gt; <mark>flag</mark> &amp; <mark>ship</mark>');
    expect(parts.map(({ marked, text }) => ({ marked, text }))).toEqual([
      { marked: false, text: 'a <b> ' },
      { marked: true, text: 'flag' },
      { marked: false, text: ' & ' },
      { marked: true, text: 'ship' },
      { marked: false, text: '' },
    ]);
    expect(new Set(parts.map((part) => part.key)).size).toBe(parts.length);
  });
});

describe('sign-in redirects', () => {
  it('returns only to paths of the app', () => {
    expect(safeNext('/videos/1?t=5')).toBe('/videos/1?t=5');
    expect(safeNext(null)).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext('//evil.example')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
  });
});

describe('streamed answers', () => {
  it('reads server-sent events split anywhere across chunks', async () => {
    const text =
      'event: token\ndata: {"text":"Hel"}\n\nevent: token\ndata: {"text":"lo"}\n\nevent: done\ndata: {}\n\n';
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readEvents(body)) events.push(event);
    expect(events).toEqual([
      { event: 'token', data: '{"text":"Hel"}' },
      { event: 'token', data: '{"text":"lo"}' },
      { event: 'done', data: '{}' },
    ]);
  });
});

describe('reordering a collection', () => {
  it('moves one item and keeps the others in order', () => {
    expect(moved(['a', 'b', 'c', 'd'], 0, 2)).toEqual(['b', 'c', 'a', 'd']);
    expect(moved(['a', 'b', 'c', 'd'], 3, 0)).toEqual(['d', 'a', 'b', 'c']);
    expect(moved(['a', 'b'], 1, 9)).toEqual(['a', 'b']);
  });
});
