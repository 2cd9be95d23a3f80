import { Link } from 'react-router';
import { clockTime, momentLink } from '../lib/time.ts';

type Item = { id: string; videoId: string; start: number; text: string; owner?: string | null };

/** Decisions or action items from several meetings, each opening its meeting at its moment. */
export function MomentItems({ title, items }: { title: string; items: Item[] }) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul>
        {items.map((item) => (
          <li key={item.id}>
            <Link to={momentLink(item.videoId, item.start)}>{clockTime(item.start)}</Link> {item.text}
            {item.owner ? ` — ${item.owner}` : ''}
          </li>
        ))}
      </ul>
    </>
  );
}
