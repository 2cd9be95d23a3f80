export * from './beta-access.ts';
export * from './mail.ts';
export * from './organizations.ts';
export * from './rate-limits.ts';
export * from './users.ts';
