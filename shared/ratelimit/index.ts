export * from './factory';
export * from './limiter';
export * from './limits';
export * from './middleware';
export * from './plan-cache';
export * from './upstash';
