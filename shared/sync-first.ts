/**
 * `f(value)`, at once when the value is at hand and after it resolves when it is a promise. For the
 * hot paths that answer without a promise when a cache has what they need (a warm API key, a cached
 * plan, the in-memory rate limiter): every `await` costs a microtask turn on every request.
 */
export function andThen<T, R>(value: T | Promise<T>, f: (t: T) => R): R | Promise<Awaited<R>> {
  // a promise's callback result is flattened by `then`, hence Awaited
  return value instanceof Promise ? (value.then(f) as Promise<Awaited<R>>) : f(value);
}
