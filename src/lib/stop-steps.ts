import { setTimeout as sleep } from 'node:timers/promises';

/** How to stop one thing that start-up started, named for the log. */
export type StopStep = { name: string; stop: () => Promise<void> };

type Warn = (details: object, message: string) => void;

/**
 * Runs the steps backwards (last started, first stopped). A step that does not finish within
 * `timeoutMs`, or fails, is left behind and the next one runs: with the database gone, closing what still
 * waits on it can hang, and the rest (the embedded cluster above all) must still be stopped.
 */
export async function runStopSteps(steps: StopStep[], timeoutMs: number, warn: Warn) {
  for (let step = steps.pop(); step; step = steps.pop()) {
    const abandon = new AbortController();
    const outcome = await Promise.race([
      step.stop().then(
        () => 'stopped' as const,
        (error: unknown) => {
          warn({ step: step.name, err: error }, 'a shutdown step failed; going on');
          return 'stopped' as const;
        },
      ),
      sleep(timeoutMs, 'timeout' as const, { signal: abandon.signal }).catch(() => 'stopped' as const),
    ]);
    abandon.abort();
    if (outcome === 'timeout')
      warn({ step: step.name, timeoutMs }, 'a shutdown step did not finish in time; going on');
  }
}
