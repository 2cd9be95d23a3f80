/** Where the service reads the time, so tests can move it (session expiry, token lifetimes). */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

export const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/** The UTC day of an instant, `YYYY-MM-DD`. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10);
