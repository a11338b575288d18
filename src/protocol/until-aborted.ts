/**
 * Waiting on an app's callback that may never return (an input handler, a
 * sign-in prompt): its result, or the signal's reason as soon as it aborts.
 * Shared by the client and its sign-in, the two layers that call app code.
 */

/**
 * `work`'s value, or the signal's reason when it aborts first. Work that
 * settles later is ignored (its rejection is caught here, so it is never an
 * unhandled rejection). Without a signal, `work` itself.
 */
export function untilAborted<T>(work: T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  const promise = Promise.resolve(work);
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
