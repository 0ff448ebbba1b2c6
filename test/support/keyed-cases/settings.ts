import type { KeyedCase } from './types';

export const settingsCases: KeyedCase[] = [];
