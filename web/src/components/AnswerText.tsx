import { Fragment } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../lib/api.ts';
import { clockTime, formatDate, momentLink } from '../lib/time.ts';

/** An answer whose `[n]` markers are links to the moment each source was said. */
export function AnswerText({ text, citations }: { text: string; citations: Schemas['Citation'][] }) {
  const bySource = new Map(citations.map((citation) => [citation.source, citation]));
  const parts = text.split(/(\[\d+\])/);
  return (
    <p className="answer-text">
      {parts.map((part, index) => {
        const source = /^\[(\d+)\]$/.exec(part)?.[1];
        const citation = source ? bySource.get(Number(source)) : undefined;
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one answer never reorder
        if (!citation) return <Fragment key={index}>{part}</Fragment>;
        return (
          <Link
            // biome-ignore lint/suspicious/noArrayIndexKey: as above
            key={index}
            to={momentLink(citation.videoId, citation.start)}
            className="citation-marker"
            aria-label={`Source ${citation.source}: ${citation.videoTitle} at ${clockTime(citation.start)}`}
          >
            {part}
          </Link>
        );
      })}
    </p>
  );
}

/** The sources of an answer, each with the day its meeting was held, opening it at the second it was said. */
export function CitationList({ citations }: { citations: Schemas['Citation'][] }) {
  if (citations.length === 0) return null;
  return (
    <ol className="citations" aria-label="Sources">
      {citations.map((citation) => (
        <li key={citation.source} value={citation.source}>
          <Link to={momentLink(citation.videoId, citation.start)} className="citation">
            {citation.videoTitle} · {citation.heldAt && `${formatDate(citation.heldAt)} · `}
            {clockTime(citation.start)}
          </Link>
          <blockquote>
            {citation.speaker && <strong>{citation.speaker}: </strong>}
            {citation.quote}
          </blockquote>
        </li>
      ))}
    </ol>
  );
}
