// The Upstash REST stand-in in front of a real Redis; it lives in scripts/edge (the edge bench runs
// it too, and scripts/ never imports test/).
export * from '../../scripts/edge/upstash-rest';
