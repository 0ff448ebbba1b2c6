// The fallback function declares no routes of its own: unrouted `/api/*` paths answer 401/403/404.
export {};
