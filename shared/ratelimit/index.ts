export * from './factory';
export * from './key-records';
export * from './limiter';
export * from './limits';
export * from './middleware';
export * from './plan-cache';
export * from './upstash';
export * from './webhook-tools';
