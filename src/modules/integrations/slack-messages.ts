/**
 * Slack messages (Block Kit) for integration events. Slack renders `mrkdwn`, in which `&`, `<`
 * and `>` are control characters: every value from the organization is escaped, so a video title
 * cannot forge a link or a mention.
 */

type Block =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: Array<{ type: 'mrkdwn'; text: string }> }
  | { type: 'divider' };

export type SlackMessage = { text: string; blocks: Block[] };

/** Slack's limit for the text of a section block. */
const SECTION_TEXT_MAX = 3000;
const LIST_MAX = 10;

export const escapeMrkdwn = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const cut = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

const section = (text: string): Block => ({
  type: 'section',
  text: { type: 'mrkdwn', text: cut(text, SECTION_TEXT_MAX) },
});

const link = (url: string, label: string) => `<${url}|${escapeMrkdwn(cut(label, 200))}>`;

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** What each event says, in one line of mrkdwn. */
function headline(type: string, data: Record<string, unknown>, appUrl: string): string {
  const videoId = str(data.videoId) || (data.object === 'video' ? str(data.id) : '');
  const title = str(data.title) || 'Untitled';
  const video = videoId ? link(`${appUrl}/videos/${videoId}`, title) : `*${escapeMrkdwn(title)}*`;
  switch (type) {
    case 'video.created':
      return `:movie_camera: New video: ${video}`;
    case 'video.updated':
      return `:pencil2: Video updated: ${video}`;
    case 'video.deleted':
      return `:wastebasket: Video deleted: *${escapeMrkdwn(title)}*`;
    case 'transcript.ready':
      return `:memo: Transcript ready for ${video} (${Number(data.segmentCount ?? 0)} segments)`;
    case 'knowledge.extracted':
      return `:bulb: Knowledge extracted from ${video}: ${Number(data.decisions ?? 0)} decisions, ${Number(
        data.actionItems ?? 0,
      )} action items, ${Number(data.questions ?? 0)} questions`;
    case 'comment.created':
      return `:speech_balloon: New comment on ${link(`${appUrl}/videos/${videoId}`, 'a video')}`;
    case 'clip.created':
      return `:scissors: New clip ${escapeMrkdwn(cut(title, 200))} from ${link(`${appUrl}/videos/${videoId}`, 'a video')}`;
    case 'member.joined':
      return `:wave: Someone joined the organization as ${escapeMrkdwn(str(data.role) || 'member')}`;
    case 'member.left':
      return ':door: A member left the organization';
    default:
      return `:bell: ${escapeMrkdwn(type)}`;
  }
}

/** The message for one event of the outbox (`{id, type, createdAt, data}`). */
export function slackMessage(payload: Record<string, unknown>, appUrl: string): SlackMessage {
  const type = str(payload.type);
  const data = (payload.data ?? {}) as Record<string, unknown>;
  if (type === 'digest.weekly') return digestMessage(data as unknown as WeeklyDigest, appUrl);
  const line = headline(type, data, appUrl);
  return {
    text: line,
    blocks: [
      section(line),
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `${link(appUrl, 'Knowledge Hub')} · \`${escapeMrkdwn(type)}\`` }],
      },
    ],
  };
}

export type WeeklyDigest = {
  from: string;
  to: string;
  meetings: Array<{ id: string; title: string }>;
  decisions: Array<{ text: string; videoId: string; videoTitle: string }>;
  actionItems: Array<{ text: string; owner: string | null; dueDate: string | null; videoId: string }>;
  gaps: Array<{ title: string; severity: string }>;
};

/** A titled list, at most ten lines and a count of the rest; nothing when the list is empty. */
function listSection(title: string, lines: string[]): Block[] {
  if (lines.length === 0) return [section(`*${title}*\nNone this week.`)];
  const shown = lines.slice(0, LIST_MAX).map((line) => `• ${line}`);
  if (lines.length > LIST_MAX) shown.push(`_and ${lines.length - LIST_MAX} more_`);
  return [section(`*${title}*\n${shown.join('\n')}`)];
}

const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export function digestMessage(digest: WeeklyDigest, appUrl: string): SlackMessage {
  const videoLink = (id: string, title: string) => link(`${appUrl}/videos/${id}`, title);
  const summary = `Weekly digest ${digest.from} – ${digest.to}: ${counted(digest.meetings.length, 'new meeting')}, ${counted(
    digest.decisions.length,
    'decision',
  )}, ${counted(digest.actionItems.length, 'open action item')}`;
  return {
    text: summary,
    blocks: [
      {
        type: 'header',
        text: { type: 'plain_text', text: `Your week in Knowledge Hub (${digest.from} – ${digest.to})` },
      },
      ...listSection(
        `New meetings (${digest.meetings.length})`,
        digest.meetings.map((meeting) => videoLink(meeting.id, meeting.title)),
      ),
      ...listSection(
        `Decisions (${digest.decisions.length})`,
        digest.decisions.map(
          (decision) =>
            `${escapeMrkdwn(cut(decision.text, 300))} — ${videoLink(decision.videoId, decision.videoTitle)}`,
        ),
      ),
      ...listSection(
        `Open action items (${digest.actionItems.length})`,
        digest.actionItems.map((item) => {
          const who = item.owner ? ` — *${escapeMrkdwn(item.owner)}*` : '';
          const due = item.dueDate ? ` (due ${item.dueDate})` : '';
          return `${escapeMrkdwn(cut(item.text, 300))}${who}${due}`;
        }),
      ),
      ...listSection(
        `Top knowledge gaps (${digest.gaps.length})`,
        digest.gaps.map((gap) => `${escapeMrkdwn(cut(gap.title, 300))} _(${gap.severity})_`),
      ),
      { type: 'divider' },
      { type: 'context', elements: [{ type: 'mrkdwn', text: link(appUrl, 'Open Knowledge Hub') }] },
    ],
  };
}
