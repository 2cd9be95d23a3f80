import { doublePrecision, index, integer, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { speakers, videos } from './library.ts';

/**
 * Conversation metrics of each speaker in each meeting, written with the meeting's transcript
 * (src/modules/analytics/conversation.ts): speaker analytics sum these rows instead of reading
 * every segment.
 */
export const videoSpeakerStats = pgTable(
  'video_speaker_stats',
  {
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    speakerId: uuid('speaker_id')
      .notNull()
      .references(() => speakers.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    talkSeconds: doublePrecision('talk_seconds').notNull(),
    wordCount: integer('word_count').notNull(),
    turns: integer('turns').notNull(),
    longestMonologueSeconds: doublePrecision('longest_monologue_seconds').notNull(),
    monologueSeconds: doublePrecision('monologue_seconds').notNull(),
    questionCount: integer('question_count').notNull(),
    interruptions: integer('interruptions').notNull(),
    patienceSeconds: doublePrecision('patience_seconds').notNull(),
    patienceCount: integer('patience_count').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.videoId, table.speakerId] }),
    index('video_speaker_stats_organization_speaker_idx').on(table.organizationId, table.speakerId),
  ],
);
