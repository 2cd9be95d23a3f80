import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** The project root: where `npm start` runs `node src/server.ts`. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Variables the service reads that must not leak in from the environment the tests run in
 * (a developer's DATABASE_URL, vitest's NODE_ENV=test, ...): each test sets what it means to.
 */
const SERVICE_VARIABLES = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'EMBEDDED_PG_PORT',
  'DATABASE_POOL_SIZE',
  'APP_URL',
  'LOG_LEVEL',
  'TRUST_PROXY',
  'CORS_ORIGINS',
  'SECRET',
  'RATE_LIMIT_PER_MINUTE',
  'SHUTDOWN_TIMEOUT_MS',
];

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type ServiceProcess = {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** stdout and stderr, for failure messages. */
  output(): string;
  exited: Promise<Exit>;
  hasExited(): boolean;
};

/** Spawns the service exactly as `npm start` does: `node src/server.ts` from the project root. */
export function startService(env: Record<string, string>): ServiceProcess {
  const baseEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SERVICE_VARIABLES) delete baseEnv[name];
  const child = spawn(process.execPath, ['src/server.ts'], {
    cwd: projectRoot,
    env: { ...baseEnv, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not spawn the service');
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let done = false;
  // 'close' (not 'exit'): by then both pipes are drained, so the output is complete.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  return {
    child,
    pid: child.pid,
    stdout: () => stdout,
    stderr: () => stderr,
    output: () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
    exited,
    hasExited: () => done,
  };
}

/** Waits for the process to end; throws (with its output) if it is still running after `timeoutMs`. */
export async function waitForExit(service: ServiceProcess, timeoutMs = 30_000): Promise<Exit> {
  const timeout = sleep(timeoutMs, 'timeout' as const);
  const outcome = await Promise.race([service.exited, timeout]);
  if (outcome === 'timeout') {
    throw new Error(`pid ${service.pid} still running after ${timeoutMs} ms\n${service.output()}`);
  }
  return outcome;
}

/** Polls `GET url` until it answers 200; throws early (with the output) if the process exits. */
export async function waitForHttp(service: ServiceProcess, url: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (service.hasExited()) {
      const { code, signal } = await service.exited;
      throw new Error(
        `the service exited (code ${code}, signal ${signal}) before ${url} answered\n${service.output()}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.status === 200) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})\n${service.output()}`);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until `pid` is gone; false if it is still alive after `timeoutMs`. */
export async function waitUntilGone(pid: number, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** The first line of a pid file (postmaster.pid, server.pid), or undefined when it is missing. */
export function readPidFile(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Per-test resources that are released in afterEach, whether the test passed or not: spawned
 * services are stopped (SIGTERM, then SIGKILL), any embedded PostgreSQL still running in a
 * temporary DATA_DIR is stopped, and the directories are removed.
 */
export function useProcessSandbox() {
  let services: ServiceProcess[] = [];
  let dataDirs: string[] = [];
  let cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    const errors: unknown[] = [];
    for (const service of services) {
      if (service.hasExited()) continue;
      service.child.kill('SIGTERM');
      const stopped = await Promise.race([service.exited, sleep(20_000, 'timeout' as const)]);
      if (stopped === 'timeout') {
        service.child.kill('SIGKILL');
        await service.exited;
      }
    }
    for (const dir of dataDirs) {
      const postmaster = readPidFile(path.join(dir, 'postgres', 'postmaster.pid'));
      if (postmaster && isAlive(postmaster)) {
        process.kill(postmaster, 'SIGINT');
        if (!(await waitUntilGone(postmaster, 15_000))) {
          process.kill(postmaster, 'SIGKILL');
          await waitUntilGone(postmaster, 5_000);
        }
      }
    }
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    services = [];
    dataDirs = [];
    cleanups = [];
    if (errors.length) throw new AggregateError(errors, 'sandbox clean-up failed');
  });

  return {
    /** A fresh temporary DATA_DIR that the `postgres` user (as which the cluster runs under root) can enter. */
    dataDir(): string {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'kh-server-test-'));
      chmodSync(dir, 0o755);
      dataDirs.push(dir);
      return dir;
    },
    start(env: Record<string, string>): ServiceProcess {
      const service = startService(env);
      services.push(service);
      return service;
    },
    /** Runs after the services are stopped (e.g. to drop a database they used). */
    onCleanup(cleanup: () => Promise<void>) {
      cleanups.push(cleanup);
    },
  };
}
