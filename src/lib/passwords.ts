import { hash, verify } from '@node-rs/argon2';

// OWASP's argon2id recommendation: 19 MiB of memory, 2 iterations, 1 lane.
// `algorithm: 2` is Algorithm.Argon2id (a const enum, which type stripping cannot inline).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, OPTIONS);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
