/** `%text%` for SQL LIKE/ILIKE with the text's own `\`, `%` and `_` escaped: user input matches literally. */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
