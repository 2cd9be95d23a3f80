import { Link } from 'react-router';
import type { Schemas } from '../lib/api.ts';
import { formatDate } from '../lib/time.ts';

export function VideoCard({ video }: { video: Schemas['VideoListItem'] }) {
  return (
    <li className="card">
      <Link to={`/videos/${video.id}`} className="card-title">
        {video.title}
      </Link>
      <p className="meta">
        {formatDate(video.recordedAt ?? video.createdAt)} · {video.duration}
        {video.hasTranscript ? '' : ' · no transcript'}
      </p>
      {video.aiSummary && <p className="summary">{video.aiSummary.slice(0, 180)}</p>}
    </li>
  );
}
