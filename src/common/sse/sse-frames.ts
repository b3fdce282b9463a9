// The text of server-sent events. A wire format builds its frames from these (its SseEncoder);
// SseStream decides which frame goes when.

/** A comment line: SSE clients ignore it, proxies see traffic. */
export const HEARTBEAT_COMMENT = ': keep-alive\n\n';

/** One `data: <json>` event; JSON.stringify escapes newlines, so the payload stays on one line. */
export function dataFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** One named event: an `event:` line and its `data: <json>` line. */
export function eventFrame(event: string, payload: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}
