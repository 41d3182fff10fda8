import type { Split } from './logger.js';

/**
 * The color of each split (Burn's dashboard: train light red, valid light blue), as hex so the
 * terminal dashboard (ink takes hex colors) and the plot files draw each split the same.
 */
export const SPLIT_COLORS: Readonly<Record<Split, string>> = { train: '#f2605a', valid: '#4c8ee8' };
