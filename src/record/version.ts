/** The burn-ts version written into file metadata (`producer: burn-ts`, `version`). */
export const BURN_TS_VERSION = '0.1.0';
