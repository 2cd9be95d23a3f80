export * from './activity.ts';
export * from './beta-access.ts';
export * from './collaboration.ts';
export * from './library.ts';
export * from './mail.ts';
export * from './organizations.ts';
export * from './rate-limits.ts';
export * from './users.ts';
