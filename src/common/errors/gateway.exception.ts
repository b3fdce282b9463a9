import { ErrorSource, errorSource, GATEWAY_ERRORS, GatewayErrorCode } from './gateway-error-code';

export interface OpenAiErrorBody {
  /** OpenAI's four fields, plus `source`: whose failure it is (README "Errors"). */
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
    source: ErrorSource;
  };
}

export interface GatewayExceptionOptions {
  message?: string;
  param?: string | null;
  /** Extra response headers, e.g. Retry-After or x-should-retry. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error the gateway answers deliberately, with a stable code from GATEWAY_ERRORS. */
export class GatewayException extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: GatewayErrorCode,
    options: GatewayExceptionOptions = {},
  ) {
    const entry = GATEWAY_ERRORS[code];
    super(options.message ?? entry.message, { cause: options.cause });
    this.name = 'GatewayException';
    this.status = entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  toBody(): OpenAiErrorBody {
    return {
      error: {
        message: this.message,
        type: this.type,
        param: this.param,
        code: this.code,
        source: errorSource(this.code),
      },
    };
  }
}
