// The WebSocket-to-TCP proxy the Neon driver's sessions go through; it lives in scripts/edge (the
// edge bench runs it too, and scripts/ never imports test/).
export * from '../../scripts/edge/ws-proxy';
