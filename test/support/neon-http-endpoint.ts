// The Neon SQL-over-HTTP endpoint the tests run the edge's data path against; it lives in
// scripts/edge (the edge bench runs it too, and scripts/ never imports test/).
export * from '../../scripts/edge/neon-http-endpoint';
