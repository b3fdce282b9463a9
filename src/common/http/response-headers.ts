import type { ServerResponse } from 'node:http';

export type SetResponseHeaders = (headers: Record<string, string>) => void;

/**
 * Lets a service add headers to the response it does not hold (the handler never takes @Res(),
 * which would bypass interceptors). Headers set after the response started are dropped.
 * Node's setHeader directly: the values are strings and none is Content-Type, so Express's
 * res.set (value coercion, charset handling per header) would add nothing.
 */
export function responseHeaderSetter(response: ServerResponse): SetResponseHeaders {
  return (headers) => {
    if (response.headersSent) return;
    for (const name in headers) response.setHeader(name, headers[name]);
  };
}
