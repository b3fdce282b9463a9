import type { Request } from 'express';
import { isJsonObject } from '../common/validation/invalid-parameter';

/**
 * The two handlers of a route that answers JSON or a stream (`POST /v1/chat/completions`), one
 * per response mode: Nest picks one per request through custom versioning, its router's way of
 * choosing among the handlers of one path by any property of the request (`VersioningType.CUSTOM`,
 * configured in app.setup.ts). Only the streaming handler carries the SSE interceptor, so a JSON
 * answer does not pay for Nest's interceptor chain. Any format whose body has a boolean `stream`
 * can split its route the same way.
 */
export const ResponseMode = { json: 'json', stream: 'stream' } as const;

/**
 * `stream: true` streams; anything else is answered as JSON by the handler whose body pipe
 * refuses a `stream` that is not a boolean, as it did with one handler. Runs after the body is
 * parsed (app.setup.ts registers the parser before Nest's routes). `unknown`, as Nest's
 * VersioningOptions types its extractor's argument; Express passes its Request.
 */
export function responseModeOf(request: unknown): string {
  const body: unknown = (request as Request).body;
  return isJsonObject(body) && body.stream === true ? ResponseMode.stream : ResponseMode.json;
}
