/** Tables of this area, merged into `Database` by ../schema.ts. */
// biome-ignore lint/suspicious/noEmptyInterface: filled as the area's functions land
export interface PlatformTables {}
