import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../test/helpers/app.ts';

describe('graceful close', () => {
  it('lets an in-flight request finish and refuses new connections once closing', async () => {
    const testApp = await buildTestApp();
    const { app } = testApp;
    let release: () => void = () => {};
    const started = new Promise<void>((resolveStarted) => {
      app.get('/test/slow', async () => {
        resolveStarted();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { finished: true };
      });
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const inFlight = fetch(`${address}/test/slow`);
      await started;
      const closing = app.close();
      await sleep(50);
      await expect(fetch(`${address}/health`)).rejects.toThrow();
      release();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(response.headers.get('connection')).toBe('close');
      expect(await response.json()).toEqual({ finished: true });
      await closing;
    } finally {
      release();
      await testApp.close();
    }
  });
});
