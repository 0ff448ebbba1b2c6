/** The console's static files and their types (kept apart from the bodies so the docs Worker can list them cheaply). */
export const CONSOLE_FILE_TYPES = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
} as const;
export type ConsoleFile = keyof typeof CONSOLE_FILE_TYPES;
