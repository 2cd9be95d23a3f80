import type { AppContext } from '../../context.ts';
import type { AnswerEngine } from './engine.ts';
import { createLocalEngine } from './local-engine.ts';
import { createOpenAiEngine } from './openai-engine.ts';

/** The engine AI_PROVIDER names. */
export function createEngine(context: AppContext): AnswerEngine {
  return context.config.ai.provider === 'openai'
    ? createOpenAiEngine(context.config.ai)
    : createLocalEngine(context.db);
}
