/**
 * A request the service refuses. The router turns it into a JSON error response; `param`
 * names the field, as the service's 400 bodies do.
 */
export class RequestProblem extends Error {
  readonly status: number;
  readonly param: string | undefined;

  constructor(message: string, param?: string, status = 400) {
    super(message);
    this.name = 'RequestProblem';
    this.param = param;
    this.status = status;
  }
}
