import { describe, expect, it } from 'vitest';
import { runStopSteps, type StopStep } from './stop-steps.ts';

describe('runStopSteps', () => {
  it('stops backwards, and goes on past a step that hangs (after the timeout) or fails', async () => {
    const stopped: string[] = [];
    const warnings: object[] = [];
    const steps: StopStep[] = [
      { name: 'cluster', stop: async () => void stopped.push('cluster') },
      {
        name: 'jobs',
        stop: async () => {
          throw new Error('database gone');
        },
      },
      { name: 'pool', stop: () => new Promise<void>(() => {}) },
      { name: 'server', stop: async () => void stopped.push('server') },
    ];
    const started = Date.now();
    await runStopSteps(steps, 50, (details) => warnings.push(details));
    expect(stopped).toEqual(['server', 'cluster']);
    expect(warnings).toEqual([
      { step: 'pool', timeoutMs: 50 },
      { step: 'jobs', err: new Error('database gone') },
    ]);
    expect(steps).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
