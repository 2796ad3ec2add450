/** A pipeline service's failure, with the HTTP status it answered (0: it did not answer). */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly service: "language model" | "voice",
    readonly status = 0,
    readonly detail = "",
  ) {
    super(message);
  }

  /** The service refused the key: no later turn can succeed, so the call ends. */
  get keyRefused(): boolean {
    return this.status === 401 || this.status === 403;
  }
}
