import type { AppContext } from '../../context.ts';

/** The address a stored recording plays from: the video's `videoUrl` once it holds one. */
export const mediaUrl = (context: Pick<AppContext, 'config'>, videoId: string) =>
  `${context.config.appUrl}/videos/${videoId}/media`;

/** The same recording as a share link plays it, to people without an account. */
export const sharedMediaUrl = (context: Pick<AppContext, 'config'>, token: string) =>
  `${context.config.appUrl}/share/${encodeURIComponent(token)}/media`;
