import type { Config } from '../../config.ts';
import type { KnowledgeExtractor } from './extraction.ts';
import { createLocalExtractor } from './local-extractor.ts';
import { createOpenAiExtractor } from './openai-extractor.ts';

/** The extractor AI_PROVIDER names; made once, on first use (the local one loads a language model). */
export function extractorFor(config: Config): () => KnowledgeExtractor {
  let extractor: KnowledgeExtractor | undefined;
  return () => {
    extractor ??= config.ai.provider === 'openai' ? createOpenAiExtractor(config.ai) : createLocalExtractor();
    return extractor;
  };
}
