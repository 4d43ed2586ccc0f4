// Bounding a wait: health checks, metrics reads and the app's start and stop steps.

export interface TimeoutOptions {
  /** Default "no answer within <ms> ms". */
  readonly message?: string;
  /** The class of the error the wait rejects with; default Error. */
  readonly errorClass?: new (message: string) => Error;
}

/** Settles like `promise`, or rejects after `ms` with an error saying so. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, opts: TimeoutOptions = {}): Promise<T> {
  const { message = `no answer within ${ms} ms`, errorClass = Error } = opts;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new errorClass(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
