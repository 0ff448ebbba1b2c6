import type { KeyedCase } from './types';

export const directoryCases: KeyedCase[] = [];
