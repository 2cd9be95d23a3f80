import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../lib/api.ts';
import type { Playback } from '../pages/meeting/playback.ts';
import { Transcript } from '../pages/meeting/Transcript.tsx';
import { AnswerText, CitationList } from './AnswerText.tsx';

const citation = (source: number, start: number): Schemas['Citation'] => ({
  source,
  videoId: 'video-1',
  videoTitle: 'Planning',
  heldAt: '2026-01-12T09:00:00.000Z',
  start,
  end: start + 10,
  speaker: 'Maria',
  quote: `Quote ${source}`,
});

const render = (element: ReactElement) => renderToStaticMarkup(<MemoryRouter>{element}</MemoryRouter>);
const at = (time: number): Playback => ({ time, playing: false, seek: () => {}, toggle: () => {} });

describe('citation links', () => {
  it('turns each [n] of an answer into a link to its source’s second', () => {
    const html = render(
      <AnswerText
        text="It failed [1] and ships later [2]."
        citations={[citation(1, 30.4), citation(2, 60)]}
      />,
    );
    expect(html).toContain('href="/videos/video-1?t=30"');
    expect(html).toContain('href="/videos/video-1?t=60"');
    expect(html).toContain('aria-label="Source 1: Planning at 0:30"');
  });

  it('leaves a marker with no citation as text', () => {
    const html = render(<AnswerText text="Only [3] here." citations={[citation(1, 5)]} />);
    expect(html).not.toContain('<a');
    expect(html).toContain('Only [3] here.');
  });

  it('lists the sources in their numbers, each opening the meeting at its second', () => {
    const html = render(<CitationList citations={[citation(1, 30), citation(2, 75)]} />);
    expect(html).toContain('<li value="2">');
    expect(html).toContain('Planning · Jan 12, 2026 · 1:15');
    // An answer stored before citations carried the day, whose meeting is gone, shows none.
    const undated = render(<CitationList citations={[{ ...citation(1, 30), heldAt: null }]} />);
    expect(undated).toContain('Planning · 0:30');
    expect(html).toContain('href="/videos/video-1?t=75"');
  });
});

describe('transcript sync', () => {
  const segments = [
    { start: 0, end: 10, speaker: 'Maria', text: 'Good morning.' },
    { start: 10, end: 20, speaker: 'Daniel', text: 'The backlog grows.' },
    { start: 20, end: 30, speaker: null, text: 'Decision: ship.' },
  ];

  it('marks the line being spoken at the player’s time, and only that one', () => {
    const html = render(<Transcript segments={segments} playback={at(12)} />);
    expect(html.match(/aria-current="true"/g)).toHaveLength(1);
    expect(html).toMatch(/aria-current="true"[^>]*>.*?The backlog grows\./);
  });

  it('shows each line’s time and speaker', () => {
    const html = render(<Transcript segments={segments} playback={at(0)} />);
    expect(html).toContain('0:10');
    expect(html).toContain('Daniel');
  });

  it('marks the lines picked for a clip as pressed', () => {
    const html = render(
      <Transcript segments={segments} playback={at(0)} selection={{ from: 1, to: 2 }} onLine={() => {}} />,
    );
    expect(html.match(/aria-pressed="true"/g)).toHaveLength(2);
    expect(html.match(/aria-pressed="false"/g)).toHaveLength(1);
  });
});

describe('a shared recording’s address', () => {
  const origin = 'https://hub.example.com';
  it('carries a password link’s access token, which a <video> cannot send as a header', async () => {
    const { playableUrl } = await import('../pages/SharedMeeting.tsx');
    expect(playableUrl(`${origin}/share/tok/media`, 'a b', origin)).toBe(
      `${origin}/share/tok/media?access=a%20b`,
    );
    expect(playableUrl(`${origin}/share/tok/media`, null, origin)).toBe(`${origin}/share/tok/media`);
    // A recording hosted elsewhere never gets the token.
    expect(playableUrl('https://cdn.example.com/m.mp4', 'secret', origin)).toBe(
      'https://cdn.example.com/m.mp4',
    );
    expect(playableUrl(null, 'secret', origin)).toBeNull();
  });
});
