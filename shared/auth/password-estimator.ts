/**
 * zxcvbn with its language data generated from the packages (password-words.gen.ts: the keyboard
 * graphs, the English feedback, and the word lists less the entries another list outranks).
 * Imported only dynamically, by password-strength.ts: its top level (the lists decoded) runs on the
 * first password set, not at the Worker's startup.
 */
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary, translations } from './password-words.gen';

export const createEstimator = () => new ZxcvbnFactory({ translations, graphs: adjacencyGraphs, dictionary });
